import HTTPTestSupport
import GraphQL
import GraphQLHTTP
import JSON
import Testing

/// Issue 14, "Memory that a client can grow without bound": persisted queries
/// and the document cache are bounded by bytes, and APQ keeps only documents
/// that parsed, validated and passed the limits.
@Suite struct BoundedCacheTests {
    static func apq(_ text: String) -> JSONValue {
        ["query": .string(text), "extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(PersistedQueryStore.hash(text))]]]
    }

    static func hashOnly(_ text: String) -> JSONValue {
        ["extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(PersistedQueryStore.hash(text))]]]
    }

    @Test func apqStoresOnlyDocumentsThatValidate() async throws {
        try await withGraphQLServer { server in
            let store = server.handler.persistedQueries
            for text in ["{ hello ", "{ nope }", "{ hello(name: 1) }", "query A { hello } query A { hello }"] {
                let response = try await server.post(json: Self.apq(text))
                #expect(response.json["errors"] != nil, "\(text)")
                let again = try await server.post(json: Self.hashOnly(text))
                #expect(again.firstErrorCode == "PERSISTED_QUERY_NOT_FOUND", "\(text)")
            }
            let deep = "{ orders { items { sku } } }"
            #expect(store.count.automatic == 0)
            #expect(store.bytes.automatic == 0)
            let valid = try await server.post(json: Self.apq(deep))
            #expect(valid.json["data"]?["orders"] != nil)
            #expect(store.count.automatic == 1)
            #expect(try await server.post(json: Self.hashOnly(deep)).json["data"]?["orders"] != nil)
        }
    }

    @Test func apqOverTheOperationLimitsIsNotKept() async throws {
        var configuration = GraphQLHTTPConfiguration(schemaSDL: ExampleSchema.sdl)
        configuration.operationLimits.maxDepth = 1
        try await withGraphQLServer(configuration) { server in
            let deep = "{ orders { items { sku } } }"
            let response = try await server.post(json: Self.apq(deep))
            #expect(response.firstErrorCode == "MAX_DEPTH_EXCEEDED")
            #expect(server.handler.persistedQueries.count.automatic == 0)
        }
    }

    @Test func apqIsBoundedByBytes() {
        let store = PersistedQueryStore(mode: .automatic, capacity: 10_000, maxBytes: 100_000)
        let filler = String(repeating: " ", count: 10_000)
        for index in 0..<100 {
            let text = "{ hello }#\(index)" + filler
            store.store(.init(hash: PersistedQueryStore.hash(text), text: text))
            #expect(store.bytes.automatic <= 100_000)
        }
        #expect(store.count.automatic == 9)
        // Oldest first out: the last nine are kept.
        let newest = "{ hello }#99" + filler
        let oldest = "{ hello }#0" + filler
        #expect(store.document(forHash: PersistedQueryStore.hash(newest)) == newest)
        #expect(store.document(forHash: PersistedQueryStore.hash(oldest)) == nil)
        // A text larger than the whole bound is never kept.
        let huge = String(repeating: "#", count: 200_000)
        store.store(.init(hash: PersistedQueryStore.hash(huge), text: huge))
        #expect(store.document(forHash: PersistedQueryStore.hash(huge)) == nil)
        #expect(store.count.automatic == 9)
        // The entry count bounds too.
        let few = PersistedQueryStore(mode: .automatic, capacity: 3)
        for index in 0..<10 {
            let text = "{ a\(index) }"
            few.store(.init(hash: PersistedQueryStore.hash(text), text: text))
        }
        #expect(few.count.automatic == 3)
        #expect(few.bytes.automatic == 3 * ("{ a0 }".utf8.count + 64 + PersistedQueryStore.entryOverhead))
    }

    /// Many large unique documents (whitespace-padded, valid, sent with APQ hashes):
    /// the gauges show both caches holding no more than their configured bytes.
    @Test func floodOfLargeDocumentsStaysWithinTheConfiguredBytes() async throws {
        let configuration = GraphQLHTTPConfiguration(
            persistedQueryMaxBytes: 300_000, documentCacheMaxBytes: 400_000, schemaSDL: ExampleSchema.sdl)
        try await withGraphQLServer(configuration) { server in
            let filler = String(repeating: " ", count: 50_000)
            for index in 0..<40 {
                let valid = "{ hello }#\(index)" + filler
                #expect(try await server.post(json: Self.apq(valid)).json["data"]?["hello"] == "Hello, world!")
                let garbage = "{ hello \(index) ((( " + filler
                #expect(try await server.post(json: Self.apq(garbage)).firstErrorCode == "GRAPHQL_PARSE_FAILED")
            }
            let metrics = try await request(port: server.port, "GET", "/metrics").text
            func gauge(_ line: String) -> Int? {
                metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
            }
            let documentBytes = try #require(gauge("payql_graphql_document_cache_bytes"))
            let documentEntries = try #require(gauge("payql_graphql_document_cache_entries"))
            let apqBytes = try #require(gauge(#"payql_graphql_persisted_queries_bytes{kind="automatic"}"#))
            let apqEntries = try #require(gauge(#"payql_graphql_persisted_queries_entries{kind="automatic"}"#))
            #expect(gauge("payql_graphql_document_cache_max_bytes") == 400_000)
            #expect(gauge("payql_graphql_persisted_queries_max_bytes") == 300_000)
            #expect(documentBytes <= 400_000 && documentBytes > 200_000)
            #expect(documentEntries >= 4 && documentEntries <= 8)
            #expect(apqBytes <= 300_000 && apqBytes > 200_000)
            #expect(apqEntries == 5)
            #expect(server.handler.engine.cache?.bytes == documentBytes)
        }
    }
}
