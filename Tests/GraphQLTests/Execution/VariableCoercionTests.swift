import GraphQL
import JSON
import Testing

/// Variable coercion (spec §6.1.2) against graphql-js's own responses, recorded in
/// Fixtures/execution/variable-cases.json by make-variable-cases.js.
@Suite struct VariableCoercionTests {
    @Test func responsesMatchGraphQLJS() async throws {
        let fixture = try SemanticsFixture()
        let cases = try #require(try TestSupport.json(TestSupport.fixture("execution/variable-cases.json")).arrayValue)
        #expect(cases.count >= 15)
        for testCase in cases {
            let query = try #require(testCase["query"]?.stringValue)
            let variables = try #require(testCase["variables"]?.objectValue)
            let expected = try #require(testCase["response"])
            let response = await TestSupport.run(fixture.schema, query, variables: variables)
            #expect(JSONWriter.string(response.json) == JSONWriter.string(expected), "variables: \(JSONWriter.string(.object(variables)))")
        }
    }

    @Test func cachedDocumentCoercesEachRequestsVariablesAfresh() async throws {
        // One engine with a document cache: the variable plan is made once per
        // operation and reused; every request's values, defaults and errors are its own.
        let fixture = try SemanticsFixture()
        let engine = GraphQLEngine(schema: fixture.schema, cacheCapacity: 10)
        let document = #"""
        query A($name: String = "dflt") { hello(name: $name) }
        query B($name: String!) { hello(name: $name) }
        """#
        func run(_ operation: String, _ variables: JSONObject) async -> String {
            JSONWriter.string(await TestSupport.both(engine, GraphQLRequest(query: document, operationName: operation, variables: variables)).json)
        }
        for _ in 0..<2 {
            let cases: [(String, JSONObject, String)] = [
                ("A", [:], #"{"data":{"hello":"hello dflt"}}"#),
                ("A", ["name": "x"], #"{"data":{"hello":"hello x"}}"#),
                ("B", ["name": "y"], #"{"data":{"hello":"hello y"}}"#),
                ("B", [:], #"{"errors":[{"message":"Variable \"$name\" of required type \"String!\" was not provided.","locations":[{"line":2,"column":9}]}]}"#),
                ("A", ["name": 3], #"{"errors":[{"message":"Variable \"$name\" got invalid value 3; String cannot represent a non string value: 3","locations":[{"line":1,"column":9}]}]}"#),
            ]
            for (operation, variables, expected) in cases {
                let text = await run(operation, variables)
                #expect(text == expected)
            }
        }
    }

    @Test func argumentLiteralsAreCoercedWithDefaults() async throws {
        let fixture = try SemanticsFixture()
        let text = TestSupport.text(await TestSupport.run(fixture.schema, #"{ echo(input: {text: "t", tags: "solo"}, list: 3, id: 7, color: GREEN) }"#))
        #expect(text == #"{"data":{"echo":"{\"input\":{\"text\":\"t\",\"times\":1,\"tags\":[\"solo\"]},\"list\":[3],\"id\":\"7\",\"color\":\"GREEN\"}"}}"#)
    }

    @Test func variableDefaultsApplyWhenAbsent() async throws {
        let fixture = try SemanticsFixture()
        let query = #"query ($name: String = "dflt") { hello(name: $name) }"#
        #expect(TestSupport.text(await TestSupport.run(fixture.schema, query)) == #"{"data":{"hello":"hello dflt"}}"#)
        #expect(TestSupport.text(await TestSupport.run(fixture.schema, query, variables: ["name": "given"])) == #"{"data":{"hello":"hello given"}}"#)
    }

    @Test func oneOfInputRequiresExactlyOneField() async throws {
        let schema = try GraphQLSchema(sdl: """
        type Query { find(by: By!): String }
        input By @oneOf { id: ID, email: String }
        """, resolvers: {
            var resolvers = SchemaResolvers()
            resolvers.field("Query", "find", .sync { input in JSONWriter.string(.object(input.arguments)) })
            return resolvers
        }())
        let query = "query ($by: By!) { find(by: $by) }"
        let ok = await TestSupport.run(schema, query, variables: ["by": .object(["id": "1"])])
        #expect(TestSupport.text(ok) == #"{"data":{"find":"{\"by\":{\"id\":\"1\"}}"}}"#)
        let two = await TestSupport.run(schema, query, variables: ["by": .object(["id": "1", "email": "a@b"])])
        #expect(two.errors.map(\.message) == [#"Variable "$by" got invalid value { id: "1", email: "a@b" }; Exactly one key must be specified for OneOf type "By"."#])
        let null = await TestSupport.run(schema, query, variables: ["by": .object(["id": nil])])
        #expect(null.errors.map(\.message) == [#"Variable "$by" got invalid value null at "by.id"; Field "id" must be non-null."#])
    }
}
