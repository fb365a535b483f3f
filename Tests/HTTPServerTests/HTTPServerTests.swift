import HTTPTestSupport
import HTTPServer
import JSON
import Synchronization
import Testing

@Suite struct HTTPServerTests {
    @Test func getWithQueryAndHeadersReachesAsyncHandler() async throws {
        let logger = CapturingLogger()
        let handler = ClosureHandler { request in
            try? await Task.sleep(for: .milliseconds(5))
            return echo(request)
        }
        try await withServer(.init(logger: logger), handler: handler) { server in
            #expect(server.port > 0)
            let response = try await request(
                port: server.port, "GET", "/a%20b/c?x=1&y=h%C3%A9+llo&flag&x=2", headers: [("X-Custom", "Value")]
            )
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let json = try JSONParser.parse(response.body)
            #expect(json["method"] == "GET")
            #expect(json["path"] == "/a b/c")
            #expect(json["query"] == "x=1&y=h%C3%A9+llo&flag&x=2")
            #expect(json["items"] == [["x", "1"], ["y", "hé llo"], ["flag", ""], ["x", "2"]])
            #expect(json["headers"]?["x-custom"] == "Value")
            #expect(json["remote"] == "127.0.0.1")
            let id = try #require(response.headers["x-request-id"])
            #expect(json["id"] == .string(id))
            // Generated: 8 hex digits of a per-process prefix, "-", a hex counter.
            let parts = id.split(separator: "-")
            #expect(parts.count == 2 && parts[0].count == 8 && !parts[1].isEmpty, "\(id)")
            #expect(parts.allSatisfy { $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() }, "\(id)")
        }
        let record = try #require(logger.all.first)
        #expect(record.method == "GET" && record.path == "/a b/c" && record.status == 200 && record.outcome == "ok")
        #expect(record.fields.first?.value == "Echo")
        let line = String(decoding: JSONLineLogger.format(record), as: UTF8.self)
        #expect(line.contains("\"operation\":\"Echo\"") && !line.contains("x=1"))
    }

