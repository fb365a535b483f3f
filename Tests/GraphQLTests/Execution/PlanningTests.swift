import GraphQL
import JSON
import Testing

/// Planning through the schema's field catalog: fields whose names begin with an
/// underscore next to the meta fields, aliased and unaliased keys of one field,
/// unions with more possible types than the small-scan limit, fragments named
/// twice (the first wins) and fragment-only selections shared between types.
@Suite struct PlanningTests {
    static let memberCount = 20

    static var sdl: String {
        let members = (0..<memberCount).map { "M\($0)" }
        let types = members.map { "type \($0) { _id: ID! n: Int }" }.joined(separator: "\n")
        return """
        type Query { thing: Thing _secret: String many: [Big!]! }
        type Thing { _id: ID! name: String tags: [String!] }
        union Big = \(members.joined(separator: " | "))
        \(types)
        """
    }

    let schema: GraphQLSchema

    init() throws {
        schema = try GraphQLSchema(sdl: Self.sdl, resolvers: SchemaResolvers())
    }

    func run(_ query: String, root: String) async throws -> String {
        let rootValue = try JSONParser.parse(root)
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 0)
        return JSONWriter.string(await TestSupport.both(engine, GraphQLRequest(query: query), rootValue: rootValue).json)
    }

    @Test func underscoreFieldsAndMetaFieldsAreFoundOnEveryType() async throws {
        let text = try await run(
            "{ _secret __typename t: __typename thing { _id __typename name n: name kind: __typename } }",
            root: #"{"_secret":"s","thing":{"_id":"1","name":"x"}}"#)
        #expect(text == #"{"data":{"_secret":"s","__typename":"Query","t":"Query","thing":{"_id":"1","__typename":"Thing","name":"x","n":"x","kind":"Thing"}}}"#)
    }

    @Test func introspectionMetaFieldsOnlyOnTheQueryType() async throws {
        let text = try await run(#"{ __type(name: "Thing") { name } thing { _id } }"#, root: #"{"thing":{"_id":"1"}}"#)
        #expect(text == #"{"data":{"__type":{"name":"Thing"},"thing":{"_id":"1"}}}"#)
    }

    @Test func unionsWithManyMembersPickTheirSelectionByName() async throws {
        let items = (0..<Self.memberCount).reversed().map { #"{"__typename":"M\#($0)","_id":"\#($0)","n":\#($0)}"# }
        let query = "{ many { __typename ... on M0 { _id } ... on M19 { n } ... on M7 { _id n } } }"
        let text = try await run(query, root: #"{"many":[\#(items.joined(separator: ","))]}"#)
        #expect(text.hasPrefix(#"{"data":{"many":[{"__typename":"M19","n":19},{"__typename":"M18"},"#))
        #expect(text.contains(#"{"__typename":"M7","_id":"7","n":7}"#))
        #expect(text.hasSuffix(#"{"__typename":"M0","_id":"0"}]}}"#))
    }

    @Test func fragmentOnlySelectionsAreSharedPerTypeAndTheFirstDefinitionWins() async throws {
        // Validation would reject the duplicate fragment; execution alone takes the first.
        let document = try Parser.parse("""
            { thing { ...A } other: thing { ...A } again: thing { ...A ...B } }
            fragment A on Thing { _id }
            fragment B on Thing { name }
            fragment A on Thing { name }
            """)
        let rootValue = try JSONParser.parse(#"{"thing":{"_id":"1","name":"x"}}"#)
        let result = await execute(schema: schema, request: ExecutionRequest(document: document, rootValue: rootValue))
        #expect(JSONWriter.string(result.json) == #"{"data":{"thing":{"_id":"1"},"other":{"_id":"1"},"again":{"_id":"1","name":"x"}}}"#)
    }
}
