import HTTPClient
import Testing

@Suite("HTTPClient and unusual responses")
struct HTTPClientResponseShapeTests {
    /// "hello, compressed world " × 20 (480 bytes), gzip-compressed to 49 bytes.
    static let gzipped: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51,
        0x48, 0xce, 0xcf, 0x2d, 0x28, 0x4a, 0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0x28, 0xcf, 0x2f, 0xca, 0x49, 0x51,
        0xc8, 0x18, 0x15, 0x1f, 0x16, 0xe2, 0x00, 0xba, 0x97, 0xd9, 0x8e, 0xe0, 0x01, 0x00, 0x00,
    ]

    static func raw(_ text: String, body: [UInt8] = []) -> LoopbackServer.Handler {
        { _, _ in .raw(Array(text.utf8) + body) }
    }

    @Test func gzipBodiesAreDecoded() async throws {
        let handler: LoopbackServer.Handler = { request, _ in
            // Only compress when asked, as a server must.
            guard request.header("Accept-Encoding")?.contains("gzip") == true else { return .respond(status: 406) }
            return .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: Self.gzipped)
        }
        try await withServer(handler: handler) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/gz")))
            #expect(response.status == 200)
            #expect(response.bodyText == String(repeating: "hello, compressed world ", count: 20))
        }
    }

    @Test func sizeLimitAppliesToDecodedBytes() async throws {
        // 49 bytes on the wire, 480 once decoded: a limit of 100 must refuse it.
        let configuration = HTTPClientConfiguration(maxResponseBytes: 100)
        try await withServer(configuration: configuration, handler: { _, _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: Self.gzipped)
        }) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/bomb"))) }
            #expect(error?.code == .responseTooLarge)
        }
    }

    @Test func interimResponsesAreSkipped() async throws {
        let text = "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Length: 2\r\n\r\nok"
        try await withServer(handler: Self.raw(text)) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/early")))
            #expect(response.status == 200)
            #expect(response.header("X-Final") == "yes")
            #expect(response.header("Link") == nil)
            #expect(response.bodyText == "ok")
        }
    }

    @Test func bodyReadUntilCloseIsComplete() async throws {
        try await withServer(handler: Self.raw("HTTP/1.0 200 OK\r\n\r\nuntil the end")) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/close")))
            #expect(response.httpVersion == .http1_0)
            #expect(response.bodyText == "until the end")
        }
    }

    @Test func truncatedBodyIsATransportError() async throws {
        try await withServer(handler: Self.raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/short"))) }
            #expect(error?.code == .transport)
            #expect(error?.curlCode == 18) // CURLE_PARTIAL_FILE
        }
    }

    @Test(arguments: ["garbage without a status line\r\n\r\n", "HTTP/1.1 abc Broken\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n"])
    func malformedResponsesAreTransportErrors(text: String) async throws {
        try await withServer(handler: Self.raw(text)) { server, client in
            let error = await expectClientError { try await client.execute(HTTPClientRequest(url: server.url("/bad"))) }
            #expect(error?.code == .transport)
        }
    }

    @Test func malformedResponsesAreRetriedWhenAllowed() async throws {
        let handler: LoopbackServer.Handler = { _, count in
            count == 0 ? .raw(Array("nonsense\r\n\r\n".utf8)) : .respond(status: 200, body: Array("fine".utf8))
        }
        try await withServer(handler: handler) { server, client in
            var request = HTTPClientRequest(url: server.url("/m"))
            request.retry = .idempotent(maxAttempts: 2, baseDelay: .milliseconds(10))
            let response = try await client.execute(request)
            #expect(response.bodyText == "fine")
            #expect(response.attempts == 2)
        }
    }
}
