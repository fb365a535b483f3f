import GraphQL
@testable import GraphQLHTTP
import JSON
import Testing

/// An operation's metric labels and log fields are made once, when it is first
/// selected, and shared by every request that runs it.
@Suite struct OperationLabelsTests {
    @Test func eachOutcomesLabelsAreMadeOnceAndShared() {
        let labels = OperationLabels(label: "Order")
        for outcome in OperationLabels.outcomes {
            let first = labels.values(outcome: outcome)
            let second = labels.values(outcome: outcome)
            #expect(first == ["Order", outcome])
            let same = first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            #expect(same, "the label array for \(outcome) should be the prebuilt one, not a new array")
        }
        #expect(labels.values(outcome: "other") == ["Order", "other"])
        #expect(labels.logFields.count == 1)
        #expect(labels.logFields.first?.name == "operation" && labels.logFields.first?.value == "Order")
    }
}

/// `extensions` written straight into the response body, in the room the engine leaves.
@Suite struct ResponseExtensionsWriterTests {
    @Test func membersAreWrittenInPlaceBeforeTheClosingBrace() async throws {
        let engine = GraphQLEngine(schema: try GraphQLSchema(sdl: "type Query { a: String }"))
        var body = await engine.executeEncoded(GraphQLRequest(query: "{ a }"), rootValue: JSONValue.object(["a": "x"])).body()
        let before = body.withUnsafeBufferPointer { $0.baseAddress }
        let writer = ResponseExtensions(writingMembers: { _, _, body in
            body.append(contentsOf: #""timing":{"totalMs":1.5}"#.utf8)
            return true
        })
        writer.apply(JSONValue.null, .zero, to: &body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"data":{"a":"x"},"extensions":{"timing":{"totalMs":1.5}}}"#)
        #expect(body.withUnsafeBufferPointer { $0.baseAddress } == before, "appended in the room left by the engine, not a copy")

        var unchanged = Array(#"{"data":null}"#.utf8)
        ResponseExtensions(writingMembers: { _, _, body in
            return false
        }).apply(JSONValue.null, .zero, to: &unchanged)
        #expect(String(decoding: unchanged, as: UTF8.self) == #"{"data":null}"#)
        var objectForm = Array(#"{"data":null}"#.utf8)
        ResponseExtensions { _, _ in ["n": 1] }.apply(JSONValue.null, .zero, to: &objectForm)
        #expect(String(decoding: objectForm, as: UTF8.self) == #"{"data":null,"extensions":{"n":1}}"#)
    }
}
