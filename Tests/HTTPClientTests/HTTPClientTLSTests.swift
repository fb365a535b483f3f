import Foundation
import HTTPClient
import Testing

@Suite("HTTPClient over TLS and HTTP/2 (Node http2 on loopback)", .enabled(if: NodeHTTP2Server.available), .serialized)
struct HTTPClientTLSTests {
    @Test func untrustedCertificateIsRejected() async throws {
        let server = try await offCooperativePool { try NodeHTTP2Server() }
        defer { server.stop() }
        let client = try HTTPClient() // system trust store: the self-signed certificate is unknown
        let error = await expectClientError { try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/")) }
        #expect(error?.code == .tls)
        await client.shutdown()
    }

    @Test func hostNameMismatchIsRejected() async throws {
        let server = try await offCooperativePool { try NodeHTTP2Server() }
        defer { server.stop() }
        let client = try HTTPClient(configuration: .init(caBundlePath: server.certificatePath))
        // Trusted certificate, but it names 127.0.0.1, not localhost.
        let error = await expectClientError { try await client.execute(HTTPClientRequest(url: "https://localhost:\(server.port)/")) }
        #expect(error?.code == .tls)
        await client.shutdown()
    }

    @Test func http2IsNegotiatedAndMultiplexedOnOneConnection() async throws {
        let server = try await offCooperativePool { try NodeHTTP2Server() }
        defer { server.stop() }
        let client = try HTTPClient(configuration: .init(caBundlePath: server.certificatePath))
        let url = "https://127.0.0.1:\(server.port)/"
        // No request before: the 16 concurrent first requests must wait for one connection and share it.
        try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await client.execute(HTTPClientRequest(method: "POST", url: url, body: Array("body \(index)".utf8)))
                }
            }
            for try await response in group {
                #expect(response.status == 200)
                #expect(response.httpVersion == .http2)
                #expect(response.header("x-http-version") == "2.0")
                #expect(response.bodyText.hasPrefix("body "))
            }
        }
        #expect(client.connectionsOpened == 1)
        await client.shutdown()
    }

    @Test func http2CanBeTurnedOff() async throws {
        let server = try await offCooperativePool { try NodeHTTP2Server() }
        defer { server.stop() }
        let client = try HTTPClient(configuration: .init(caBundlePath: server.certificatePath, allowHTTP2: false))
        let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        #expect(response.httpVersion == .http1_1)
        #expect(response.header("x-http-version") == "1.1")
        await client.shutdown()
    }
}
