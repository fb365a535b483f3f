import GraphQL
import JSON
import Synchronization
import Testing

/// Responses written straight to bytes (`executeEncoded`, `executeImmediatelyEncoded`)
/// must be byte for byte what the result tree writes, including null propagation
/// around parts that were pending, error order, and request errors.
@Suite struct EncodedExecutionTests {
    let engine: GraphQLEngine

    static let sdl = """
    type Query {
      one: Obj
      list: [Obj]
      strictList: [Obj!]
      strictItems: [Obj!]!
      slow: String
      deep: Obj!
    }
    type Obj {
      id: ID!
      name: String!
      later: String!
      maybe: String
      child: Obj
      items: [Obj]
    }
    """

    init() throws {
        var resolvers = SchemaResolvers()
        @Sendable func obj(_ id: String) -> JSONValue { .object(["id": .string(id)]) }
        resolvers.field("Query", "one", .sync { _ in obj("1") })
        resolvers.field("Query", "list", .sync { _ in JSONValue.array([obj("1"), obj("2"), obj("3")]) })
        resolvers.field("Query", "strictList", .sync { _ in JSONValue.array([obj("1"), obj("2"), obj("3")]) })
        resolvers.field("Query", "strictItems", .async { _ in JSONValue.array([obj("1"), obj("3")]) })
        resolvers.field("Query", "slow", .async { _ in "slow" })
        resolvers.field("Query", "deep", .sync { _ in obj("2") })
        // `name` is null for 3, `later` (async) null for 2: both non-null fields.
        resolvers.field("Obj", "name", .sync { input in
            let id = (input.source as? JSONValue)?["id"]?.stringValue ?? ""
            return id == "3" ? nil : "name " + id
        })
        resolvers.field("Obj", "later", .async { input in
            let id = (input.source as? JSONValue)?["id"]?.stringValue ?? ""
            return id == "2" ? nil : "L" + id
        })
        resolvers.field("Obj", "maybe", .sync { input in
            let id = (input.source as? JSONValue)?["id"]?.stringValue ?? ""
            return Deferred { "M" + id }
        })
        resolvers.field("Obj", "child", .async { input in
            let id = (input.source as? JSONValue)?["id"]?.stringValue ?? ""
            return id.count < 3 ? obj(id + id) : nil
        })
        resolvers.field("Obj", "items", .sync { input in
            let id = (input.source as? JSONValue)?["id"]?.stringValue ?? ""
            return [obj(id + "a"), Deferred { obj("2") }, obj("3")] as [any Sendable]
        })
        engine = GraphQLEngine(schema: try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers))
    }

    func text(_ query: String) async -> String {
        TestSupport.text(await TestSupport.both(engine, GraphQLRequest(query: query)))
    }

    @Test(arguments: [
        "{ one { id later maybe } }",
        "{ list { id later maybe name } }",
        "{ strictList { id later } slow }",
        "{ strictList { id maybe name } slow }",
        "{ list { id child { id later child { id name later } } } slow }",
        "{ one { name later } list { name } }",
        "{ strictItems { id later } one { id } }",
        "{ strictItems { name } }",
        "{ one { items { id later name } } }",
        "{ one { items { id maybe child { later } } } deep { items { name } } }",
        "{ deep { later } slow }",
        "{ deep { name child { later } } }",
        "{ a: one { id } b: one { later } c: one { id } }",
    ])
    func pendingPartsAndNullPropagationMatchTheTree(_ query: String) async {
        let text = await text(query)
        #expect(!text.isEmpty)
    }

    @Test func nullableListItemsAroundAPendingFailure() async {
        let text = await text("{ list { id later } }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Obj.later.","locations":[{"line":1,"column":13}],"path":["list",1,"later"]}],"data":{"list":[{"id":"1","later":"L1"},null,{"id":"3","later":"L3"}]}}"#)
    }

    @Test func nonNullRootFailureAfterPendingSiblings() async {
        let text = await text("{ slow deep { name later } }")
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Obj.later.","locations":[{"line":1,"column":20}],"path":["deep","later"]}],"data":null}"#)
    }

    @Test func synchronousFailureTruncatesBackToTheNullableParent() async {
        let text = await text(#"{ list { id name } one { id } }"#)
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Obj.name.","locations":[{"line":1,"column":13}],"path":["list",2,"name"]}],"data":{"list":[{"id":"1","name":"name 1"},{"id":"2","name":"name 2"},null],"one":{"id":"1"}}}"#)
    }

    @Test func immediateEncodedFinishesWithoutWaiting() {
        let query = "{ one { id name } list { id } }"
        guard case .finished(let response) = engine.executeImmediatelyEncoded(engine.prepare(query), request: GraphQLRequest(query: query)) else {
            Issue.record("a query of sync resolvers should finish immediately")
            return
        }
        let expected = #"{"data":{"one":{"id":"1","name":"name 1"},"list":[{"id":"1"},{"id":"2"},{"id":"3"}]}}"#
        #expect(String(decoding: response.body(), as: UTF8.self) == expected)
        #expect(response.hasData)
        #expect(response.data.map { String(decoding: $0, as: UTF8.self) } == #"{"one":{"id":"1","name":"name 1"},"list":[{"id":"1"},{"id":"2"},{"id":"3"}]}"#)
        #expect(TestSupport.text(response.result) == expected)
    }

    @Test func immediateEncodedPendingFinishesOnceWithBytes() async {
        let query = "{ one { id later } }"
        guard case .pending(let execution) = engine.executeImmediatelyEncoded(engine.prepare(query), request: GraphQLRequest(query: query)) else {
            Issue.record("an async resolver must leave work pending")
            return
        }
        let response = await execution.finishEncoded()
        #expect(String(decoding: response.body(), as: UTF8.self) == #"{"data":{"one":{"id":"1","later":"L1"}}}"#)
        let again = await execution.finishEncoded()
        #expect(!again.hasData)
        #expect(String(decoding: again.body(), as: UTF8.self) == #"{"errors":[{"message":"This execution was already finished."}]}"#)
    }

    @Test func bytesStartedExecutionFinishesToATreeToo() async {
        let query = "{ list { id later maybe } }"
        guard case .pending(let execution) = engine.executeImmediatelyEncoded(engine.prepare(query), request: GraphQLRequest(query: query)) else {
            Issue.record("an async resolver must leave work pending")
            return
        }
        let tree = await execution.finish()
        let reference = await engine.execute(GraphQLRequest(query: query))
        #expect(tree == reference)
        #expect(tree.errors.count == 1)
    }

    @Test func treeStartedExecutionFinishesToBytesToo() async {
        let query = "{ list { id later } }"
        guard case .pending(let execution) = engine.executeImmediately(engine.prepare(query), request: GraphQLRequest(query: query)) else {
            Issue.record("an async resolver must leave work pending")
            return
        }
        let encoded = await execution.finishEncoded()
        let tree = await engine.execute(GraphQLRequest(query: query))
        #expect(encoded.body() == JSONWriter.write(tree.json))
    }

    @Test func preparedDocumentRunsToBytes() async {
        let query = "{ one { id later } }"
        let response = await engine.executeEncoded(engine.prepare(query), request: GraphQLRequest(query: query))
        #expect(String(decoding: response.body(), as: UTF8.self) == #"{"data":{"one":{"id":"1","later":"L1"}}}"#)
    }

    @Test func requestErrorsHaveNoData() async {
        let invalid = await engine.executeEncoded(GraphQLRequest(query: "{ nope }"))
        #expect(!invalid.hasData)
        #expect(invalid.data == nil)
        #expect(String(decoding: invalid.body(), as: UTF8.self).hasPrefix(#"{"errors":[{"message":"Cannot query field \"nope\" on type \"Query\"."#))
        let variables = await engine.executeEncoded(GraphQLRequest(query: "query ($b: Boolean!) { one @skip(if: $b) { id } }"))
        #expect(String(decoding: variables.body(), as: UTF8.self) == #"{"errors":[{"message":"Variable \"$b\" of required type \"Boolean!\" was not provided.","locations":[{"line":1,"column":8}]}]}"#)
    }

    @Test func errorsCanBeRewrittenByTheHost() async {
        let response = await engine.executeEncoded(GraphQLRequest(query: "{ list { id name } }"))
        let body = response.body { error in
            var json = error.jsonValue
            if case .object(var object) = json {
                object["extensions"] = .object(["code": "X"])
                json = .object(object)
            }
            return json
        }
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"errors":[{"message":"Cannot return null for non-nullable field Obj.name.","locations":[{"line":1,"column":13}],"path":["list",2,"name"],"extensions":{"code":"X"}}],"data":{"list":["#))
    }

    @Test func executeEncodedOnAParsedDocument() async throws {
        let document = try Parser.parse("{ one { id name } }")
        let response = await executeEncoded(schema: engine.schema, request: ExecutionRequest(document: document))
        #expect(String(decoding: response.body(), as: UTF8.self) == #"{"data":{"one":{"id":"1","name":"name 1"}}}"#)
    }

    @Test func stringsAndKeysAreEscapedAsTheWriterDoes() async throws {
        let schema = try GraphQLSchema(sdl: "type Query { text: String, n: Float, i: Int }", resolvers: {
            var resolvers = SchemaResolvers()
            resolvers.field("Query", "text", .sync { _ in "quote \" backslash \\ tab \t nl \n é \u{1}" })
            resolvers.field("Query", "n", .sync { _ in 1.5e300 })
            resolvers.field("Query", "i", .sync { _ in -2_147_483_648 })
            return resolvers
        }())
        let engine = GraphQLEngine(schema: schema)
        _ = await TestSupport.both(engine, GraphQLRequest(query: "{ text n i }"))
        let response = await engine.executeEncoded(GraphQLRequest(query: "{ text n i }"))
        #expect(String(decoding: response.body(), as: UTF8.self) == #"{"data":{"text":"quote \" backslash \\ tab \t nl \n é \u0001","n":1.5e+300,"i":-2147483648}}"#)
    }
}

/// Mutations through the bytes path: root fields one after the other, each
/// finished (with its pending parts) before the next starts.
@Suite struct EncodedMutationTests {
    @Test func mutationRootFieldsRunSeriallyAndWriteInOrder() async throws {
        let fixture = try SemanticsFixture()
        let engine = GraphQLEngine(schema: fixture.schema)
        let query = "mutation { second first again: second }"
        guard case .pending(let execution) = engine.executeImmediatelyEncoded(engine.prepare(query), request: GraphQLRequest(query: query)) else {
            Issue.record("mutations always run in a task")
            return
        }
        let response = await execution.finishEncoded()
        #expect(String(decoding: response.body(), as: UTF8.self) == #"{"data":{"second":2,"first":1,"again":2}}"#)
        #expect(fixture.recorder.events.withLock { $0 } == ["start second", "end second", "start first", "end first", "start second", "end second"])
    }
}

/// JSON values walked in place (raw views of their arrays): nested lists of
/// objects, long and escaped strings, a list of JSON values from a resolver,
/// and a resolver reading its JSON `source`.
@Suite struct JSONInPlaceTests {
    static let sdl = """
    type Query { grid: [[Cell!]] cells: [Cell] }
    type Cell { text: String! id: ID list: [String] again: Cell owner: String }
    """

    @Test func nestedListsLongAndEscapedStringsMatchTheTree() async throws {
        var resolvers = SchemaResolvers()
        let long = String(repeating: "long text ", count: 8)
        let data = try JSONParser.parse("""
        {"grid":[[{"text":"\(long)","id":"c1","list":["a","b \\"quoted\\"", "tab\\there"],"again":{"text":"é ünïcode \(long)"}}],[],null,[{"id":"c2"}]],
         "cells":[{"text":"x","id":"c3"},{"text":"y"}]}
        """)
        resolvers.field("Query", "grid", .sync { _ in data["grid"] })
        resolvers.field("Query", "cells", .sync { _ in data["cells"]?.arrayValue })
        resolvers.field("Cell", "owner", .sync { input in
            guard let source = input.source as? JSONValue else { return nil }
            return "owner of " + (source["id"]?.stringValue ?? "?")
        })
        let engine = GraphQLEngine(schema: try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers))
        let query = "{ grid { text id list again { text owner } owner } cells { text owner } }"
        let response = await TestSupport.both(engine, GraphQLRequest(query: query))
        let text = TestSupport.text(response)
        // c2 has no text (non-null): its list becomes null, reported at its path.
        #expect(text.contains(#""path":["grid",3,0,"text"]"#))
        #expect(text.contains(#"{"text":"\#(long)","id":"c1","list":["a","b \"quoted\"","tab\there"],"again":{"text":"é ünïcode \#(long)","owner":"owner of ?"},"owner":"owner of c1"}"#))
        #expect(text.contains(#""cells":[{"text":"x","owner":"owner of c3"},{"text":"y","owner":"owner of ?"}]"#))
    }
}
