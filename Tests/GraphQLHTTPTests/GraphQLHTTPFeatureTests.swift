import HTTPTestSupport
import GraphQLHTTP
import Metrics
import HTTPServer
import JSON
import Testing

@Suite struct GraphQLHTTPFeatureTests {
    static let typenameHash = PersistedQueryStore.hash("{ __typename }")

    @Test func automaticPersistedQueries() async throws {
        try await withGraphQLServer { server in
            let query = "{ hello(name: \"apq\") }"
            let hash = PersistedQueryStore.hash(query)
            let persisted: JSONValue = ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]
            let miss = try await server.post(json: ["extensions": persisted])
            #expect(miss.status == 200)
            #expect(miss.firstErrorCode == "PERSISTED_QUERY_NOT_FOUND")
            #expect(miss.json["errors"]?.arrayValue?.first?["message"] == "PersistedQueryNotFound")
            let missModern = try await server.post(json: ["extensions": persisted], accept: "application/graphql-response+json")
            #expect(missModern.status == 400)
            let register = try await server.post(json: ["query": .string(query), "extensions": persisted])
            #expect(register.json["data"]?["hello"] == "Hello, apq!")
            let hit = try await server.post(json: ["extensions": persisted])
            #expect(hit.json["data"]?["hello"] == "Hello, apq!")
            let viaGet = try await server.get([("extensions", JSONWriter.string(persisted))])
            #expect(viaGet.json["data"]?["hello"] == "Hello, apq!")
            let wrong = try await server.post(json: ["query": "{ __typename }", "extensions": persisted])
            #expect(wrong.status == 400)
            #expect(wrong.json["errors"]?.arrayValue?.first?["message"] == "provided sha does not match query")
            let badShape = try await server.post(json: ["extensions": ["persistedQuery": ["version": 2, "sha256Hash": "xyz"]]])
            #expect(badShape.status == 400)
        }
    }

    @Test func persistedQueriesDisabled() async throws {
        try await withGraphQLServer(GraphQLHTTPConfiguration(persistedQueries: .disabled)) { server in
            let response = try await server.post(json: [
                "extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(Self.typenameHash)]],
            ])
            #expect(response.firstErrorCode == "PERSISTED_QUERY_NOT_SUPPORTED")
            #expect(try await server.post(json: ["query": "{ __typename }"]).json["data"] == ["__typename": "Query"])
        }
    }

    @Test func allowListRunsOnlyRegisteredDocuments() async throws {
        try await withGraphQLServer(GraphQLHTTPConfiguration(persistedQueries: .allowList)) { server in
            let hash = server.handler.persistedQueries.register("{ __typename }")
            #expect(hash == Self.typenameHash)
            let byHash = try await server.post(json: ["extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]])
            #expect(byHash.json["data"] == ["__typename": "Query"])
            let byText = try await server.post(json: ["query": "{ __typename }"])
            #expect(byText.json["data"] == ["__typename": "Query"])
            let other = try await server.post(json: ["query": "{ hello }"])
            #expect(other.firstErrorCode == "OPERATION_NOT_ALLOWLISTED")
            #expect(other.json["data"] == nil)
            let otherModern = try await server.post(json: ["query": "{ hello }"], accept: "application/graphql-response+json")
            #expect(otherModern.status == 400)
            let unknownHash = PersistedQueryStore.hash("{ hello }")
            let sneaky = try await server.post(json: [
                "query": "{ hello }", "extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(unknownHash)]],
            ])
            #expect(sneaky.firstErrorCode == "OPERATION_NOT_ALLOWLISTED")
        }
    }

    @Test func operationLimitsNameTheLimit() async throws {
        let limits = OperationLimits(maxDepth: 3, maxAliases: 2, maxRootFields: 3, maxCost: 60, defaultListSize: 10)
        try await withGraphQLServer(GraphQLHTTPConfiguration(operationLimits: limits)) { server in
            let deep = try await server.post(json: ["query": "{ orders(first: 1) { items { sku } } order(id: \"ord_1\") { id } }"])
            #expect(deep.json["errors"] == nil)
            let tooDeep = try await server.post(json: ["query": "query Deep { ...F } fragment F on Query { orders(first: 1) { items { sku } } __type(name: \"Order\") { name } order(id: \"x\") { items { sku } } }"])
            #expect(tooDeep.json["errors"] == nil)
            let depth4 = try await server.post(json: ["query": "{ __schema { types { fields { name } } } }"])
            #expect(depth4.firstErrorCode == "MAX_DEPTH_EXCEEDED")
            #expect(depth4.json["errors"]?.arrayValue?.first?["extensions"]?["limit"] == "maxDepth")
            let aliases = try await server.post(json: ["query": "{ a: hello b: hello c: hello }"])
            #expect(aliases.firstErrorCode == "MAX_ALIASES_EXCEEDED")
            #expect(aliases.json["errors"]?.arrayValue?.first?["extensions"]?["actual"] == 3)
            let roots = try await server.post(json: ["query": "{ hello __typename ... on Query { a: hello } order(id: \"1\") { id } }"])
            #expect(roots.firstErrorCode == "MAX_ROOT_FIELDS_EXCEEDED")
            // orders: 1 + 10 × (1 + 10 × 1 (items) ...) — lists multiply.
            let costly = try await server.post(json: ["query": "{ orders { id items { sku } } }"])
            #expect(costly.firstErrorCode == "MAX_COST_EXCEEDED")
            #expect(costly.json["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains("maxCost = 60") == true)
            let sized = try await server.post(json: ["query": "query ($n: Int) { orders(first: $n) { id items { sku } } }", "variables": ["n": 2]])
            #expect(sized.json["errors"] == nil)
            // Same document, bigger variable: the measure is not reused across variables.
            let resized = try await server.post(json: ["query": "query ($n: Int) { orders(first: $n) { id items { sku } } }", "variables": ["n": 50]])
            #expect(resized.firstErrorCode == "MAX_COST_EXCEEDED")
            // A cached measure still refuses the second time.
            let again = try await server.post(json: ["query": "{ a: hello b: hello c: hello }"])
            #expect(again.firstErrorCode == "MAX_ALIASES_EXCEEDED")
            let modern = try await server.post(json: ["query": "{ a: hello b: hello c: hello }"], accept: "application/graphql-response+json")
            #expect(modern.status == 400)
        }
    }

    @Test func introspectionSwitchRefusesSchemaButKeepsType() async throws {
        try await withGraphQLServer(GraphQLHTTPConfiguration(introspection: false)) { server in
            let schema = try await server.post(json: ["query": "{ __schema { queryType { name } } }"])
            #expect(schema.firstErrorCode == "INTROSPECTION_DISABLED")
            #expect(schema.json["data"] == nil)
            let hidden = try await server.post(json: ["query": "query { ...F } fragment F on Query { __schema { types { name } } }"])
            #expect(hidden.firstErrorCode == "INTROSPECTION_DISABLED")
            let type = try await server.post(json: ["query": "{ __type(name: \"Order\") { name } }"])
            #expect(type.json["data"]?["__type"]?["name"] == "Order")
        }
        try await withGraphQLServer { server in
            let schema = try await server.post(json: ["query": "{ __schema { queryType { name } } }"])
            #expect(schema.json["data"]?["__schema"]?["queryType"]?["name"] == "Query")
        }
    }

    @Test func operationsEndpoints() async throws {
        let ready = ReadinessCheck(name: "always") { nil }
        try await withGraphQLServer(readiness: [ready]) { server in
            let health = try await server.get([], path: "/healthz")
            #expect(health.status == 200 && health.json["status"] == "ok")
            let readiness = try await server.get([], path: "/readyz")
            #expect(readiness.status == 200 && readiness.json["checks"]?["always"] == "ok")
            let sdl = try await server.get([], path: "/schema.graphql")
            #expect(sdl.status == 200 && sdl.text == ExampleSchema.sdl)
            let missing = try await server.get([], path: "/nope")
            #expect(missing.status == 404)
            _ = try await server.post(json: ["query": "query Hi { hello }"])
            _ = try await server.post(json: ["query": "query Hi { hello }"])
            _ = try await server.post(json: ["query": "{ nope }"])
            let metrics = try await server.get([], path: "/metrics")
            #expect(metrics.status == 200 && metrics.contentType.hasPrefix("text/plain"))
            let text = metrics.text
            #expect(text.contains(#"payql_graphql_requests_total{operation="Hi",outcome="ok"} 2"#))
            #expect(text.contains(#"payql_graphql_requests_total{operation="anonymous",outcome="request_error"} 1"#))
            #expect(text.contains(#"payql_graphql_request_duration_seconds_count{operation="Hi",outcome="ok"} 2"#))
            #expect(text.contains("payql_graphql_document_cache_hits_total 1"))
            #expect(text.contains("payql_graphql_document_cache_misses_total 2"))
            #expect(text.contains("payql_graphql_requests_in_flight"))
        }
        let failing = ReadinessCheck(name: "postgres") { "connection refused" }
        try await withGraphQLServer(readiness: [ready, failing]) { server in
            let readiness = try await server.get([], path: "/readyz")
            #expect(readiness.status == 503)
            #expect(readiness.json["checks"]?["postgres"] == "connection refused")
        }
    }

    @Test func requestLogCarriesOperationNameNotBody() async throws {
        let logger = CapturingLogger()
        try await withGraphQLServer(logger: logger) { server in
            _ = try await server.post(json: ["query": "query SecretLookup($k: String) { hello(name: $k) }", "variables": ["k": "sk_live_123"]])
        }
        let record = try #require(logger.all.first { $0.path == "/graphql" })
        #expect(record.fields.contains { $0.name == "operation" && $0.value == "SecretLookup" })
        let line = String(decoding: JSONLineLogger.format(record), as: UTF8.self)
        #expect(line.contains("\"operation\":\"SecretLookup\""))
        #expect(!line.contains("sk_live_123"))
        #expect(line.contains("\"request_id\":"))
    }
}

/// Where requests execute: on the server thread when nothing waits, in a task otherwise.
@Suite struct GraphQLHTTPDispatchTests {
    @Test func synchronousQueriesNeedNoTask() async throws {
        try await withGraphQLServer { server in
            for _ in 0..<4 {
                let response = try await server.post(json: ["query": "{ hello orders(first: 2) { id items { sku } } }"])
                #expect(response.status == 200)
                #expect(response.json["data"]?["orders"]?.arrayValue?.count == 2)
            }
            #expect(server.server.dispatchCounts.tasks == 0)
            #expect(server.server.dispatchCounts.inline == 4)
        }
    }

    @Test func asyncResolversAndMutationsContinueInATask() async throws {
        try await withGraphQLServer { server in
            let slow = try await server.post(json: ["query": "{ hello slow(milliseconds: 20) }"])
            #expect(slow.json["data"]?["slow"] == "waited 20 ms")
            #expect(slow.json["data"]?["hello"] == "Hello, world!")
            let created = try await server.post(json: ["query": "mutation { createOrder(amountMinor: 4200) { id amountMinor } }"])
            #expect(created.json["data"]?["createOrder"]?["amountMinor"] == 4200)
            let listed = try await server.post(json: ["query": "{ orders(first: 10) { id } }"])
            #expect(listed.json["data"]?["orders"]?.arrayValue?.count == 4)
            #expect(server.server.dispatchCounts.tasks == 2)
            #expect(server.server.dispatchCounts.suspended >= 1)
        }
    }

    @Test func asyncContextProviderRunsEveryRequestInATaskAndCanRefuse() async throws {
        let provider = GraphQLContextProvider.async { (request: HTTPRequest) async throws(GraphQLHTTPError) -> any Sendable in
            try? await Task.sleep(for: .milliseconds(1))
            guard request.headers["authorization"] == "Bearer good" else {
                throw GraphQLHTTPError(status: 401, code: "UNAUTHENTICATED", message: "A valid API key is required.")
            }
            return JSONValue.string("caller")
        }
        try await withGraphQLServer(context: provider) { server in
            let refused = try await server.post(json: ["query": "{ hello }"])
            #expect(refused.status == 401)
            #expect(refused.firstErrorCode == "UNAUTHENTICATED")
            let allowed = try await server.post(json: ["query": "{ hello }"], headers: [("authorization", "Bearer good")])
            #expect(allowed.json["data"]?["hello"] == "Hello, world!")
            #expect(server.server.dispatchCounts.tasks == 2)
        }
    }

    @Test func immediateContextProviderCanRefuseWithoutATask() async throws {
        let provider = GraphQLContextProvider.immediate { (request: HTTPRequest) throws(GraphQLHTTPError) -> any Sendable in
            guard request.headers["authorization"] != nil else {
                throw GraphQLHTTPError(status: 401, code: "UNAUTHENTICATED", message: "A valid API key is required.")
            }
            return JSONValue.null
        }
        try await withGraphQLServer(context: provider) { server in
            let refused = try await server.post(json: ["query": "{ hello }"])
            #expect(refused.status == 401)
            #expect(refused.firstErrorCode == "UNAUTHENTICATED")
            #expect(server.server.dispatchCounts.tasks == 0)
        }
    }
}

@Suite struct GraphQLHTTPPartsTests {
    @Test func negotiation() {
        #expect(GraphQLMediaType.negotiate(accept: nil) == .json)
        #expect(GraphQLMediaType.negotiate(accept: "") == .json)
        #expect(GraphQLMediaType.negotiate(accept: "application/*") == .json)
        #expect(GraphQLMediaType.negotiate(accept: "application/graphql-response+json, application/json") == .graphQLResponseJSON)
        #expect(GraphQLMediaType.negotiate(accept: "application/json, application/graphql-response+json") == .graphQLResponseJSON)
        #expect(GraphQLMediaType.negotiate(accept: "text/html, application/json;q=0.1") == .json)
        #expect(GraphQLMediaType.negotiate(accept: "image/png") == nil)
    }

    @Test func metricsFoldExcessLabelSets() {
        let registry = MetricsRegistry(maxSeriesPerMetric: 2)
        let counter = registry.counter("c_total", help: "h", labels: ["op"])
        for name in ["a", "b", "c", "d"] { counter.increment([name]) }
        let text = registry.render()
        #expect(text.contains(#"c_total{op="a"} 1"#))
        #expect(text.contains(#"c_total{op="__other__"} 2"#))
        #expect(!text.contains(#"op="d""#))
        let histogram = registry.histogram("h_seconds", help: "h", buckets: [0.1, 1])
        histogram.observe(0.05)
        histogram.observe(0.5)
        histogram.observe(5)
        let rendered = registry.render()
        #expect(rendered.contains(#"h_seconds_bucket{le="0.1"} 1"#))
        #expect(rendered.contains(#"h_seconds_bucket{le="1"} 2"#))
        #expect(rendered.contains(#"h_seconds_bucket{le="+Inf"} 3"#))
        #expect(rendered.contains("h_seconds_count 3"))
    }

    @Test func histogramAddsUpObservationsFromManyThreadsAndFoldsExcessLabelSets() async {
        let registry = MetricsRegistry(maxSeriesPerMetric: 3)
        let histogram = registry.histogram("t_seconds", help: "h", labels: ["op"], buckets: [0.1, 1])
        // Eight tasks on the cooperative pool's threads (so on several shards), six label values.
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<1000 { histogram.observe(index % 2 == 0 ? 0.05 : 0.5, ["op\((task + index) % 6)"]) }
                }
            }
        }
        let counts = histogram.counts()
        #expect(counts.reduce(0) { $0 + $1.count } == 8000)
        // Three label sets kept (whichever came first), the rest under __other__.
        #expect(counts.count == 4 && counts.contains { $0.labels == ["__other__"] })
        #expect(counts.filter { $0.labels != ["__other__"] }.allSatisfy { $0.count > 0 })
        let text = registry.render()
        #expect(text.contains(#"t_seconds_bucket{op="__other__",le="+Inf"} "#))
        let perSet = counts.map(\.count).reduce(0, +)
        let fromText = text.split(separator: "\n").filter { $0.hasPrefix("t_seconds_count") }
            .compactMap { $0.split(separator: " ").last.flatMap { UInt64($0) } }.reduce(0, +)
        #expect(fromText == perSet)
        let halfBelow = text.split(separator: "\n").filter { $0.hasPrefix("t_seconds_bucket") && $0.contains(#"le="0.1""#) }
            .compactMap { $0.split(separator: " ").last.flatMap { UInt64($0) } }.reduce(0, +)
        #expect(halfBelow == 4000)
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.counter("x_total", help: "h", labels: ["op"]).increment(["a\"b\\c\nd"])
        #expect(registry.render().contains(#"x_total{op="a\"b\\c\nd"} 1"#))
    }
}
