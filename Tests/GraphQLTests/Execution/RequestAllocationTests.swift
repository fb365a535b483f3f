@testable import GraphQL
import JSON
import Synchronization
import Testing

/// The per-request work the cached path skips: each test checks the mechanism's
/// effect directly (the same storage kept, the value read where it is), so that
/// removing the mechanism fails it even though the response would stay the same.
@Suite struct RequestAllocationTests {
    static let schema: GraphQLSchema = {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "view", .sync { _ in View(name: "first", tags: ["a", "b"], count: 7, note: "in place") })
        do {
            return try GraphQLSchema(sdl: "type Query { view(id: ID!, n: Int): View } type View { name: String count: Int note: String }",
                                     resolvers: resolvers)
        } catch {
            fatalError("the test schema is valid: \(error)")
        }
    }()

    /// A view larger than an existential's inline buffer (so a cast would box a copy of it).
    struct View: GraphQLFieldReadable {
        var name: String
        var tags: [String]
        var count: Int
        var note: String

        func graphQLField(_ field: String) -> (any Sendable)? {
            switch field {
            case "name": name
            case "count": count
            case "note": note
            default: nil
            }
        }
    }

    private func variablesPlan(_ text: String) throws -> VariablesPlan {
        let document = try Parser.parse(text)
        guard case .operation(let operation)? = document.definitions.first else {
            Issue.record("no operation")
            throw ParseFailure()
        }
        return VariablesPlan(schema: Self.schema, operation: operation)
    }

    struct ParseFailure: Error {}

    private static func storage(_ object: JSONObject) -> (UnsafeRawPointer?, UnsafeRawPointer?) {
        (object.keys.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
         object.values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
    }

    @Test func variablesAlreadyInTheirCoercedFormKeepTheRequestsObject() throws {
        let plan = try variablesPlan("query Q($id: ID!, $n: Int) { view(id: $id, n: $n) { name } }")
        let inputs: JSONObject = ["id": "order_1", "n": 3]
        let coerced = try plan.coerce(inputs, schema: Self.schema, source: Source(body: "")).get()
        #expect(coerced == inputs)
        let (keys, values) = Self.storage(coerced)
        let (inputKeys, inputValues) = Self.storage(inputs)
        #expect(keys == inputKeys && values == inputValues, "the object should be the request's own, not a copy")
    }

    @Test func variablesThatNeedCoercionStillGetTheirCoercedObject() throws {
        let plan = try variablesPlan("query Q($id: ID!, $n: Int) { view(id: $id, n: $n) { name } }")
        // An ID given as an integer becomes a string; members out of order or extra are dropped or reordered.
        let coerced = try plan.coerce(["n": 3, "id": 12, "extra": true], schema: Self.schema, source: Source(body: "")).get()
        #expect(coerced == ["id": "12", "n": 3])
        let defaults = try variablesPlan("query Q($id: ID = \"d\") { view(id: $id) { name } }")
        #expect(try defaults.coerce([:], schema: Self.schema, source: Source(body: "")).get() == ["id": "d"])
        let missing = try variablesPlan("query Q($id: ID!) { view(id: $id) { name } }").coerce(
            ["id": .null], schema: Self.schema, source: Source(body: ""))
        #expect((try? missing.get()) == nil)
    }

    @Test func aReadableViewIsReadThroughItsTypeWithoutACast() async throws {
        let raw: any Sendable = View(name: "n", tags: [], count: 2, note: "x")
        let readable = try #require(readableType(raw))
        #expect(ObjectIdentifier(readable) == ObjectIdentifier(View.self))
        #expect(readField(of: raw, as: readable, "name") as? String == "n")
        #expect(readField(of: raw, as: readable, "count") as? Int == 2)
        #expect(readField(of: raw, as: readable, "missing") == nil)
        // A conformance of another type is never applied to this value.
        struct Other: GraphQLFieldReadable { func graphQLField(_ name: String) -> (any Sendable)? { "other" } }
        #expect(readField(of: raw, as: Other.self, "name") == nil)
        #expect(readableType(JSONValue.string("s")) == nil)
        guard case .readable(_, let found) = PropertyReader(raw) else {
            Issue.record("a GraphQLFieldReadable value should be read as one")
            return
        }
        #expect(ObjectIdentifier(found) == ObjectIdentifier(View.self))

        let engine = GraphQLEngine(schema: Self.schema)
        let response = await engine.executeEncoded(GraphQLRequest(query: "{ view(id: 1) { name count note } }")).body()
        #expect(String(decoding: response, as: UTF8.self) == #"{"data":{"view":{"name":"first","count":7,"note":"in place"}}}"#)
    }

    /// What a resolver saw: its arguments and field nodes (kept alive, so that two
    /// requests' arrays can never share an address by reuse of freed memory).
    final class Seen: @unchecked Sendable {
        // @unchecked: written by the resolver of one request at a time (the test awaits each request), read after.
        var arguments: [JSONObject] = []
        var nodes: [[Field]] = []
    }

    private static func storage<Element>(_ array: [Element]) -> UnsafeRawPointer? {
        array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func argumentNamesAndFieldNodesAreMadeOncePerPlanNotPerRequest() async throws {
        let seen = Seen()
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "pick", .sync { input in
            seen.arguments.append(input.arguments)
            seen.nodes.append(input.info.fieldNodes)
            return input.arguments.keys.joined(separator: ",")
        })
        let schema = try GraphQLSchema(sdl: "type Query { pick(a: Int, b: Int = 2, c: Int): String }", resolvers: resolvers)
        let engine = GraphQLEngine(schema: schema)
        let request = GraphQLRequest(query: "query Q($a: Int, $c: Int) { pick(a: $a, c: $c) }", variables: ["a": 1, "c": 3])
        for _ in 0..<2 {
            let body = await engine.executeEncoded(request).body()
            #expect(String(decoding: body, as: UTF8.self) == #"{"data":{"pick":"a,b,c"}}"#)
        }
        try #require(seen.arguments.count == 2 && seen.nodes.count == 2)
        #expect(seen.arguments[0] == ["a": 1, "b": 2, "c": 3])
        #expect(Self.storage(seen.arguments[0].keys) == Self.storage(seen.arguments[1].keys),
                "every request's arguments should share the schema's array of names")
        #expect(Self.storage(seen.nodes[0]) == Self.storage(seen.nodes[1]), "fieldNodes should be the plan's array")
        #expect(seen.nodes[0].count == 1)

        // Arguments left out keep only the names given (in definition order), with defaults.
        let partial = await engine.executeEncoded(GraphQLRequest(query: "query Q($c: Int) { pick(c: $c) }", variables: [:])).body()
        #expect(String(decoding: partial, as: UTF8.self) == #"{"data":{"pick":"b"}}"#)
        let literal = await engine.executeEncoded(GraphQLRequest(query: "{ pick(c: 5, a: null) }")).body()
        #expect(String(decoding: literal, as: UTF8.self) == #"{"data":{"pick":"a,b,c"}}"#)
        #expect(seen.arguments.last == ["a": .null, "b": 2, "c": 5])
    }

    @Test func runsMovedOutWhileWorkIsPendingShareOneStore() {
        var output = ByteOutput.response()
        let node = ResultNode(isList: false, keys: [])
        let start = output.position
        output.sink.append("{\"a\":")
        output.spill(from: start, into: node)
        output.sink.append("[1,2]")
        let slot = output.take(from: start)
        #expect(output.position == start, "moved runs leave the sink")
        guard case .bytes(0, 5)? = node.slots.first, case .bytes(5, 5) = slot else {
            Issue.record("runs should be ranges of one store, one after the other")
            return
        }
        #expect(String(decoding: output.spilled, as: UTF8.self) == #"{"a":[1,2]"#)
        output.write(node.slots[0])
        output.write(slot)
        output.sink.append(UInt8(ascii: "}"))
        let body = output.closeResponse()
        #expect(String(decoding: body, as: UTF8.self) == #"{"data":{"a":[1,2]}}"#)
        #expect(body.capacity >= body.count + ByteOutput.trailingRoom, "room for extensions appended in place")
    }

    @Test func pendingFieldsStillCompleteInPlaceAcrossTheStore() async throws {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "later", .async { input in
            await Task.yield()
            return JSONValue.object(["v": .string(input[argument: "v"]?.stringValue ?? "")])
        })
        let schema = try GraphQLSchema(sdl: "type Query { now: String later(v: String): Box other: Box } type Box { v: String inner: Box }",
                                       resolvers: resolvers)
        let engine = GraphQLEngine(schema: schema)
        let body = await engine.executeEncoded(
            GraphQLRequest(query: #"{ a: later(v: "1") { v } now b: later(v: "2") { v } c: later(v: "3") { v } }"#),
            rootValue: JSONValue.object(["now": "n"])).body()
        #expect(String(decoding: body, as: UTF8.self) == #"{"data":{"a":{"v":"1"},"now":"n","b":{"v":"2"},"c":{"v":"3"}}}"#)
    }

    @Test func theSpillStoreIsSizedFromEarlierResponses() async throws {
        var resolvers = SchemaResolvers()
        let text = String(repeating: "x", count: 600)
        resolvers.field("Query", "later", .async { _ in JSONValue.object(["v": .string(text)]) })
        let schema = try GraphQLSchema(sdl: "type Query { later: Box } type Box { v: String }", resolvers: resolvers)
        let engine = GraphQLEngine(schema: schema)
        _ = await engine.executeEncoded(GraphQLRequest(query: "{ later { v } }")).body()
        #expect(ByteOutput.spillHint.load(ordering: .relaxed) >= 600, "the next execution should reserve room for what this one moved out")
    }
}
