import GraphQL
import JSON
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

    // MARK: Bounded by bytes (issue 14: 1,000 large documents grew the server by 965 MB)

    @Test func boundedByEstimatedBytesWhateverTheEntryCount() {
        let maxBytes = 1 << 20
        let cache = DocumentCache(capacity: 10_000, maxBytes: maxBytes)
        let filler = String(repeating: "x", count: 100_000)
        for index in 0..<200 {
            let text = "{ a\(index) } # \(filler)"
            _ = cache.document(for: text) { prepared("\(index)") }
            #expect(cache.bytes <= maxBytes)
        }
        // 100 kB documents in a 1 MiB cache: about ten are kept, not 200.
        #expect(cache.count >= 8 && cache.count <= 10)
        #expect(cache.bytes > maxBytes / 2)
        // The newest is kept, the oldest gone.
        var missed: [Int] = []
        for index in [199, 0] {
            let text = "{ a\(index) } # \(filler)"
            _ = cache.document(for: text) { missed.append(index); return prepared("\(index)") }
        }
        #expect(missed == [0])
    }

    @Test func documentLargerThanTheBoundIsPreparedButNotKept() {
        let cache = DocumentCache(capacity: 10, maxBytes: 10_000)
        _ = cache.document(for: "{ small }") { prepared("small") }
        let large = String(repeating: " ", count: 20_000) + "{ large }"
        var calls = 0
        for _ in 0..<2 { _ = cache.document(for: large) { calls += 1; return prepared("large") } }
        #expect(calls == 2)
        #expect(cache.tooLargeToCache == 2)
        #expect(cache.count == 1)
        #expect(cache.document(for: "{ small }") { prepared("miss") }.errors.first?.message == "small")
    }

    @Test func estimateGrowsWithTokensAndText() throws {
        let small = try Parser.parse("{ a }")
        let large = try Parser.parse("{ " + (0..<1000).map { "f\($0)" }.joined(separator: " ") + " }")
        #expect(small.tokenCount == 3)
        #expect(large.tokenCount == 1002)
        let smallBytes = DocumentCache.estimatedBytes(text: "{ a }", prepared: PreparedDocument(document: small, errors: []))
        let largeBytes = DocumentCache.estimatedBytes(text: "{ a }", prepared: PreparedDocument(document: large, errors: []))
        #expect(largeBytes - smallBytes >= 999 * DocumentCache.bytesPerToken)
    }

    /// Each `@include` combination of a cached document is one more plan: plans are
    /// charged to the cache's bytes, and once the bound is reached they are used, not kept.
    @Test func plansAreChargedToTheCacheBound() async throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Int b: Int c: Int d: Int e: Int f: Int }")
        let variables = ["a", "b", "c", "d", "e", "f"]
        let query = "query(" + variables.map { "$\($0): Boolean!" }.joined(separator: ", ") + ") { "
            + variables.map { "\($0) @include(if: $\($0))" }.joined(separator: " ") + " }"
        let document = try Parser.parse(query)
        let documentBytes = DocumentCache.estimatedBytes(text: query, prepared: PreparedDocument(document: document, errors: []))
        let perPlan = document.tokenCount * DocumentCache.bytesPerPlanToken + DocumentCache.bytesPerPlan
        let maxBytes = documentBytes + 5 * perPlan
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 10, cacheMaxBytes: maxBytes)
        let cache = try #require(engine.cache)
        for combination in 0..<64 {
            var values = JSONObject()
            for (bit, name) in variables.enumerated() { values[name] = .bool(combination & (1 << bit) != 0) }
            let response = await engine.execute(GraphQLRequest(query: query, variables: values))
            #expect(response.errors.isEmpty)
            #expect(response.data?.objectValue?.count == combination.nonzeroBitCount)
            #expect(cache.bytes <= maxBytes)
        }
        #expect(cache.bytes == documentBytes + 5 * perPlan)
        // A new document needs room: the old one and its plans go, all their bytes with them.
        _ = engine.prepare(query + " ")
        #expect(cache.count == 1)
        #expect(cache.bytes == documentBytes + 1)
    }
}
