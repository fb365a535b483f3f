import GraphQL
import JSON
import Testing

/// The operation a request names is selected once per (document, name) and kept with
/// the prepared document: the HTTP layer's selection and the executor's are the same
/// object, and the host's note on it survives between requests.
@Suite struct SelectedOperationTests {
    private static let text = "query A { __typename } query B { __typename } query C { __typename }"

    private func engine() throws -> GraphQLEngine {
        let schema = try WorkloadSchema.make(
            sdl: try TestSupport.fixture("execution/schema.graphql"),
            data: try TestSupport.json(TestSupport.fixture("execution/data.json"))
        )
        return GraphQLEngine(schema: schema, cacheCapacity: 8)
    }

    @Test func aNameIsSelectedOnceAndSharedWithTheExecutor() async throws {
        let engine = try engine()
        let prepared = engine.prepare(Self.text)
        let first = try prepared.selectOperation(named: "B", schema: engine.schema).get()
        #expect(first.operation.name?.value == "B")
        #expect(first.kind == .query)
        let again = try engine.prepare(Self.text).selectOperation(named: "B", schema: engine.schema).get()
        #expect(first === again)
        #expect(prepared.errors.isEmpty)
        let other = try prepared.selectOperation(named: "C", schema: engine.schema).get()
        #expect(other !== first)
        #expect(other.operation.name?.value == "C")

        // Executing by a name keeps the selection made earlier (the executor reuses it, it does not replace it).
        let selectedA = try prepared.selectOperation(named: "A", schema: engine.schema).get()
        let result = await engine.execute(GraphQLRequest(query: Self.text, operationName: "A"))
        #expect(result.errors.isEmpty)
        #expect(try prepared.selectOperation(named: "A", schema: engine.schema).get() === selectedA)
    }

    @Test func aHostNoteIsKeptWithTheOperation() throws {
        let engine = try engine()
        let selected = try engine.prepare(Self.text).selectOperation(named: "A", schema: engine.schema).get()
        #expect(selected.note(as: Int.self) == nil)
        selected.remember(42)
        #expect(selected.note(as: Int.self) == 42)
        #expect(selected.note(as: String.self) == nil)
        let later = try engine.prepare(Self.text).selectOperation(named: "A", schema: engine.schema).get()
        #expect(later.note(as: Int.self) == 42)
    }

    @Test func unknownAndAmbiguousNamesFailAsGetOperationSays() throws {
        let engine = try engine()
        let prepared = engine.prepare(Self.text)
        guard case .failure(let unknown) = prepared.selectOperation(named: "Z", schema: engine.schema) else {
            Issue.record("an unknown operation name was selected"); return
        }
        #expect(unknown.message.contains("Z"))
        guard case .failure = prepared.selectOperation(named: nil, schema: engine.schema) else {
            Issue.record("a document of three operations ran without a name"); return
        }
        let unparsed = engine.prepare("query {")
        guard case .failure = unparsed.selectOperation(named: nil, schema: engine.schema) else {
            Issue.record("a document that did not parse gave an operation"); return
        }
    }
}
