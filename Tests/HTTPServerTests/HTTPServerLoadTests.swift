import HTTPTestSupport
import HTTPServer
import JSON
import Synchronization
import Testing

@Suite struct HTTPServerLoadTests {
    @Test func thousandConcurrentKeepAliveConnections() async throws {
        let handler = ClosureHandler { request in
            await Task.yield()
            return echo(request)
        }
        try await withServer(handler: handler) { server in
            let statuses = try await offPool { () -> [Int] in
                let connections = try (0..<1000).map { _ in try RawConnection(port: server.port, timeout: 20) }
                var statuses: [Int] = []
                for round in 0..<2 {
                    // Every connection has a request in flight before any answer is read.
                    for (index, connection) in connections.enumerated() {
                        try connection.send("GET /c\(index)?r=\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
                    }
                    for (index, connection) in connections.enumerated() {
                        let response = try connection.readResponse()
                        let path = try JSONParser.parse(response.body)["path"]
                        statuses.append(path == .string("/c\(index)") ? response.status : -1)
                    }
                }
                return statuses
            }
            #expect(statuses.count == 2000)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test func shutdownFinishesInFlightRequests() async throws {
        let started = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            started.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(400))
            return echo(request)
        }
        let server = try HTTPServer(configuration: .init(), handler: handler)
        let port = server.port
        async let responses = try offPool { () -> [RawResponse] in
            let connections = try (0..<8).map { _ in try RawConnection(port: port) }
            for connection in connections { try connection.send("GET /inflight HTTP/1.1\r\nHost: x\r\n\r\n") }
            return try connections.map { try $0.readResponse() }
        }
        while started.load(ordering: .relaxed) < 8 { try await Task.sleep(for: .milliseconds(5)) }
        let before = ContinuousClock.now
        await server.shutdown(gracePeriod: .seconds(5))
        let shutdownTook = ContinuousClock.now - before
        let results = try await responses
        #expect(results.map(\.status) == Array(repeating: 200, count: 8))
        #expect(results.allSatisfy { $0.headers["connection"]?.lowercased() == "close" })
        #expect(shutdownTook < .seconds(3))
        #expect(server.activeRequests == 0)
        // No longer listening.
        #expect(throws: RawClientError.self) { _ = try RawConnection(port: port) }
    }

    @Test func shutdownAnswers503WhenGraceRunsOut() async throws {
        let started = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            started.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .seconds(30))
            return echo(request)
        }
        let server = try HTTPServer(configuration: .init(), handler: handler)
        let port = server.port
        async let response = try offPool { try RawConnection(port: port).exchange("GET", "/stuck") }
        while started.load(ordering: .relaxed) < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let before = ContinuousClock.now
        await server.shutdown(gracePeriod: .milliseconds(200))
        #expect(ContinuousClock.now - before < .seconds(2))
        #expect(try await response.status == 503)
    }
}
