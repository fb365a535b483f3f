import Foundation
import Glibc
import HTTPServer
import HTTPTestSupport
import Synchronization
import Testing

/// `HTTPServerConfiguration.eventLoops`: the server's daemons run on loops it is given
/// (one daemon each, sharing the port) instead of threads of its own.
@Suite struct HTTPServerEventLoopTests {
    /// A poll loop on a thread of its own serving what is attached to it, the way the
    /// PostgreSQL pool's I/O threads do (`PostgresPool.attachToIOThread`). It sleeps until a
    /// descriptor is readable, a service's delay has passed or it is woken (a service attached,
    /// a run requested, stop): a resumed connection is answered only if the server asks.
    final class TestLoop: Sendable {
        /// A service and whether it is detached; the lock is held while it runs.
        final class Service: Sendable {
            let descriptor: Int32
            let body: @Sendable () -> Int32
            let detached = Mutex<Bool>(false)
            let requested = Atomic<Bool>(false)
            init(descriptor: Int32, body: @escaping @Sendable () -> Int32) {
                self.descriptor = descriptor
                self.body = body
            }
        }

        private let services = Mutex<[Service]>([])
        private let stopped = Atomic<Bool>(false)
        /// The wake-up pipe (read end, write end).
        private let wakeRead: Int32
        private let wakeWrite: Int32
        /// The loop thread's id, once it runs.
        let threadID = Atomic<UInt>(0)
        /// How many times a service ran.
        let runs = Atomic<Int>(0)
        /// How many of those runs were asked for (`Attachment.requestRun`).
        let requestedRuns = Atomic<Int>(0)

        init() {
            var ends: [Int32] = [0, 0]
            precondition(pipe(&ends) == 0)
            wakeRead = ends[0]
            wakeWrite = ends[1]
            _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
            let thread = Thread { [self] in run() }
            thread.start()
        }

        var eventLoop: HTTPServerEventLoop {
            HTTPServerEventLoop { [self] descriptor, body in
                let service = Service(descriptor: descriptor, body: body)
                services.withLock { $0.append(service) }
                wake()
                return HTTPServerEventLoop.Attachment(
                    detach: {
                        service.detached.withLock { $0 = true }
                        self.services.withLock { $0.removeAll { $0 === service } }
                    },
                    requestRun: {
                        service.requested.store(true, ordering: .relaxed)
                        self.wake()
                    })
            }
        }

        /// Whether the caller runs on the loop thread.
        var isCurrent: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

        func stop() {
            stopped.store(true, ordering: .relaxed)
            wake()
        }

        private func wake() {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }

        private func run() {
            threadID.store(UInt(pthread_self()), ordering: .relaxed)
            var deadlines: [ObjectIdentifier: ContinuousClock.Instant] = [:]
            while !stopped.load(ordering: .relaxed) {
                let current = services.withLock { $0 }
                var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                fds += current.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
                var timeout: Int32 = -1
                for service in current {
                    guard let deadline = deadlines[ObjectIdentifier(service)] else { timeout = 0; continue }
                    let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                    let milliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
                    timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
                }
                _ = poll(&fds, nfds_t(fds.count), timeout)
                if fds[0].revents != 0 {
                    var buffer = [UInt8](repeating: 0, count: 64)
                    while read(wakeRead, &buffer, buffer.count) > 0 {}
                }
                let now = ContinuousClock.now
                for (index, service) in current.enumerated() {
                    let due = deadlines[ObjectIdentifier(service)].map { $0 <= now } ?? true
                    let requested = service.requested.exchange(false, ordering: .relaxed)
                    guard fds[index + 1].revents != 0 || due || requested else { continue }
                    let delay: Int32? = service.detached.withLock { detached in
                        guard !detached else { return nil }  // the loop only saw it in its old snapshot
                        runs.add(1, ordering: .relaxed)
                        if requested { requestedRuns.add(1, ordering: .relaxed) }
                        return service.body()
                    }
                    guard let delay else { continue }
                    if delay >= 0 {
                        deadlines[ObjectIdentifier(service)] = .now + .milliseconds(Int64(delay))
                    } else {
                        deadlines[ObjectIdentifier(service)] = .now + .seconds(3600)
                    }
                }
            }
        }
    }

