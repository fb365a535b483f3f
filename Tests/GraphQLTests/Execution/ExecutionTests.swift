import GraphQL
import JSON
import Synchronization
import Testing

/// Execution semantics (spec §6): results, errors, null propagation, lists,
/// abstract types, directives, concurrency and ordering.
@Suite struct ExecutionTests {
    let fixture: SemanticsFixture

    init() throws { fixture = try SemanticsFixture() }

    func run(_ query: String, variables: JSONObject = [:], operationName: String? = nil, context: any Sendable = JSONValue.null) async -> String {
        TestSupport.text(await TestSupport.run(fixture.schema, query, variables: variables, operationName: operationName, context: context))
    }

    @Test func fieldsInSelectionOrderWithAliasesAndDefaults() async {
        let text = await run(#"{ b: hello(name: "B") hello a: hello(name: "A") __typename }"#)
        #expect(text == #"{"data":{"b":"hello B","hello":"hello world","a":"hello A","__typename":"Query"}}"#)
    }

    @Test func contextReachesResolvers() async {
        #expect(await run("{ who: context }", context: "principal-42") == #"{"data":{"who":"principal-42 at who (1 node)"}}"#)
    }

    @Test func nonNullFieldReturningNullNullsParentAndReportsPath() async {
        let text = await run("{ nested { optional required child { required } } hello }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Nested.required.","locations":[{"line":1,"column":21}],"path":["nested","required"]}],"data":{"nested":null,"hello":"hello world"}}"#)
    }

    @Test func nonNullRootFieldNullsData() async {
        let text = await run("{ hello nonNullNull }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Query.nonNullNull.","locations":[{"line":1,"column":9}],"path":["nonNullNull"]}],"data":null}"#)
    }

    @Test func resolverErrorBecomesNullWithMessage() async {
        let text = await run("{ nullableThrows hello }")
        #expect(text == #"{"errors":[{"message":"nope","locations":[{"line":1,"column":3}],"path":["nullableThrows"]}],"data":{"nullableThrows":null,"hello":"hello world"}}"#)
    }

    @Test func reportableErrorCarriesExtensions() async {
        let text = await run("{ reportable }")
        #expect(text == #"{"errors":[{"message":"Payment declined","locations":[{"line":1,"column":3}],"path":["reportable"],"extensions":{"code":"DECLINED"}}],"data":{"reportable":null}}"#)
    }

    @Test func asyncErrorIsReportedAtItsPath() async {
        let text = await run("{ boom hello }")
        #expect(text == #"{"errors":[{"message":"async boom","locations":[{"line":1,"column":3}],"path":["boom"]}],"data":{"boom":null,"hello":"hello world"}}"#)
    }

    @Test func nonNullListItemNullsTheWholeNullableList() async {
        let text = await run("{ items { id name } }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Item.name.","locations":[{"line":1,"column":14}],"path":["items",1,"name"]}],"data":{"items":null}}"#)
    }

    @Test func nullableListItemBecomesNull() async {
        let text = await run("{ nullableItems { id name } }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Item.name.","locations":[{"line":1,"column":22}],"path":["nullableItems",1,"name"]}],"data":{"nullableItems":[{"id":"1","name":"one"},null]}}"#)
    }

    @Test func listOfScalarsFromSwiftArray() async {
        #expect(await run("{ numbers }") == #"{"data":{"numbers":[1,2,3]}}"#)
    }

    @Test func leafSerialisationErrorUsesScalarMessage() async {
        let text = await run("{ badInt }")
        #expect(text == #"{"errors":[{"message":"Int cannot represent non-integer value: \"twelve\"","locations":[{"line":1,"column":3}],"path":["badInt"]}],"data":{"badInt":null}}"#)
    }

    @Test func interfaceResolvesByTypenameAndFragments() async {
        let text = await run("{ pets { __typename name ... on Dog { barks } ... on Cat { meows } } }")
        #expect(text == #"{"data":{"pets":[{"__typename":"Dog","name":"Rex","barks":true},{"__typename":"Cat","name":"Tom","meows":false}]}}"#)
    }

    @Test func unionResolvesAsyncListMembers() async {
        let text = await run("{ search { __typename ... on Dog { name } ... on Item { id } } }")
        #expect(text == #"{"data":{"search":[{"__typename":"Dog","name":"Rex"},{"__typename":"Item","id":"9"}]}}"#)
    }

    @Test func typeResolverAndFieldReadableValue() async {
        #expect(await run("{ kitten { __typename name } }") == #"{"data":{"kitten":{"__typename":"Cat","name":"Kit"}}}"#)
    }

    @Test func unresolvableAbstractTypeIsAnError() async {
        let text = await run("{ untyped { name } }")
        #expect(text.contains(#"Abstract type \"Pet\" must resolve to an Object type at runtime for field \"Query.untyped\"."#))
        #expect(text.hasSuffix(#""data":{"untyped":null}}"#))
    }

    @Test func skipAndIncludeWithLiteralsAndVariables() async {
        let query = """
        query ($yes: Boolean!, $no: Boolean!) {
          a: hello(name: "a") @skip(if: true)
          b: hello(name: "b") @include(if: $yes)
          c: hello(name: "c") @include(if: $no)
          ... @skip(if: $no) { d: hello(name: "d") }
          ...F @include(if: $yes) @skip(if: $yes)
        }
        fragment F on Query { e: hello(name: "e") }
        """
        #expect(await run(query, variables: ["yes": true, "no": false]) == #"{"data":{"b":"hello b","d":"hello d"}}"#)
    }

    @Test func siblingQueryFieldsRunConcurrently() async {
        // Each resolver waits until both have started: serial execution would see only one.
        #expect(await run("{ slowA slowB }") == #"{"data":{"slowA":true,"slowB":true}}"#)
    }

    @Test func mutationRootFieldsRunSerially() async {
        let text = await run("mutation { second first again: second }")
        #expect(text == #"{"data":{"second":2,"first":1,"again":2}}"#)
        // `run` executes twice (result tree, then bytes): each run is serial.
        let serial = ["start second", "end second", "start first", "end first", "start second", "end second"]
        #expect(fixture.recorder.events.withLock { $0 } == serial + serial)
    }

    @Test func batchLoaderLoadsAllSiblingsInOneCall() async {
        let text = await run("{ authors { title author { id name } } }")
        #expect(text.hasPrefix(#"{"data":{"authors":[{"title":"Book 1","author":{"id":"a1","name":"Author a1"}},{"title":"Book 2","author":{"id":"a2","name":"Author a2"}},{"title":"Book 3","author":{"id":"a0","#))
        // `run` executes twice (result tree, then bytes): one batch call each.
        let batches = fixture.recorder.authorBatches.withLock { $0 }
        #expect(batches.count == 2)
        #expect(batches.map { $0.sorted() } == [["a0", "a1", "a2"], ["a0", "a1", "a2"]])
    }

    @Test func operationSelection() async {
        let document = "query A { hello } query B { b: hello(name: \"b\") }"
        #expect(await run(document, operationName: "B") == #"{"data":{"b":"hello b"}}"#)
        #expect(await run(document) == #"{"errors":[{"message":"Must provide operation name if query contains multiple operations."}]}"#)
        #expect(await run(document, operationName: "C") == #"{"errors":[{"message":"Unknown operation named \"C\"."}]}"#)
    }

    @Test func missingRootTypeIsReported() async throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Int }")
        let response = await TestSupport.run(schema, "mutation { a }")
        // Validation may reject this first; either way nothing executes and the reason is given.
        #expect(response.data == nil)
        #expect(response.errors.count == 1)
    }
}

