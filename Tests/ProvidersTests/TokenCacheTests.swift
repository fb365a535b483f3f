import Synchronization
import Testing
@testable import Providers
import PaymentsCore

/// The token cache actor on its own: expiry-driven refresh, single flight, failures not cached.
@Suite struct TokenCacheTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
    }

    @Test func refreshesBeforeExpiryNotOnEveryCall() async throws {
        let counter = Counter()
        // A 16 s token with a 300 s margin: usable for half its life, 8 s (room for a loaded machine: the
        // first two calls once took over 3 s at load 20).
        let cache = BearerTokenCache(refreshMargin: .seconds(300)) { () async throws(ProviderError) in
            ("token-\(counter.next())", 16)
        }
        #expect(try await cache.token().revealed == "token-1")
        #expect(try await cache.token().revealed == "token-1")
        try await Task.sleep(for: .milliseconds(8_500))
        #expect(try await cache.token().revealed == "token-2")
        #expect(await cache.fetchCount == 2)
        // A long-lived token is refreshed `margin` early: 36000 s − 300 s is still far away.
        let long = BearerTokenCache(refreshMargin: .seconds(300)) { () async throws(ProviderError) in ("long-\(counter.next())", 36_000) }
        let first = try await long.token()
        #expect(try await long.token() == first)
    }

    @Test func anAbsurdLifetimeIsTrustedForADayAtMost() async throws {
        for claimed in [Int.max, 10 * 365 * 86_400] {
            let cache = BearerTokenCache { () async throws(ProviderError) in ("forever", claimed) }
            _ = try await cache.token()
            let refreshAt = try #require(await cache.refreshAt)
            #expect(refreshAt <= ContinuousClock.now + .seconds(BearerTokenCache.maxLifetimeSeconds))
            #expect(refreshAt > ContinuousClock.now + .seconds(BearerTokenCache.maxLifetimeSeconds - 3_600))
        }
        // A negative lifetime is an expired token: fetched again on the next call.
        let counter = Counter()
        let negative = BearerTokenCache { () async throws(ProviderError) in ("neg-\(counter.next())", -5) }
        #expect(try await negative.token().revealed == "neg-1")
        #expect(try await negative.token().revealed == "neg-2")
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let counter = Counter()
        let cache = BearerTokenCache { () async throws(ProviderError) in
            try? await Task.sleep(for: .milliseconds(100))
            return ("shared-\(counter.next())", 600)
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try await cache.token().revealed } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens) == ["shared-1"])
        #expect(await cache.fetchCount == 1)
    }

    @Test func failuresAreNotCachedAndInvalidationForcesAFetch() async throws {
        let counter = Counter()
        let cache = BearerTokenCache { () async throws(ProviderError) in
            let n = counter.next()
            if n == 1 { throw ProviderError(.network, provider: .instamojo, operation: "fetchToken", message: "down") }
            return ("ok-\(n)", 600)
        }
        await #expect(throws: ProviderError.self) { _ = try await cache.token() }
        let token = try await cache.token()
        #expect(token.revealed == "ok-2")
        await cache.invalidate(Secret("some-older-token"))
        #expect(try await cache.token() == token)
        await cache.invalidate(token)
        #expect(try await cache.token().revealed == "ok-3")
    }
}
