@testable import HTTPClient
import Testing

@Suite("HTTPClient lifecycle")
struct HTTPClientLifecycleTests {
    /// The I/O thread holds the loop until it exits, so a loop that is freed proves the thread ended.
    @Test func shutdownEndsTheThreadAndFreesTheLoop() async throws {
        weak var loop: CurlEventLoop?
        try await withServer(handler: echoHandler) { server, client in
            _ = try await client.execute(HTTPClientRequest(url: server.url("/a")))
            loop = client.loop
        }
        try await waitUntil { loop == nil }
    }

    @Test func droppingAClientWithoutShutdownStillStopsItsThread() async throws {
        let server = try LoopbackServer(handler: echoHandler)
        defer { server.stop() }
        weak var loop: CurlEventLoop?
        do {
            let client = try HTTPClient()
            _ = try await client.execute(HTTPClientRequest(url: server.url("/a")))
            loop = client.loop
            #expect(loop != nil)
        }
        try await waitUntil { loop == nil }
    }

    @Test func manyClientsComeAndGo() async throws {
        let server = try LoopbackServer(handler: echoHandler)
        defer { server.stop() }
        weak var last: CurlEventLoop?
        for index in 0..<50 {
            let client = try HTTPClient()
            let response = try await client.execute(HTTPClientRequest(url: server.url("/c\(index)")))
            #expect(response.status == 200)
            last = client.loop
            await client.shutdown()
        }
        try await waitUntil { last == nil }
        #expect(server.accepted == 50)
    }
}