    @Test func requestsAreServedOnTheLoopsThreads() async throws {
        let loops = [TestLoop(), TestLoop()]
        defer { loops.forEach { $0.stop() } }
        let handler = ClosureHandler(immediate: { _ in
            .text(loops.contains { $0.isCurrent } ? "on a loop" : "elsewhere")
        })
        try await withServer(.init(eventLoops: loops.map(\.eventLoop)), handler: handler) { server in
            // Several connections (the kernel spreads them over the two daemons) and
            // several requests on one kept-alive connection.
            for _ in 0..<6 {
                let response = try await request(port: server.port, "GET", "/")
                #expect(response.status == 200)
                #expect(response.text == "on a loop")
            }
            let texts = try await offPool {
                let connection = try RawConnection(port: server.port)
                return try (0..<5).map { _ in try connection.exchange("GET", "/").text }
            }
            #expect(texts == Array(repeating: "on a loop", count: 5))
        }
        #expect(loops.allSatisfy { $0.runs.load(ordering: .relaxed) > 0 })
    }

    @Test func aHandlerThatWaitsIsAnsweredWhenItFinishes() async throws {
        let loop = TestLoop()
        defer { loop.stop() }
        let handler = ClosureHandler { request in
            // A real suspension: the connection is suspended, then resumed from the sleeping task's thread.
            try? await Task.sleep(for: .milliseconds(20))
            return .text("waited for \(request.path)")
        }
        try await withServer(.init(eventLoops: [loop.eventLoop]), handler: handler) { server in
            async let first = request(port: server.port, "GET", "/a")
            async let second = request(port: server.port, "GET", "/b")
            let (a, b) = try await (first, second)
            #expect(a.text == "waited for /a")
            #expect(b.text == "waited for /b")
            let counts = server.dispatchCounts
            #expect(counts.suspended >= 2)
        }
    }

    /// A connection resumed by a handler finishing elsewhere asks its daemon's loop for a run
    /// (libmicrohttpd's external daemon has no inter-thread channel): the loop here sleeps
    /// until woken, and the daemon's own timeout is the idle timeout (10 minutes), so without
    /// the request the answer would not come before the client's 30 s timeout.
    @Test func aResumedConnectionAsksItsLoopForARun() async throws {
        let loop = TestLoop()
        defer { loop.stop() }
        let handler = ClosureHandler { request in
            try? await Task.sleep(for: .milliseconds(20))
            return .text("resumed \(request.path)")
        }
        var configuration = HTTPServerConfiguration(eventLoops: [loop.eventLoop])
        configuration.limits.idleTimeout = .seconds(600)
        configuration.limits.requestDeadline = .seconds(600)
        try await withServer(configuration, handler: handler) { server in
            let texts = try await offPool {
                let connection = try RawConnection(port: server.port, timeout: 30)
                return try (0..<3).map { index in try connection.exchange("GET", "/\(index)").text }
            }
            #expect(texts == ["resumed /0", "resumed /1", "resumed /2"])
            #expect(server.dispatchCounts.suspended >= 3)
        }
        #expect(loop.requestedRuns.load(ordering: .relaxed) >= 3)
    }

    @Test func aPortSomethingListensOnIsRefusedThoughTheLoopsShareTheirs() async throws {
        let loops = [TestLoop(), TestLoop()]
        defer { loops.forEach { $0.stop() } }
        let handler = ClosureHandler(immediate: { _ in .text("first") })
        try await withServer(.init(eventLoops: loops.map(\.eventLoop)), handler: handler) { server in
            // Another server with loops would share the port through SO_REUSEPORT: refused, as
            // one with threads of its own is.
            let other = TestLoop()
            defer { other.stop() }
            #expect(throws: HTTPServerError.self) {
                try HTTPServer(configuration: .init(port: server.port, eventLoops: [other.eventLoop]), handler: handler)
            }
            #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: .init(port: server.port), handler: handler) }
            for _ in 0..<4 {
                let response = try await request(port: server.port, "GET", "/")
                #expect(response.text == "first")
            }
        }
    }

    @Test func shutdownAnswersTheRequestInFlightAndStopsServingTheLoop() async throws {
        let loop = TestLoop()
        defer { loop.stop() }
        let started = Atomic<Bool>(false)
        let handler = ClosureHandler { _ in
            started.store(true, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(300))
            return .text("finished")
        }
        let server = try HTTPServer(configuration: .init(eventLoops: [loop.eventLoop]), handler: handler)
        let port = server.port
        let inFlight = Task { try await request(port: port, "GET", "/slow") }
        // Generous: the machine may be busy.
        let deadline = ContinuousClock.now + .seconds(20)
        while !started.load(ordering: .relaxed), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        await server.shutdown(gracePeriod: .seconds(10))
        let response = try await inFlight.value
        #expect(response.text == "finished")
        #expect(response.headers["connection"] == "close")
        // Stopped: the loop no longer runs the daemon, and no new connection is served.
        let runs = loop.runs.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(50))
        #expect(loop.runs.load(ordering: .relaxed) == runs)
        await #expect(throws: (any Error).self) { try await request(port: port, "GET", "/") }
    }
}
