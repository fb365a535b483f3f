import Crypto
import Foundation
import HTTPClient
import HTTPServer
import HTTPTestSupport
import JSON
import Sandbox
import Testing

/// An HTTP answer with its JSON, when it is JSON.
struct Reply {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONParser.parse(body) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `json[key]`, nil-safe.
    subscript(_ key: String) -> JSONValue? { json?[key] }
}

/// A running sandbox, a webhook receiver and a client, for one test.
struct SandboxHarness {
    let sandbox: SandboxServer
    let receiver: RecordingServer
    let client: HTTPClient

    var credentials: SandboxCredentials { sandbox.credentials }

    static func run(receiverStatuses: [Int] = [], configure: (inout SandboxConfiguration) -> Void = { _ in },
                    _ body: (SandboxHarness) async throws -> Void) async throws {
        let receiver = try RecordingServer(statuses: receiverStatuses)
        var configuration = SandboxConfiguration(port: 0, webhookTargets: [WebhookTarget(receiver.url("/webhooks"))])
        configure(&configuration)
        let sandbox = try await SandboxServer.start(configuration)
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let harness = SandboxHarness(sandbox: sandbox, receiver: receiver, client: client)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    func stop() async {
        await client.shutdown()
        await sandbox.shutdown()
        await receiver.shutdown()
    }

    /// A request to `path` below the sandbox root (`/razorpay/v1/orders`).
    func send(_ method: String, _ path: String, headers: [(name: String, value: String)] = [],
              body: [UInt8] = [], timeout: Duration = .seconds(10)) async throws -> Reply {
        let response = try await client.execute(HTTPClientRequest(method: method, url: sandbox.baseURL + path,
                                                                  headers: headers, body: body, timeout: timeout))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    func send(_ method: String, _ path: String, headers: [(name: String, value: String)] = [], json: String) async throws -> Reply {
        try await send(method, path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    // MARK: Provider conveniences

    var razorpayAuth: [(name: String, value: String)] {
        [("Authorization", "Basic " + Encoding.base64(Array("\(credentials.razorpayKeyID):\(credentials.razorpayKeySecret)".utf8)))]
    }

    var cashfreeHeaders: [(name: String, value: String)] {
        [("x-client-id", credentials.cashfreeClientID), ("x-client-secret", credentials.cashfreeClientSecret),
         ("x-api-version", "2025-01-01")]
    }

    func instamojoToken() async throws -> [(name: String, value: String)] {
        let form = "grant_type=client_credentials&client_id=\(credentials.instamojoClientID)&client_secret=\(credentials.instamojoClientSecret)"
        let reply = try await send("POST", "/instamojo/oauth2/token/", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                   body: Array(form.utf8))
        let token = try #require(reply["access_token"]?.stringValue)
        return [("Authorization", "Bearer " + token)]
    }

    func setuHeaders() async throws -> [(name: String, value: String)] {
        let reply = try await send("POST", "/setu/api/v2/auth/token",
                                   json: #"{"clientID":"\#(credentials.setuClientID)","secret":"\#(credentials.setuSecret)"}"#)
        let token = try #require(reply["token"]?.stringValue)
        return [("Authorization", "Bearer " + token), ("X-PARTNER-ID", credentials.setuPartnerID)]
    }

    /// `POST /_sandbox/{provider}/orders/{id}/complete`.
    func complete(_ provider: String, _ id: String, _ fields: String = #""status":"paid""#) async throws -> Reply {
        try await send("POST", "/_sandbox/\(provider)/orders/\(id)/complete", json: "{\(fields)}")
    }

    func addFault(_ json: String) async throws {
        let reply = try await send("POST", "/_sandbox/faults", json: json)
        #expect(reply.status == 201, "fault rule refused: \(reply.text)")
    }
}

/// The signature vectors computed by the providers' own SDKs (Tests/ProviderSDKs/fixtures/vectors.json,
/// the same file as Tests/ProvidersTests/Fixtures/vectors.json).
enum Vectors {
    static func all() throws -> [JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("ProviderSDKs/fixtures/vectors.json")
        let data = try Data(contentsOf: url)
        return try need(JSONParser.parse(Array(data))["vectors"]?.arrayValue, "vectors")
    }

    static func named(_ id: String) throws -> JSONValue {
        try need(try all().first { $0["id"]?.stringValue == id }, id)
    }
}

extension HTTPRequest {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A missing value in a test's input (nil where a value was required).
struct Missing: Error, CustomStringConvertible {
    let description: String
}

/// Unwraps or throws; usable inside `#require`/`#expect` where the macros cannot nest.
func need<T>(_ value: T?, _ what: String = "value", sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    guard let value else {
        Issue.record("missing \(what)", sourceLocation: sourceLocation)
        throw Missing(description: "missing \(what)")
    }
    return value
}