    @Test func postBodyAndFastPath() async throws {
        let handler = ClosureHandler(immediate: echo)
        try await withServer(handler: handler) { server in
            let body = Array(String(repeating: "é", count: 3000).utf8)
            let response = try await request(port: server.port, "POST", "/p", headers: [("Content-Type", "text/plain")], body: body)
            #expect(response.status == 200)
            let json = try JSONParser.parse(response.body)
            #expect(json["bodyBytes"] == .int(Int64(body.count)))
            #expect(json["body"] == .string(String(repeating: "é", count: 3000)))
            // A body near the default 1 MiB limit arrives whole through many chunks.
            let large = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 % 26 + 97) }
            let big = try await request(port: server.port, "POST", "/big", body: large)
            #expect(try JSONParser.parse(big.body)["bodyBytes"] == 1_000_000)
        }
    }

    @Test func handlerThatNeverSuspendsIsAnsweredWithoutSuspendResume() async throws {
        @Sendable func compute(_ request: HTTPRequest) async -> HTTPResponse { echo(request) }
        let handler = ClosureHandler { request in await compute(request) }
        try await withServer(handler: handler) { server in
            for _ in 0..<5 {
                let response = try await request(port: server.port, "GET", "/inline")
                #expect(response.status == 200)
            }
            #expect(server.dispatchCounts.inline == 5 && server.dispatchCounts.suspended == 0)
        }
        let sleepy = ClosureHandler { request in
            try? await Task.sleep(for: .milliseconds(1))
            return echo(request)
        }
        try await withServer(handler: sleepy) { server in
            for _ in 0..<3 {
                let response = try await request(port: server.port, "GET", "/suspends")
                #expect(response.status == 200)
            }
            #expect(server.dispatchCounts.inline == 0 && server.dispatchCounts.suspended == 3)
        }
    }

    @Test func chunkedUploadIsAssembled() async throws {
        try await withServer(handler: ClosureHandler(echo)) { server in
            let response = try await offPool {
                let connection = try RawConnection(port: server.port)
                try connection.send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(try JSONParser.parse(response.body)["body"] == "hello world")
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withServer(handler: ClosureHandler(echo)) { server in
            let statuses = try await offPool {
                let connection = try RawConnection(port: server.port)
                return try (0..<50).map { index in try connection.exchange(index % 2 == 0 ? "GET" : "POST", "/k\(index)", body: index % 2 == 0 ? [] : [65]).status }
            }
            #expect(statuses == Array(repeating: 200, count: 50))
        }
    }

    @Test func requestIDFromClientIsKeptWhenSafe() async throws {
        try await withServer(handler: ClosureHandler(immediate: echo)) { server in
            let kept = try await request(port: server.port, "GET", "/", headers: [("X-Request-Id", "abc-123.x_y")])
            #expect(kept.headers["x-request-id"] == "abc-123.x_y")
            let replaced = try await request(port: server.port, "GET", "/", headers: [("X-Request-Id", "bad id\"{}")])
            #expect(replaced.headers["x-request-id"] != nil && replaced.headers["x-request-id"] != "bad id\"{}")
            let other = try await request(port: server.port, "GET", "/")
            #expect(other.headers["x-request-id"] != replaced.headers["x-request-id"])
        }
    }

    @Test func dropConnectionSendsNothing() async throws {
        try await withServer(handler: ClosureHandler { _ in .dropConnection }) { server in
            let result = try await offPool {
                let connection = try RawConnection(port: server.port, timeout: 5)
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.waitForClose()
            }
            #expect(result.closed && result.received.isEmpty)
        }
    }

    @Test func handlerHeadersAreSanitised() async throws {
        let handler = ClosureHandler(immediate: { _ in
            HTTPResponse(status: 201, headers: ["x-ok": "1", "x-bad": "a\r\nset-cookie: evil"], body: Array("made".utf8))
        })
        try await withServer(handler: handler) { server in
            let response = try await request(port: server.port, "GET", "/")
            #expect(response.status == 201 && response.text == "made")
            #expect(response.headers["x-ok"] == "1")
            #expect(response.headers["x-bad"] == nil && response.headers["set-cookie"] == nil)
        }
    }

    @Test func refusesToBindATakenPort() async throws {
        try await withServer(handler: ClosureHandler(immediate: echo)) { server in
            #expect(throws: HTTPServerError.self) {
                _ = try HTTPServer(configuration: .init(port: server.port), handler: ClosureHandler(immediate: echo))
            }
        }
    }

    @Test func serverThreadsAskForTheConfiguredSchedulingSlice() async throws {
        // What a server thread reports, as "<nanoseconds>" or "none".
        let handler = ClosureHandler(immediate: { _ in
            let slice = SystemInfo.currentThreadTimeSlice().map { "\($0.components.attoseconds / 1_000_000_000)" } ?? "none"
            return HTTPResponse(status: 200, body: Array(slice.utf8))
        })
        // Kernels before 6.12 keep no per-thread slice: there, the request is accepted and ignored.
        let kernelKeepsSlices = SystemInfo.currentThreadTimeSlice() != nil
        try await withServer(.init(threadTimeSlice: .microseconds(250)), handler: handler) { server in
            for _ in 0..<3 {
                let response = try await request(port: server.port, "GET", "/")
                #expect(response.text == (kernelKeepsSlices ? "250000" : "none"))
            }
        }
        try await withServer(.init(threadTimeSlice: nil), handler: handler) { server in
            let response = try await request(port: server.port, "GET", "/")
            #expect(response.text != "250000" && response.text != "100000")
        }
        for invalid: Duration in [.microseconds(50), .milliseconds(101)] {
            #expect(throws: HTTPServerError.self) {
                _ = try HTTPServer(configuration: .init(threadTimeSlice: invalid), handler: handler)
            }
        }
    }

    @Test func everyResponseCarriesTheCurrentDate() async throws {
        // libmicrohttpd's own Date header is suppressed (its gmtime_r contends on glibc's
        // time-zone lock); the server adds one, except where the handler set its own.
        #expect(SystemInfo.httpDate(secondsSinceEpoch: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(SystemInfo.httpDate(secondsSinceEpoch: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(SystemInfo.httpDate(secondsSinceEpoch: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(SystemInfo.httpDate(secondsSinceEpoch: 4_102_444_800) == "Fri, 01 Jan 2100 00:00:00 GMT")
        #expect(SystemInfo.httpDate(secondsSinceEpoch: 253_402_300_799) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(SystemInfo.httpDate(secondsSinceEpoch: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        let handler = ClosureHandler(immediate: { request in
            request.path == "/own" ? HTTPResponse(status: 200, headers: ["date": "Sun, 06 Nov 1994 08:49:37 GMT"], body: []) : echo(request)
        })
        try await withServer(handler: handler) { server in
            let before = SystemInfo.wallClock().seconds
            let response = try await request(port: server.port, "GET", "/")
            let after = SystemInfo.wallClock().seconds
            let date = try #require(response.headers["date"])
            let allowed = Set((before - 1...after).map { SystemInfo.httpDate(secondsSinceEpoch: Int64($0)) })
            #expect(allowed.contains(date), "\(date)")
            let own = try await request(port: server.port, "GET", "/own")
            #expect(own.headers["date"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        }
    }
}
