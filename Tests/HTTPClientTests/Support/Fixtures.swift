import Foundation
import HTTPClient
import Testing

/// Runs `body` with a fresh loopback server and client; both are stopped afterwards.
func withServer<T>(
    configuration: HTTPClientConfiguration = .init(),
    handler: @escaping LoopbackServer.Handler,
    _ body: (LoopbackServer, HTTPClient) async throws -> T
) async throws -> T {
    let server = try LoopbackServer(handler: handler)
    let client = try HTTPClient(configuration: configuration)
    do {
        let result = try await body(server, client)
        await client.shutdown()
        server.stop()
        return result
    } catch {
        await client.shutdown()
        server.stop()
        throw error
    }
}

/// Expects `body` to throw an ``HTTPClientError`` and returns it.
func expectClientError(
    _ body: () async throws -> HTTPClientResponse,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> HTTPClientError? {
    do {
        let response = try await body()
        Issue.record("expected an HTTPClientError, got status \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch let error as HTTPClientError {
        return error
    } catch {
        Issue.record("expected an HTTPClientError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = start.duration(to: .now)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Open file descriptors of this process.
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// A server handler answering 200 with the request echoed: body as sent, method and
/// selected request headers as response headers.
let echoHandler: LoopbackServer.Handler = { request, _ in
    var headers: [(String, String)] = [("X-Method", request.method), ("X-Path", request.path)]
    headers.append(("X-Content-Type", request.header("Content-Type") ?? "(none)"))
    if let test = request.header("X-Test") { headers.append(("X-Echo-Test", test)) }
    if let agent = request.header("User-Agent") { headers.append(("X-Echo-Agent", agent)) }
    return .respond(status: 200, headers: headers, body: request.body)
}

/// Polls `condition` every 10 ms; records an issue if it is still false after `limit`.
func waitUntil(
    _ limit: Duration = .seconds(5),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    let end = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < end else {
            Issue.record("condition still false after \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs blocking work (process start-up, waiting for a child) on a thread of
/// its own, so it never occupies one of the few threads of Swift's
/// cooperative pool (two on a two-core machine) while other tests run.
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.start()
    }
}
