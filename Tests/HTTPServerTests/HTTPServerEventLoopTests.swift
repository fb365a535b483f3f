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
    /// PostgreSQL pool's I/O threads do (`PostgresPool.attachToIOThread`).
    final class TestLoop: Sendable {
        /// A service and whether it is detached; the lock is held while it runs.
        final class Service: Sendable {
            let descriptor: Int32
            let body: @Sendable () -> Int32
            let detached = Mutex<Bool>(false)
            init(descriptor: Int32, body: @escaping @Sendable () -> Int32) {
                self.descriptor = descriptor
                self.body = body
            }
        }

        private let services = Mutex<[Service]>([])
        private let stopped = Atomic<Bool>(false)
        /// The loop thread's id, once it runs.
        let threadID = Atomic<UInt>(0)
        /// How many times a service ran.
        let runs = Atomic<Int>(0)

        init() {
            let thread = Thread { [self] in run() }
            thread.start()
        }

        var eventLoop: HTTPServerEventLoop {
            HTTPServerEventLoop { [self] descriptor, body in
                let service = Service(descriptor: descriptor, body: body)
                services.withLock { $0.append(service) }
                return {
                    service.detached.withLock { $0 = true }
                    self.services.withLock { $0.removeAll { $0 === service } }
                }
            }
        }

        /// Whether the caller runs on the loop thread.
        var isCurrent: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

        func stop() { stopped.store(true, ordering: .relaxed) }

        private func run() {
            threadID.store(UInt(pthread_self()), ordering: .relaxed)
            var deadlines: [ObjectIdentifier: ContinuousClock.Instant] = [:]
            while !stopped.load(ordering: .relaxed) {
                let current = services.withLock { $0 }
                var fds = current.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
                // Short polls: a service attached meanwhile is picked up within 10 ms.
                var timeout: Int32 = 10
                for service in current {
                    if let deadline = deadlines[ObjectIdentifier(service)] {
                        let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                        timeout = min(timeout, Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
                    }
                }
                _ = poll(&fds, nfds_t(fds.count), timeout)
                let now = ContinuousClock.now
                for (index, service) in current.enumerated() {
                    let due = deadlines[ObjectIdentifier(service)].map { $0 <= now } ?? true
                    guard fds[index].revents != 0 || due else { continue }
                    let delay: Int32? = service.detached.withLock { detached in
                        guard !detached else { return nil }  // the loop only saw it in its old snapshot
                        runs.add(1, ordering: .relaxed)
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
