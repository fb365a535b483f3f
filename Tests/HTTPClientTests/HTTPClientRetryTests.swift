import Foundation
import HTTPClient
import Testing

@Suite("HTTPClient retries over loopback")
struct HTTPClientRetryTests {
    /// 503 for the first `failures` requests to a path, then 200.
    static func flaky(_ failures: Int, status: Int = 503, headers: [(String, String)] = []) -> LoopbackServer.Handler {
        { _, count in
            count < failures ? .respond(status: status, headers: headers, body: Array("busy".utf8)) : .respond(status: 200, body: Array("done".utf8))
        }
    }

    @Test func neverPolicyReturnsTheFirst503() async throws {
        try await withServer(handler: Self.flaky(1)) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/p")))
            #expect(response.status == 503)
            #expect(response.attempts == 1)
            #expect(server.requests("/p") == 1)
        }
    }

    @Test func idempotentPolicyRetries5xxUntilSuccess() async throws {
        try await withServer(handler: Self.flaky(2)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 4, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
            let response = try await client.execute(request)
            #expect(response.status == 200)
            #expect(response.bodyText == "done")
            #expect(response.attempts == 3)
            #expect(server.requests("/p") == 3)
        }
    }

    @Test func attemptsAreCappedAndTheLastResponseReturned() async throws {
        try await withServer(handler: Self.flaky(100, status: 502)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
            let response = try await client.execute(request)
            #expect(response.status == 502)
            #expect(response.attempts == 3)
            #expect(server.requests("/p") == 3)
        }
    }

    @Test func clientErrorsOtherThan429AreNotRetried() async throws {
        try await withServer(handler: Self.flaky(1, status: 409)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 3, baseDelay: .milliseconds(10))
            let response = try await client.execute(request)
            #expect(response.status == 409)
            #expect(server.requests("/p") == 1)
        }
    }

    @Test func backoffGrowsExponentially() async throws {
        try await withServer(handler: Self.flaky(3)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            // Waits are at least 100, 200 and 400 ms halved by the jitter: ≥ 350 ms in total.
            request.retry = .idempotent(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
            let start = ContinuousClock.now
            let response = try await client.execute(request)
            let elapsed = seconds(since: start)
            #expect(response.status == 200)
            // The upper bound only catches a runaway back-off (a loaded machine adds latency).
            #expect(elapsed >= 0.35 && elapsed < 10, "took \(elapsed) s")
        }
    }

    @Test func retryAfterOn429IsHonoured() async throws {
        try await withServer(handler: Self.flaky(1, status: 429, headers: [("Retry-After", "1")])) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .seconds(2))
            let start = ContinuousClock.now
            let response = try await client.execute(request)
            let elapsed = seconds(since: start)
            #expect(response.status == 200)
            #expect(response.attempts == 2)
            #expect(elapsed >= 0.95 && elapsed < 10, "took \(elapsed) s")
        }
    }

    @Test func retryAfterLongerThanMaxDelayReturnsThe429() async throws {
        try await withServer(handler: Self.flaky(1, status: 429, headers: [("Retry-After", "120")])) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .seconds(2))
            let start = ContinuousClock.now
            let response = try await client.execute(request)
            #expect(response.status == 429)
            #expect(response.attempts == 1)
            #expect(seconds(since: start) < 10) // not the 120 s asked for
        }
    }

    @Test func retriesStopBeforeTheDeadline() async throws {
        try await withServer(handler: Self.flaky(1000)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 1000, baseDelay: .milliseconds(100), maxDelay: .milliseconds(200))
            // 8 s: on a two-core machine loaded by parallel builds one loopback attempt has been
            // seen to take most of a 4 s deadline, leaving no room for a second.
            request.deadline = .now + .seconds(8)
            let start = ContinuousClock.now
            let response = try await client.execute(request)
            let elapsed = seconds(since: start)
            #expect(response.status == 503)
            #expect(response.attempts > 1 && response.attempts < 1000)
            // Without the deadline, 1000 attempts with waits of 100–200 ms would take minutes;
            // the bound leaves room for a loaded two-core machine running the whole suite.
            #expect(elapsed < 20, "took \(elapsed) s: past the deadline")
        }
    }

    @Test func transportFailuresAreRetriedOnlyWhenAllowed() async throws {
        let handler: LoopbackServer.Handler = { _, count in count == 0 ? .drop : .respond(status: 200, body: Array("ok".utf8)) }
        try await withServer(handler: handler) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/once"))) }
            #expect(error?.code == .transport)
            #expect(server.requests("/once") == 1)

            var request = HTTPClientRequest(url: server.url("/twice"))
            request.retry = .idempotent(maxAttempts: 2, baseDelay: .milliseconds(10))
            let response = try await client.execute(request)
            #expect(response.status == 200)
            #expect(response.attempts == 2)
        }
    }

    @Test func timeoutsAreRetriedWithinTheDeadline() async throws {
        let handler: LoopbackServer.Handler = { _, count in
            count == 0 ? .respond(status: 200, delay: .seconds(2)) : .respond(status: 200, body: Array("fast".utf8))
        }
        try await withServer(handler: handler) { server, client in
            var request = HTTPClientRequest(url: server.url("/t"), timeout: .milliseconds(200))
            request.retry = .idempotent(maxAttempts: 3, baseDelay: .milliseconds(10))
            request.deadline = .now + .seconds(10)
            let response = try await client.execute(request)
            #expect(response.bodyText == "fast")
            #expect(response.attempts == 2)
        }
    }

    @Test func cancellationDuringBackoffStopsRetrying() async throws {
        try await withServer(handler: Self.flaky(1000)) { server, client in
            var request = HTTPClientRequest(url: server.url("/p"))
            request.retry = .idempotent(maxAttempts: 5, baseDelay: .seconds(20), maxDelay: .seconds(20))
            let task = Task { try await client.execute(request) }
            try await waitUntil { server.requests("/p") == 1 }
            try await Task.sleep(for: .milliseconds(100)) // now in its 10–20 s back-off
            task.cancel()
            let start = ContinuousClock.now
            let error = await expectClientError { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(seconds(since: start) < 15) // not the 20 s back-off
            #expect(server.requests("/p") == 1)
        }
    }

    /// libcurl resends a request whose reused connection closed without an answer; a POST that
    /// may not be repeated goes on a fresh connection and fails instead (the server may have done
    /// the work: a resend would be a duplicate order).
    @Test func aWriteThatMayNotBeRepeatedIsNeverResentOnAClosedReusedConnection() async throws {
        let handler: LoopbackServer.Handler = { request, _ in
            request.path == "/write" ? .drop : .respond(status: 200, body: Array("ok".utf8))
        }
        try await withServer(handler: handler) { server, client in
            // A connection kept alive by a first request, that the write would otherwise reuse.
            let warm = try await client.execute(HTTPClientRequest(url: server.url("/warm")))
            #expect(warm.status == 200)
            // Without freshConnection libcurl sends the write twice: the dropped attempt and its own resend.
            _ = try? await client.execute(HTTPClientRequest(method: "POST", url: server.url("/write"), body: Array("{}".utf8)))
            #expect(server.requests("/write") == 2)
            var write = HTTPClientRequest(method: "POST", url: server.url("/write"), body: Array("{}".utf8))
            write.freshConnection = true
            await #expect(throws: HTTPClientError.self) { _ = try await client.execute(write) }
            #expect(server.requests("/write") == 3)
            let after = try await client.execute(HTTPClientRequest(url: server.url("/warm")))
            #expect(after.status == 200)
        }
    }
}
