import Foundation
import HTTPClient
import Testing

@Suite("HTTPClient round trips over loopback")
struct HTTPClientRoundTripTests {
    @Test func getReturnsStatusHeadersAndBody() async throws {
        try await withServer(handler: { request, _ in
            .respond(status: 200, headers: [("Content-Type", "text/plain"), ("X-Path", request.path)], body: Array("hello".utf8))
        }) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/greeting?x=1")))
            #expect(response.status == 200)
            #expect(response.bodyText == "hello")
            #expect(response.header("content-type") == "text/plain")
            #expect(response.header("X-PATH") == "/greeting?x=1")
            #expect(response.httpVersion == .http1_1)
            #expect(response.attempts == 1)
        }
    }

    @Test func postSendsBodyAndHeadersExactly() async throws {
        try await withServer(handler: echoHandler) { server, client in
            let payload: [UInt8] = Array("{\"amount\":1000}".utf8) + [0, 255, 13, 10]
            let request = HTTPClientRequest(
                method: "POST", url: server.url("/orders"),
                headers: [("Content-Type", "application/json"), ("X-Test", "a b:c")], body: payload
            )
            let response = try await client.execute(request)
            #expect(response.status == 200)
            #expect(response.body == payload)
            #expect(response.header("X-Method") == "POST")
            #expect(response.header("X-Content-Type") == "application/json")
            #expect(response.header("X-Echo-Test") == "a b:c")
            #expect(response.header("X-Echo-Agent") == "PayQL-HTTPClient")
        }
    }

    @Test func postWithoutContentTypeSendsNone() async throws {
        try await withServer(handler: echoHandler) { server, client in
            let response = try await client.execute(HTTPClientRequest(method: "POST", url: server.url("/x"), body: [1, 2, 3]))
            #expect(response.header("X-Content-Type") == "(none)")
            #expect(response.body == [1, 2, 3])
        }
    }

    @Test(arguments: ["PUT", "PATCH", "DELETE", "GET"])
    func otherMethodsAreSentAsGiven(method: String) async throws {
        try await withServer(handler: echoHandler) { server, client in
            let body: [UInt8] = method == "GET" ? [] : Array("x".utf8)
            let response = try await client.execute(HTTPClientRequest(method: method, url: server.url("/m"), body: body))
            #expect(response.header("X-Method") == method)
            #expect(response.body == body)
        }
    }

    @Test func headReturnsHeadersWithoutBody() async throws {
        try await withServer(handler: { _, _ in .respond(status: 200, body: Array("ignored".utf8)) }) { server, client in
            let response = try await client.execute(HTTPClientRequest(method: "HEAD", url: server.url("/h")))
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.header("Content-Length") == "7")
        }
    }

    @Test func responseHeadersAreTrimmedUnfoldedAndKeptInOrder() async throws {
        let headers: [(String, String)] = [
            ("X-Padded", "  padded value \t"), ("X-Folded", "first\r\n  second"), ("Set-Cookie", "a=1"),
            ("X-Empty", ""), ("set-cookie", "b=2"), ("X-Colon", "a: b"),
        ]
        try await withServer(handler: { _, _ in .respond(status: 200, headers: headers) }) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/h")))
            #expect(response.header("x-padded") == "padded value")
            #expect(response.header("X-Folded") == "first second")
            #expect(response.header("X-Empty") == "")
            #expect(response.header("X-Colon") == "a: b")
            #expect(response.headers(named: "Set-Cookie") == ["a=1", "b=2"])
            #expect(response.headers.map(\.name).prefix(6) == ["X-Padded", "X-Folded", "Set-Cookie", "X-Empty", "set-cookie", "X-Colon"])
        }
    }

    @Test func errorStatusesAreResponsesNotErrors() async throws {
        try await withServer(handler: { _, _ in .respond(status: 422, body: Array("{\"error\":\"bad\"}".utf8)) }) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/bad")))
            #expect(response.status == 422)
            #expect(response.bodyText == "{\"error\":\"bad\"}")
        }
    }

    @Test func connectionsAreReusedAcrossSequentialRequests() async throws {
        try await withServer(handler: echoHandler) { server, client in
            for index in 0..<20 {
                let response = try await client.execute(HTTPClientRequest(url: server.url("/r\(index)")))
                #expect(response.status == 200)
            }
            #expect(client.connectionsOpened == 1)
            #expect(server.accepted == 1)
        }
    }

    @Test func concurrentRequestsOpenAtMostOneConnectionPerTask() async throws {
        try await withServer(handler: { _, _ in .respond(status: 200, body: [1], delay: .milliseconds(2)) }) { server, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        for index in 0..<10 {
                            let response = try await client.execute(HTTPClientRequest(url: server.url("/t\(task)/\(index)")))
                            #expect(response.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(client.connectionsOpened <= 8)
            #expect(client.connectionsOpened == server.accepted)
        }
    }

    @Test func perHostLimitQueuesInsteadOfOpeningMore() async throws {
        let configuration = HTTPClientConfiguration(maxConnectionsPerHost: 2)
        try await withServer(configuration: configuration, handler: { _, _ in .respond(status: 200, delay: .milliseconds(20)) }) { server, client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask { try await client.execute(HTTPClientRequest(url: server.url("/q\(index)"))).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(client.connectionsOpened <= 2)
        }
    }

    @Test func thousandSequentialRequestsLeakNoDescriptorsOrConnections() async throws {
        try await withServer(handler: { _, _ in .respond(status: 200, body: Array("ok".utf8)) }) { server, client in
            // Warm up: the first request opens the connection and libcurl's wake-up pipe exists already.
            _ = try await client.execute(HTTPClientRequest(url: server.url("/warm")))
            let before = openFileDescriptors()
            for _ in 0..<1000 {
                let response = try await client.execute(HTTPClientRequest(method: "POST", url: server.url("/n"), body: [7]))
                #expect(response.status == 200)
            }
            let after = openFileDescriptors()
            #expect(server.requests("/n") == 1000)
            #expect(client.connectionsOpened == 1)
            // Other suites run in parallel and open sockets of their own: allow a little slack.
            #expect(after - before < 20, "descriptors before: \(before), after: \(after)")
        }
    }

    @Test func largeBodiesRoundTrip() async throws {
        try await withServer(handler: echoHandler) { server, client in
            let payload = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let response = try await client.execute(HTTPClientRequest(method: "PUT", url: server.url("/big"), body: payload))
            #expect(response.body == payload)
        }
    }
}
