import HTTPTestSupport
import HTTPServer
import Synchronization
import Testing

/// A handler answering every request with a new stream, kept for the test.
final class StreamingHandler: HTTPHandler {
    private let state = Mutex<(streams: [HTTPResponseStream], reasons: [HTTPResponseStream.CloseReason])>(([], []))
    let maxBufferedBytes: Int

    init(maxBufferedBytes: Int) { self.maxBufferedBytes = maxBufferedBytes }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let stream = HTTPResponseStream(maxBufferedBytes: maxBufferedBytes) { [self] reason in state.withLock { $0.reasons.append(reason) } }
        state.withLock { $0.streams.append(stream) }
        return .streaming(headers: ["content-type": "text/event-stream"], stream: stream)
    }

    var latest: HTTPResponseStream? { state.withLock { $0.streams.last } }
    var closeReasons: [HTTPResponseStream.CloseReason] { state.withLock { $0.reasons } }
}

/// Streamed responses (`HTTPResponseStream`) on a real server: written over time, bounded per
/// reader, ended once whatever ends them.
@Suite struct HTTPResponseStreamTests {
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func writesGoOutChunkedAndFinishEndsTheBody() async throws {
        let handler = StreamingHandler(maxBufferedBytes: 1 << 16)
        try await withServer(.init(port: 0, threads: 2), handler: handler) { server in
            let port = server.port
            let reading = Task { try await offPool { () throws -> RawResponse in
                let connection = try RawConnection(port: port)
                try connection.send("GET /events HTTP/1.1\r\nhost: x\r\n\r\n")
                return try connection.readResponse()
            } }
            #expect(try await Self.eventually { handler.latest != nil && server.openStreams == 1 })
            let stream = try #require(handler.latest)
            #expect(stream.write(Array("first ".utf8)) == .written)
            try await Task.sleep(for: .milliseconds(100))   // the connection suspends between writes
            #expect(stream.write(Array("second".utf8)) == .written)
            stream.finish()
            let response = try await reading.value
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.text == "first second")
            #expect(try await Self.eventually { handler.closeReasons == [.finished] && server.openStreams == 0 })
            #expect(stream.write(Array("late".utf8)) == .closed)
        }
    }

    @Test func aReaderThatDoesNotReadIsDroppedNotBuffered() async throws {
        let handler = StreamingHandler(maxBufferedBytes: 1 << 16)
        try await withServer(.init(port: 0, threads: 2), handler: handler) { server in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /events HTTP/1.1\r\nhost: x\r\n\r\n")   // and never reads
            #expect(try await Self.eventually { handler.latest != nil && server.openStreams == 1 })
            let stream = try #require(handler.latest)
            // The kernel's socket buffers take some megabytes; then the stream's 64 KiB fill up.
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 10)
            var result = HTTPResponseStream.WriteResult.written
            var writes = 0
            while result == .written, writes < 100_000 {
                result = stream.write(chunk)
                writes += 1
                if writes % 64 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(result == .overflow)
            #expect(stream.bufferedBytes <= 1 << 16)
            #expect(try await Self.eventually { handler.closeReasons == [.overflow] && server.openStreams == 0 })
            withExtendedLifetime(connection) {}
        }
    }

    @Test func aClientThatLeavesIsNoticedWithoutAWrite() async throws {
        let handler = StreamingHandler(maxBufferedBytes: 1 << 16)
        try await withServer(.init(port: 0, threads: 2), handler: handler) { server in
            var connection: RawConnection? = try RawConnection(port: server.port)
            try connection?.send("GET /events HTTP/1.1\r\nhost: x\r\n\r\n")
            #expect(try await Self.eventually { handler.latest != nil && server.openStreams == 1 })
            #expect(handler.latest?.write(Array("hello".utf8)) == .written)
            connection = nil   // closes the socket
            // The suspended connection is found by the hang-up watch (100 ms sweep), not by a write.
            #expect(try await Self.eventually { handler.closeReasons == [.clientGone] && server.openStreams == 0 })
            withExtendedLifetime(connection) {}
        }
    }

    @Test func shutdownEndsOpenStreams() async throws {
        let handler = StreamingHandler(maxBufferedBytes: 1 << 16)
        let server = try HTTPServer(configuration: .init(port: 0, threads: 2), handler: handler)
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /events HTTP/1.1\r\nhost: x\r\n\r\n")
        #expect(try await Self.eventually { handler.latest != nil && server.openStreams == 1 })
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .seconds(10))
        // Not held for the grace period by a stream that never ends by itself.
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(handler.closeReasons.count == 1)
        withExtendedLifetime(connection) {}
    }
}
