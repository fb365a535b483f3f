import HTTPTestSupport
import HTTPServer
import JSON
import Synchronization
import Testing

/// Hostile clients on loopback (issue 14): slow heads, full slots, request
/// smuggling, the header limit's boundary.
@Suite struct HTTPServerHardeningTests {
    // MARK: Slots and the request-head deadline

    /// A byte every 200 ms keeps the idle timer happy; the head deadline still ends it.
    @Test func tricklingHeadIsCutOffAtTheHeadDeadline() async throws {
        let config = HTTPServerConfiguration(limits: .init(idleTimeout: .seconds(30), requestHeadDeadline: .seconds(1)))
        try await withServer(config, handler: ClosureHandler(immediate: echo)) { server in
            let start = ContinuousClock.now
            let result = try await offPool {
                let connection = try RawConnection(port: server.port, timeout: 15)
                for byte in "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8 {
                    do { try connection.send([byte]) } catch { break }
                    usleepMilliseconds(200)
                }
                return try connection.waitForClose()
            }
            #expect(result.closed && result.received.isEmpty)
            #expect(ContinuousClock.now - start < .seconds(8))
            #expect(try await request(port: server.port, "GET", "/after").status == 200)
        }
    }

    /// A connection that sends nothing, and a kept-alive one that goes quiet, are
    /// closed at the head deadline, well before the idle timeout.
    @Test func silentConnectionsAreClosedAtTheHeadDeadline() async throws {
        let config = HTTPServerConfiguration(limits: .init(idleTimeout: .seconds(30), requestHeadDeadline: .seconds(1)))
        try await withServer(config, handler: ClosureHandler(immediate: echo)) { server in
            let start = ContinuousClock.now
            let (silent, keptAlive) = try await offPool { () -> (Bool, Bool) in
                let silent = try RawConnection(port: server.port, timeout: 15)
                let keptAlive = try RawConnection(port: server.port, timeout: 15)
                // Requests inside the deadline keep working on the kept-alive connection.
                for index in 0..<3 {
                    guard try keptAlive.exchange("GET", "/\(index)").status == 200 else { return (false, false) }
                    usleepMilliseconds(300)
                }
                return (try silent.waitForClose().closed, try keptAlive.waitForClose().closed)
            }
            #expect(silent && keptAlive)
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    /// The client's FIN in the middle of a head closes the connection at once, not
    /// at a timeout (libmicrohttpd's behaviour, pinned here).
    @Test func halfClosedConnectionIsDroppedAtOnce() async throws {
        let config = HTTPServerConfiguration(limits: .init(idleTimeout: .seconds(30), requestHeadDeadline: .seconds(30)))
        try await withServer(config, handler: ClosureHandler(immediate: echo)) { server in
            let start = ContinuousClock.now
            let closed = try await offPool { () -> Bool in
                let connection = try RawConnection(port: server.port, timeout: 20)
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n")
                connection.shutdownWrite()
                return try connection.waitForClose().closed
            }
            #expect(closed)
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    /// With every slot held by connections that never finish a head, a health check
    /// still gets in: it replaces the one that has waited longest.
    @Test func healthCheckGetsInWhileSlowClientsHoldEverySlot() async throws {
        let config = HTTPServerConfiguration(
            threads: 1, limits: .init(maxConnections: 4, idleTimeout: .seconds(60), requestHeadDeadline: .seconds(60)))
        try await withServer(config, handler: ClosureHandler(immediate: echo)) { server in
            let outcome = try await offPool { () -> (status: Int, oldestClosed: Bool) in
                var slow: [RawConnection] = []
                for _ in 0..<8 {
                    let connection = try RawConnection(port: server.port, timeout: 10)
                    try connection.send("GET / HTTP/1.1\r\nHost: x\r\n")
                    slow.append(connection)
                    usleepMilliseconds(20)
                }
                let health = try RawConnection(port: server.port, timeout: 10).exchange("GET", "/healthz").status
                return (health, try slow[0].waitForClose().closed)
            }
            #expect(outcome.status == 200)
            #expect(outcome.oldestClosed)
        }
    }

    /// Requests in progress keep their slots: with all of them busy a newcomer is
    /// turned away, and every busy request still gets its answer.
    @Test func busyConnectionsKeepTheirSlots() async throws {
        let gate = Gate()
        let entered = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            entered.add(1, ordering: .relaxed)
            await gate.wait()
            return echo(request)
        }
        let config = HTTPServerConfiguration(threads: 1, limits: .init(maxConnections: 2))
        try await withServer(config, handler: handler) { server in
            let outcome = try await offPool { () -> (turnedAway: Bool, busy: [Int], after: Int) in
                let busy = try (0..<2).map { index in
                    let connection = try RawConnection(port: server.port, timeout: 10)
                    try connection.send("GET /busy\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                    return connection
                }
                // Until both are in their handler, the newcomer could still replace one.
                var waited = 0
                while entered.load(ordering: .relaxed) < 2, waited < 1000 {
                    usleepMilliseconds(10)
                    waited += 1
                }
                let newcomer = try RawConnection(port: server.port, timeout: 10)
                let turnedAway = (try? newcomer.exchange("GET", "/newcomer")) == nil
                gate.open()
                let statuses = try busy.map { try $0.readResponse().status }
                // The clients read their answers a moment before the server counts those
                // connections as waiting again (and so replaceable): allow it that moment.
                var after = -1
                for _ in 0..<50 where after != 200 {
                    after = (try? RawConnection(port: server.port, timeout: 10).exchange("GET", "/after").status) ?? -1
                    if after != 200 { usleepMilliseconds(20) }
                }
                return (turnedAway, statuses, after)
            }
            #expect(outcome.turnedAway)
            #expect(outcome.busy == [200, 200])
            #expect(outcome.after == 200)
        }
    }

    // MARK: Graceful shutdown

    /// Every in-flight request gets its answer; clients stopped halfway through a head
    /// or a body, and idle kept-alive connections, do not hold shutdown for the grace.
    @Test func shutdownAnswersInFlightRequestsAndIsNotHeldByHalfSentOnes() async throws {
        let started = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            started.add(1, ordering: .relaxed)
            let milliseconds = Int(request.queryItem("ms") ?? "") ?? 0
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return echo(request)
        }
        let server = try HTTPServer(
            configuration: .init(limits: .init(idleTimeout: .seconds(60), requestHeadDeadline: .seconds(60))), handler: handler)
        let port = server.port
        let count = 12
        async let outcome = try offPool { () -> (statuses: [Int], stalledClosed: [Bool]) in
            // Half a head, a head and half a body, an idle kept-alive connection.
            let halfHead = try RawConnection(port: port, timeout: 30)
            try halfHead.send("GET /half HTTP/1.1\r\nHost: x\r\n")
            let halfBody = try RawConnection(port: port, timeout: 30)
            try halfBody.send("POST /half-body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":")
            let idle = try RawConnection(port: port, timeout: 30)
            _ = try idle.exchange("GET", "/idle?ms=0")
            let connections = try (0..<count).map { _ in try RawConnection(port: port, timeout: 30) }
            for (index, connection) in connections.enumerated() {
                // POST, like a mutation: answered by a handler that suspends for 100–1200 ms.
                try connection.send("POST /inflight?ms=\((index + 1) * 100) HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
            }
            let statuses = connections.map { (try? $0.readResponse().status) ?? -1 }
            let stalledClosed = try [halfHead, halfBody, idle].map { try $0.waitForClose().closed }
            return (statuses, stalledClosed)
        }
        while started.load(ordering: .relaxed) < count + 1 { try await Task.sleep(for: .milliseconds(5)) }
        let before = ContinuousClock.now
        await server.shutdown(gracePeriod: .seconds(30))
        let took = ContinuousClock.now - before
        let result = try await outcome
        #expect(result.statuses == Array(repeating: 200, count: count))
        #expect(result.stalledClosed == [true, true, true])
        // The longest handler takes 1.2 s; the half-sent requests must not add the 30 s grace.
        #expect(took < .seconds(15), "shutdown took \(took)")
    }

    /// A connection opened while the server drains is closed unanswered (the accept policy
    /// refuses it), while the request in flight is still answered.
    @Test func aConnectionOpenedWhileDrainingIsClosedUnanswered() async throws {
        let started = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            started.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(1500))
            return echo(request)
        }
        let server = try HTTPServer(configuration: .init(), handler: handler)
        let port = server.port
        async let inFlight = try offPool { () -> Int in
            let connection = try RawConnection(port: port, timeout: 30)
            try connection.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
            return (try? connection.readResponse().status) ?? -1
        }
        while started.load(ordering: .relaxed) < 1 { try await Task.sleep(for: .milliseconds(5)) }
        async let stopped: Void = server.shutdown(gracePeriod: .seconds(20))
        while !server.isDraining { try await Task.sleep(for: .milliseconds(2)) }
        let late = try await offPool { () -> (closed: Bool, answered: Bool) in
            let connection = try RawConnection(port: port, timeout: 10)
            try? connection.send("GET /late HTTP/1.1\r\nHost: x\r\n\r\n")
            let answered = (try? connection.readResponse()) != nil
            return (try connection.waitForClose().closed, answered)
        }
        #expect(late.closed)
        #expect(!late.answered)
        #expect(try await inFlight == 200)
        await stopped
        #expect(started.load(ordering: .relaxed) == 1)
    }

    /// Clients sending requests back to back on kept-alive connections while shutdown
    /// begins: each gets every answer, the last with `Connection: close`, and none has a
    /// request cut (a connection answered just before draining began sends one more).
    @Test func keptAliveClientsLoseNoRequestAtShutdown() async throws {
        let server = try HTTPServer(configuration: .init(), handler: ClosureHandler(immediate: echo))
        let port = server.port
        let clients = 8
        let answered = Counter()
        async let outcomes = withThrowingTaskGroup(of: (answers: Int, cut: Bool).self) { group in
            for _ in 0..<clients {
                group.addTask {
                    try await offPool { () -> (answers: Int, cut: Bool) in
                        let connection = try RawConnection(port: port, timeout: 20)
                        var answers = 0
                        while true {
                            do {
                                try connection.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                                let response = try connection.readResponse()
                                answers += 1
                                answered.add()
                                if response.headers["connection"]?.lowercased() == "close" { return (answers, false) }
                            } catch {
                                return (answers, true)
                            }
                        }
                    }
                }
            }
            var all: [(answers: Int, cut: Bool)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        while answered.value < clients * 20 { try await Task.sleep(for: .milliseconds(5)) }
        await server.shutdown(gracePeriod: .seconds(10))
        let results = try await outcomes
        #expect(results.count == clients)
        #expect(results.allSatisfy { !$0.cut }, "\(results)")
    }

    // MARK: Request smuggling (RFC 9112 §6.3)

    /// `Content-Length` and `Transfer-Encoding: chunked` together: 400, the connection
    /// closes, and the request hidden in the body never runs.
    @Test func contentLengthWithChunkedIsRefusedAndTheHiddenRequestNeverRuns() async throws {
        let seen = Mutex<[String]>([])
        let handler = ClosureHandler(immediate: { request in
            seen.withLock { $0.append(request.path) }
            return echo(request)
        })
        try await withServer(handler: handler) { server in
            let hidden = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
            let body = "0\r\n\r\n" + hidden
            let outcome = try await offPool { () -> (Int, Bool, String) in
                let connection = try RawConnection(port: server.port, timeout: 5)
                try connection.send(
                    "POST /front HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n\(body)")
                let response = try connection.readResponse()
                let rest = try connection.waitForClose()
                return (response.status, rest.closed, response.headers["connection"] ?? "")
            }
            #expect(outcome.0 == 400)
            #expect(outcome.1, "the connection must close after the 400")
            #expect(outcome.2.lowercased() == "close")
            // The other order of the two fields, too.
            let reversed = try await offPool { () -> Int in
                let connection = try RawConnection(port: server.port, timeout: 5)
                try connection.send(
                    "POST /front HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n\(hidden)")
                return try connection.readResponse().status
            }
            #expect(reversed == 400)
        }
        #expect(seen.withLock { $0 }.isEmpty)
    }

    /// Two different `Content-Length` values: 400 and close (the first is not silently used).
    @Test func conflictingContentLengthsAreRefused() async throws {
        let seen = Mutex<[String]>([])
        let handler = ClosureHandler(immediate: { request in
            seen.withLock { $0.append(request.path) }
            return echo(request)
        })
        try await withServer(handler: handler) { server in
            let outcome = try await offPool { () -> (Int, Bool) in
                let connection = try RawConnection(port: server.port, timeout: 5)
                try connection.send(
                    "POST /front HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 42\r\n\r\nhelloGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
                let status = try connection.readResponse().status
                return (status, try connection.waitForClose().closed)
            }
            #expect(outcome.0 == 400 && outcome.1)
            // Repeating the same length is allowed (RFC 9110 §8.6).
            let same = try await offPool { () -> Int in
                let connection = try RawConnection(port: server.port, timeout: 5)
                try connection.send("POST /same HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
                return try connection.readResponse().status
            }
            #expect(same == 200)
        }
        #expect(seen.withLock { $0 } == ["/same"])
    }

    @Test func transferCodingsOtherThanChunkedAreRefused() async throws {
        try await withServer(handler: ClosureHandler(immediate: echo)) { server in
            func status(_ head: String) async throws -> Int {
                try await offPool {
                    let connection = try RawConnection(port: server.port, timeout: 5)
                    try connection.send(head + "5\r\nhello\r\n0\r\n\r\n")
                    return try connection.readResponse().status
                }
            }
            let gzipThenChunked = try await status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
            let chunkedThenIdentity = try await status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n")
            let http10 = try await status("POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunked = try await status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            #expect(gzipThenChunked == 501)
            #expect(chunkedThenIdentity == 400)
            #expect(http10 == 400)
            #expect(chunked == 200)
        }
    }

    // MARK: The header limit

    /// A head of exactly `maxHeaderBytes` passes and one byte more gets 431, for one
    /// large field, a large `Cookie` (libmicrohttpd copies it) and many small fields.
    @Test(arguments: [16 << 10, 4096, 64 << 10])
    func headerLimitIsExact(limit: Int) async throws {
        let config = HTTPServerConfiguration(limits: .init(maxHeaderBytes: limit))
        try await withServer(config, handler: ClosureHandler(immediate: echo)) { server in
            for shape in HeadShape.allCases {
                let fits = try await offPool { try RawConnection(port: server.port).sendHead(shape.head(bytes: limit)) }
                let over = try await offPool { try RawConnection(port: server.port).sendHead(shape.head(bytes: limit + 1)) }
                #expect(fits.status == 200, "\(shape) head of \(limit) bytes")
                #expect(over.status == 431, "\(shape) head of \(limit + 1) bytes")
                if over.status == 431 {
                    #expect(try JSONParser.parse(over.body)["errors"]?.arrayValue?.first?["extensions"]?["code"] == "REQUEST_HEADER_FIELDS_TOO_LARGE")
                }
            }
        }
    }
}

/// Heads of an exact size, shaped as clients send them.
enum HeadShape: CaseIterable {
    case oneLargeField, largeCookie, hundredFields

    func head(bytes: Int) -> String {
        let start = "GET /limit HTTP/1.1\r\nHost: x\r\n"
        var fields: [(String, Int)]  // name, share of the room
        switch self {
        case .oneLargeField: fields = [("X-Large", 1)]
        case .largeCookie: fields = [("Cookie", 1)]
        case .hundredFields: fields = (0..<100).map { ("X-Field-\($0)", 1) }
        }
        // Each field costs `name: ` + CRLF besides its value; the head ends with CRLF.
        let overhead = start.utf8.count + 2 + fields.reduce(0) { $0 + $1.0.utf8.count + 4 }
        let room = bytes - overhead
        precondition(room >= fields.count, "head too small for its shape")
        var head = start
        for (index, field) in fields.enumerated() {
            let share = room / fields.count + (index < room % fields.count ? 1 : 0)
            let value = field.0 == "Cookie" ? "c=" + String(repeating: "v", count: share - 2) : String(repeating: "v", count: share)
            head += "\(field.0): \(value)\r\n"
        }
        head += "\r\n"
        precondition(head.utf8.count == bytes)
        return head
    }
}

extension RawConnection {
    /// Sends a complete head and reads the answer.
    func sendHead(_ head: String) throws -> RawResponse {
        try send(head)
        return try readResponse()
    }
}

/// A count shared with client threads.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Opens once; waiters poll (handlers under test, not production code).
final class Gate: Sendable {
    private let opened = Mutex(false)
    func open() { opened.withLock { $0 = true } }
    func wait() async {
        while !opened.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
