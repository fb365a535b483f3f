import GraphQL
import JSON
import Testing

/// The benchmark workload must produce graphql-js's response exactly (keys and order)
/// before its speed means anything.
@Suite struct WorkloadTests {
    @Test func benchmarkQueryMatchesGraphQLJSResponse() async throws {
        let schema = try WorkloadSchema.make(
            sdl: try TestSupport.fixture("execution/schema.graphql"),
            data: try TestSupport.json(TestSupport.fixture("execution/data.json"))
        )
        let variables = try #require(try TestSupport.json(TestSupport.fixture("execution/variables.json")).objectValue)
        let response = await TestSupport.run(schema, try TestSupport.fixture("execution/query.graphql"), variables: variables)
        let expected = try TestSupport.json(TestSupport.fixture("execution/expected_result.json"))
        #expect(response.errors.isEmpty)
        #expect(response.json == expected)
        #expect(JSONWriter.string(response.json) == JSONWriter.string(expected))
    }

    @Test func cachedEngineGivesTheSameResponseTwice() async throws {
        let schema = try WorkloadSchema.make(
            sdl: try TestSupport.fixture("execution/schema.graphql"),
            data: try TestSupport.json(TestSupport.fixture("execution/data.json"))
        )
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 8)
        let variables = try #require(try TestSupport.json(TestSupport.fixture("execution/variables.json")).objectValue)
        let request = GraphQLRequest(query: try TestSupport.fixture("execution/query.graphql"), variables: variables)
        let first = await engine.execute(request)
        let second = await engine.execute(request)
        #expect(first == second)
        #expect(engine.cache?.statistics.hits == 1)
        #expect(engine.cache?.statistics.misses == 1)
    }
}
