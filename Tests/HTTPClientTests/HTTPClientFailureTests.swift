import Foundation
import HTTPClient
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("HTTPClient failures over loopback")
struct HTTPClientFailureTests {
    @Test func closedPortFailsPromptlyWithConnectFailed() async throws {
        // Bind a port, then close it: nothing listens there any more.
        let server = try LoopbackServer(accepting: false) { _, _ in .drop }
        let url = server.url("/")
        server.stop()
        let client = try HTTPClient()
        let start = ContinuousClock.now
        var request = HTTPClientRequest(url: url, timeout: .seconds(120))
        request.connectTimeout = .seconds(60)
        let error = await expectClientError { try await client.execute(request) }
        #expect(error?.code == .connectFailed)
        #expect(error?.requestWasNotSent == true)
        #expect(error?.message.contains("127.0.0.1") == true)
        #expect(seconds(since: start) < 15) // refused at once, not the 60 s connect timeout
        await client.shutdown()
    }

    @Test func connectTimeoutWhenTheListenerNeverCompletesHandshakes() async throws {
        // A listener that never accepts, with its accept queue filled: Linux drops further SYNs,
        // so the client's connect hangs until its connect timeout.
        let server = try LoopbackServer(backlog: 0, accepting: false) { _, _ in .drop }
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(server.port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(fd)
        }
        defer {
            for fd in fillers { close(fd) }
            server.stop()
        }
        try await Task.sleep(for: .milliseconds(50))
        let client = try HTTPClient()
        var request = HTTPClientRequest(url: server.url("/"), timeout: .seconds(20))
        request.connectTimeout = .milliseconds(300)
        let start = ContinuousClock.now
        let error = await expectClientError { try await client.execute(request) }
        let elapsed = seconds(since: start)
        #expect(error?.code == .connectTimeout)
        #expect(error?.requestWasNotSent == true)
        #expect(elapsed >= 0.25 && elapsed < 15, "took \(elapsed) s")
        await client.shutdown()
    }

    @Test func totalTimeoutAbortsASlowResponse() async throws {
        try await withServer(handler: { _, _ in .respond(status: 200, delay: .seconds(10)) }) { server, client in
            let start = ContinuousClock.now
            let error = await expectClientError {
                try await client.execute(HTTPClientRequest(url: server.url("/slow"), timeout: .milliseconds(300)))
            }
            let elapsed = seconds(since: start)
            #expect(error?.code == .timeout)
            #expect(error?.requestWasNotSent == false)
            #expect(elapsed >= 0.25 && elapsed < 15, "took \(elapsed) s")
        }
    }

    @Test func deadlineShortensTheAttemptTimeout() async throws {
        try await withServer(handler: { _, _ in .hang }) { server, client in
            var request = HTTPClientRequest(url: server.url("/hang"), timeout: .seconds(30))
            request.deadline = .now + .milliseconds(300)
            let start = ContinuousClock.now
            let error = await expectClientError { try await client.execute(request) }
            #expect(error?.code == .timeout)
            #expect(seconds(since: start) < 15) // not the 30 s timeout
        }
    }

    @Test(arguments: [true, false])
    func responseLargerThanTheLimitIsAborted(withContentLength: Bool) async throws {
        let configuration = HTTPClientConfiguration(maxResponseBytes: 1 << 20)
        let body = [UInt8](repeating: 0x61, count: 3 << 20)
        try await withServer(configuration: configuration, handler: { _, _ in
            .respond(status: 200, body: body, contentLength: withContentLength)
        }) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/huge"))) }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("1048576") == true)
        }
    }

    @Test func responseAtTheLimitIsAccepted() async throws {
        let configuration = HTTPClientConfiguration(maxResponseBytes: 1000)
        try await withServer(configuration: configuration, handler: { _, _ in
            .respond(status: 200, body: [UInt8](repeating: 1, count: 1000), contentLength: false)
        }) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/exact")))
            #expect(response.body.count == 1000)
        }
    }

    @Test func cancellingTheCallingTaskAbortsPromptly() async throws {
        try await withServer(handler: { _, _ in .hang }) { server, client in
            let task = Task { try await client.execute(HTTPClientRequest(url: server.url("/hang"), timeout: .seconds(30))) }
            // Cancel only once the request is in flight (the server has read it).
            try await waitUntil { server.requests("/hang") == 1 }
            let start = ContinuousClock.now
            task.cancel()
            let error = await expectClientError { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(seconds(since: start) < 15) // against a 30 s timeout
        }
    }

    @Test func cancelledBeforeStartingSendsNothing() async throws {
        try await withServer(handler: echoHandler) { server, client in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(HTTPClientRequest(url: server.url("/never-sent")))
            }
            let error = await expectClientError { try await task.value }
            #expect(error?.code == .cancelled)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.requests("/never-sent") == 0)
        }
    }

    @Test func droppedConnectionIsATransportError() async throws {
        try await withServer(handler: { _, _ in .drop }) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/drop"))) }
            #expect(error?.code == .transport)
            #expect(error?.curlCode == 52) // CURLE_GOT_NOTHING: "Empty reply from server"
        }
    }

    @Test func shutdownFailsInFlightAndLaterRequests() async throws {
        let server = try LoopbackServer { _, _ in .hang }
        defer { server.stop() }
        let client = try HTTPClient()
        let task = Task { try await client.execute(HTTPClientRequest(url: server.url("/hang"))) }
        try await Task.sleep(for: .milliseconds(200))
        await client.shutdown()
        let inFlight = await expectClientError { try await task.value }
        #expect(inFlight?.code == .shutdown)
        let later = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/hang"))) }
        #expect(later?.code == .shutdown)
        await client.shutdown() // a second call returns at once
    }

    @Test(arguments: [
        HTTPClientRequest(url: "ftp://127.0.0.1/file"),
        HTTPClientRequest(url: "not a url"),
        HTTPClientRequest(method: "GE T", url: "http://127.0.0.1:1/"),
        HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("X-Evil", "a\r\nInjected: yes")]),
        HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("Bad Name", "x")]),
        HTTPClientRequest(method: "HEAD", url: "http://127.0.0.1:1/", body: [1]),
    ])
    func invalidRequestsAreRejectedBeforeSending(request: HTTPClientRequest) async throws {
        let client = try HTTPClient()
        let error = await expectClientError { try await client.execute(request) }
        #expect(error?.code == .invalidRequest)
        await client.shutdown()
    }

    @Test func messagesDoNotCarryTheQueryString() async throws {
        let client = try HTTPClient()
        let server = try LoopbackServer(accepting: false) { _, _ in .drop }
        let url = server.url("/v1/orders?key_secret=s3cr3t")
        server.stop()
        let error = await expectClientError { try await client.execute(HTTPClientRequest(url: url)) }
        #expect(error?.message.contains("s3cr3t") == false)
        #expect(error?.message.contains("/v1/orders") == true)
        await client.shutdown()
    }
}