/// Documents validation would reject must still end in an error, not a hang.
@Suite struct UnvalidatedExecutionTests {
    @Test func fragmentCycleEndsInAnError() async throws {
        let schema = try GraphQLSchema(sdl: "type Query { me: Query name: String }")
        let document = try Parser.parse("{ ...F } fragment F on Query { me { ...F } }")
        let result = await execute(schema: schema, request: ExecutionRequest(document: document))
        #expect(result.data == nil)
        #expect(result.errors.first?.message.contains("nest more than") == true)
    }
}

/// Deep documents execute within the cooperative threads' stacks.
@Suite struct DeepExecutionTests {
    @Test func documentAtTheParserDepthLimitExecutes() async throws {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "me", .sync { _ in JSONValue.object(["name": "n"]) })
        resolvers.field("Query", "list", .sync { _ in JSONValue.array([.object(["name": "n"])]) })
        let schema = try GraphQLSchema(sdl: "type Query { me: Query list: [Query!]! name: String }", resolvers: resolvers)
        // Fragments let a document nest deeper than the parser's own depth limit.
        var document = "{ ...F0 }\n"
        let levels = 200
        for level in 0..<levels {
            document += "fragment F\(level) on Query { \(level % 2 == 0 ? "me" : "list") { name \(level + 1 < levels ? "...F\(level + 1)" : "") } }\n"
        }
        let response = await TestSupport.run(schema, document)
        #expect(response.errors.isEmpty)
        #expect(TestSupport.text(response).hasPrefix(#"{"data":{"me":{"name":"n","list":[{"name":"n","me":{"#))
    }
}

/// Fields with the same response key merge (spec §6.3.2), their sub-selections too.
@Suite struct FieldMergingTests {
    @Test func sameKeyFieldsMergeSubSelections() async throws {
        let fixture = try SemanticsFixture()
        let query = #"{ a: hello(name: "x") nested { optional } a: hello(name: "x") ... on Query { nested { child { required } } } }"#
        let text = TestSupport.text(await TestSupport.run(fixture.schema, query))
        #expect(text == #"{"data":{"a":"hello x","nested":{"optional":"x","child":{"required":"ok"}}}}"#)
    }
}
