import GraphQL
import JSON
import Testing

/// SDL validation rules and type-system validation, against the messages graphql-js
/// reports for the same SDL (Fixtures/type/schema-cases.json, made by make-schema-cases.js).
@Suite struct SchemaValidationTests {
    @Test func messagesMatchGraphQLJS() throws {
        let cases = try #require(try TestSupport.json(TestSupport.fixture("type/schema-cases.json")).arrayValue)
        #expect(cases.count >= 30)
        for testCase in cases {
            let sdl = try #require(testCase["sdl"]?.stringValue)
            let expected = (testCase["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
            var actual: [String] = []
            do {
                _ = try GraphQLSchema(sdl: sdl)
            } catch {
                actual = error.errors.map(\.message)
            }
            #expect(actual == expected, "SDL: \(sdl)")
        }
    }

    @Test func validateSchemaOnProgrammaticSchema() {
        let schema = GraphQLSchema(
            types: [
                .object(GraphQLObjectType(name: "Query", fields: [GraphQLFieldDefinition(name: "pick", type: .named("Pick"))])),
                .inputObject(GraphQLInputObjectType(name: "Pick", fields: [
                    GraphQLInputValueDefinition(name: "a", type: .nonNull(.named("Int"))),
                    GraphQLInputValueDefinition(name: "b", type: .named("Int"), defaultValue: .int(1)),
                ], isOneOf: true)),
            ],
            query: "Query"
        )
        #expect(validateSchema(schema).map(\.message) == [
            "The type of Query.pick must be Output Type but got: Pick.",
            "OneOf input field Pick.a must be nullable.",
            "OneOf input field Pick.b cannot have a default value.",
        ])
    }

    @Test func sdlErrorsCarryLocations() {
        do {
            _ = try GraphQLSchema(sdl: "type Query { a: Int }\ntype Query { b: Int }")
            Issue.record("expected an error")
        } catch {
            #expect(error.errors.first?.locations.map(\.description) == ["1:6", "2:6"])
        }
    }
}
