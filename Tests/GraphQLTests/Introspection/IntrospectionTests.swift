import ChildProcess
import Foundation
import GraphQL
import JSON
import Testing

/// Introspection (spec §4): `__schema`, `__type`, `__typename`, and the
/// round trip through graphql-js's `buildClientSchema` + `printSchema`.
@Suite struct IntrospectionTests {
    let schema: GraphQLSchema

    init() throws {
        schema = try GraphQLSchema(sdl: try TestSupport.fixture("introspection/rich.graphql"))
    }

    func run(_ query: String) async -> String {
        TestSupport.text(await TestSupport.run(schema, query))
    }

    @Test func typeByNameWithKindsAndWrappers() async {
        let text = await run(#"{ __type(name: "Order") { kind name interfaces { name } fields { name type { kind name ofType { kind name ofType { kind name } } } } } }"#)
        #expect(text == #"{"data":{"__type":{"kind":"OBJECT","name":"Order","interfaces":[{"name":"Entity"},{"name":"Node"}],"fields":[{"name":"id","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"ID","ofType":null}}},{"name":"createdAt","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"DateTime","ofType":null}}},{"name":"status","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"ENUM","name":"OrderStatus","ofType":null}}},{"name":"lines","type":{"kind":"LIST","name":null,"ofType":{"kind":"LIST","name":null,"ofType":{"kind":"NON_NULL","name":null}}}},{"name":"customer","type":{"kind":"OBJECT","name":"Customer","ofType":null}}]}}}"#)
    }

    @Test func unknownTypeIsNull() async {
        #expect(await run(#"{ __type(name: "Nope") { name } __typename }"#) == #"{"data":{"__type":null,"__typename":"Root"}}"#)
    }

    @Test func deprecatedItemsOnlyWhenAsked() async {
        let text = await run(#"{ __type(name: "CacheScope") { a: enumValues { name } b: enumValues(includeDeprecated: true) { name isDeprecated deprecationReason } } }"#)
        #expect(text == #"{"data":{"__type":{"a":[{"name":"PUBLIC"},{"name":"PRIVATE"}],"b":[{"name":"PUBLIC","isDeprecated":false,"deprecationReason":null},{"name":"PRIVATE","isDeprecated":false,"deprecationReason":null},{"name":"NONE","isDeprecated":true,"deprecationReason":"Use PRIVATE with ttl 0."},{"name":"LEGACY","isDeprecated":true,"deprecationReason":"No longer supported"}]}}}"#)
    }

    @Test func possibleTypesOfInterfaceAndUnion() async {
        let text = await run(#"{ n: __type(name: "Node") { possibleTypes { name } } s: __type(name: "SearchResult") { possibleTypes { name } } }"#)
        #expect(text == #"{"data":{"n":{"possibleTypes":[{"name":"Order"},{"name":"Customer"}]},"s":{"possibleTypes":[{"name":"Order"},{"name":"Customer"}]}}}"#)
    }

    @Test func defaultValuesPrintedAsLiterals() async {
        let text = await run(#"{ __type(name: "Root") { fields { name args { name defaultValue } } } }"#)
        #expect(text.contains(#"{"name":"filter","defaultValue":"{status: [PAID], minimum: 100, text: \"a \\\"quoted\\\"\\n line\"}"}"#))
        #expect(text.contains(#"{"name":"money","args":[{"name":"amount","defaultValue":"1.5"},{"name":"exact","defaultValue":"2"},{"name":"id","defaultValue":"42"},{"name":"name","defaultValue":"\"abc\""}]}"#))
    }

    @Test func schemaDescriptionRootsAndOneOf() async {
        let text = await run(#"{ __schema { description queryType { name } mutationType { name } subscriptionType { name } } __type(name: "LookupBy") { isOneOf } }"#)
        #expect(text == #"{"data":{"__schema":{"description":"The rich schema of the introspection round trip: every type-system feature\nthat introspection carries.","queryType":{"name":"Root"},"mutationType":{"name":"Changes"},"subscriptionType":null},"__type":{"isOneOf":true}}}"#)
    }

    /// The differential check: graphql-js rebuilds our introspection answer into a
    /// schema that prints exactly as graphql-js prints the SDL itself.
    @Test func graphQLJSRebuildsTheSameSchema() async throws {
        let query = try TestSupport.fixture("introspection/introspection-query.graphql")
        let response = await TestSupport.run(schema, query)
        #expect(response.errors.isEmpty)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("GraphQLDifferential/introspection/compare.js").path
        let sdl = root.appendingPathComponent("GraphQLTests/Fixtures/introspection/rich.graphql").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("payql-introspection-\(UInt32.random(in: 0...UInt32.max)).json")
        try JSONWriter.string(response.json).write(to: output, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try ChildProcess.run("/usr/bin/env", ["node", script, sdl, output.path], mergeErrors: true)
        #expect(run.status == 0, "\(run.outputText)")
    }

    @Test(arguments: [
        ("introspection/rich.graphql", "introspection/rich.printed.graphql"),
        ("execution/schema.graphql", "introspection/workload.printed.graphql"),
        ("execution/semantics.graphql", "introspection/semantics.printed.graphql"),
    ])
    func ourPrinterMatchesGraphQLJSPrintSchema(sdl: String, printed: String) throws {
        let schema = try GraphQLSchema(sdl: try TestSupport.fixture(sdl))
        #expect(printSchema(schema) + "\n" == (try TestSupport.fixture(printed)))
    }
}
