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

/// Plans are cached per document and per value of the `@skip`/`@include` variables:
/// a cached document must still honour each request's own variables.
@Suite struct PlanCacheTests {
    @Test func cachedPlansFollowEachRequestsConditionsAndArguments() async throws {
        let schema = try WorkloadSchema.make(
            sdl: try TestSupport.fixture("execution/schema.graphql"),
            data: try TestSupport.json(TestSupport.fixture("execution/data.json"))
        )
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 8)
        let query = """
        query ($id: ID!, $lines: Boolean!, $first: Int) {
          order(id: $id) { id lineItems(first: 1) @include(if: $lines) { sku } payments(first: $first) { id } }
        }
        """
        func run(_ lines: Bool, _ first: Int64) async -> String {
            TestSupport.text(await TestSupport.both(engine, GraphQLRequest(query: query, variables: ["id": "ord_1001", "lines": .bool(lines), "first": .int(first)])))
        }
        let withLines = await run(true, 1)
        let without = await run(false, 2)
        let withAgain = await run(true, 0)
        #expect(withLines == #"{"data":{"order":{"id":"ord_1001","lineItems":[{"sku":"SKU-001"}],"payments":[{"id":"pay_1"}]}}}"#)
        #expect(without == #"{"data":{"order":{"id":"ord_1001","payments":[{"id":"pay_1"},{"id":"pay_2"}]}}}"#)
        #expect(withAgain == #"{"data":{"order":{"id":"ord_1001","lineItems":[{"sku":"SKU-001"}],"payments":[]}}}"#)
        #expect(engine.cache?.statistics.misses == 1)
    }
}

/// One engine shared by many concurrent requests (document cache and plan cache under contention).
@Suite struct ConcurrentRequestsTests {
    @Test func concurrentRequestsAllGetTheExpectedResponse() async throws {
        let schema = try WorkloadSchema.make(
            sdl: try TestSupport.fixture("execution/schema.graphql"),
            data: try TestSupport.json(TestSupport.fixture("execution/data.json"))
        )
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 4)
        let variables = try #require(try TestSupport.json(TestSupport.fixture("execution/variables.json")).objectValue)
        let expected = try TestSupport.json(TestSupport.fixture("execution/expected_result.json"))
        let query = try TestSupport.fixture("execution/query.graphql")
        let matches = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    // A few distinct texts too, so entries are evicted while others read.
                    let text = index % 8 == 0 ? query + "\n# \(index)" : query
                    let request = GraphQLRequest(query: text, variables: variables)
                    let tree = await engine.execute(request).json == expected
                    let bytes = await engine.executeEncoded(request).body() == JSONWriter.write(expected)
                    return tree && bytes
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(matches == 64)
        #expect((engine.cache?.count ?? 0) <= 4)
    }
}
