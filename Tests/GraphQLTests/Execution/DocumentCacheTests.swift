import GraphQL
import Testing

/// The bounded document cache: hits, misses, CLOCK eviction, full-text comparison.
@Suite struct DocumentCacheTests {
    func prepared(_ tag: String) -> PreparedDocument {
        PreparedDocument(document: nil, errors: [GraphQLError(tag)])
    }

    @Test func hitReturnsTheSamePreparedDocument() {
        let cache = DocumentCache(capacity: 4)
        var calls = 0
        let first = cache.document(for: "{ a }") { calls += 1; return prepared("a") }
        let second = cache.document(for: "{ a }") { calls += 1; return prepared("again") }
        #expect(first === second)
        #expect(calls == 1)
        #expect(cache.statistics.hits == 1)
        #expect(cache.statistics.misses == 1)
    }

    @Test func boundedWithSecondChanceEviction() {
        let cache = DocumentCache(capacity: 3)
        for text in ["{ a }", "{ b }", "{ c }"] { _ = cache.document(for: text) { prepared(text) } }
        _ = cache.document(for: "{ a }") { prepared("miss") }          // a is referenced now
        _ = cache.document(for: "{ d }") { prepared("{ d }") }         // evicts b (first unreferenced)
        #expect(cache.count == 3)
        var missed: [String] = []
        for text in ["{ a }", "{ c }", "{ d }"] {
            _ = cache.document(for: text) { missed.append(text); return prepared(text) }
        }
        #expect(missed.isEmpty)
        _ = cache.document(for: "{ b }") { missed.append("{ b }"); return prepared("{ b }") }
        #expect(missed == ["{ b }"])
    }

    @Test func differentTextsNeverShareAnEntry() {
        let cache = DocumentCache(capacity: 100)
        for index in 0..<100 {
            let text = "{ field\(index) }"
            let result = cache.document(for: text) { prepared(text) }
            #expect(result.errors.first?.message == text)
        }
        for index in 0..<100 {
            let text = "{ field\(index) }"
            #expect(cache.document(for: text) { prepared("miss") }.errors.first?.message == text)
        }
    }

    @Test func engineCachesErrorsToo() async throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Int }")
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 2)
        let bad = await engine.execute(GraphQLRequest(query: "{ nope }"))
        let again = await engine.execute(GraphQLRequest(query: "{ nope }"))
        #expect(bad.errors.map(\.message) == ["Cannot query field \"nope\" on type \"Query\"."])
        #expect(again == bad)
        #expect(engine.cache?.statistics.hits == 1)
    }
}
