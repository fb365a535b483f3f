import Foundation
import HTTPClient
import Sandbox
import Testing
@testable import Providers

/// One in-process sandbox on an ephemeral loopback port, one HTTP client, and
/// the four adapters pointed at it. Every test gets its own, so tests share no state.
struct SandboxHarness {
    let sandbox: SandboxServer
    let client: HTTPClient
    let transport: ProviderTransportSettings

    /// Short timeouts so fault tests finish quickly; the adapters' defaults are longer.
    static let fastTransport = ProviderTransportSettings(attemptTimeout: .seconds(2), operationDeadline: .seconds(4),
                                                         maxAttemptsWhenSafe: 3, retryBaseDelay: .milliseconds(20))

    /// Runs `body` against a fresh sandbox; always shuts both down.
    static func run(transport: ProviderTransportSettings = fastTransport,
                    _ body: (SandboxHarness) async throws -> Void) async throws {
        // Webhooks go to a closed loopback port: each delivery fails fast but is
        // logged with its exact headers and body, which the tests then verify.
        let sandbox = try await SandboxServer.start(SandboxConfiguration(port: 0, webhookTargets: [WebhookTarget("http://127.0.0.1:9/hooks")],
                                                                         webhookTimeout: .seconds(1)))
        let client: HTTPClient
        do { client = try HTTPClient() } catch {
            await sandbox.shutdown()
            throw error
        }
        let harness = SandboxHarness(sandbox: sandbox, client: client, transport: transport)
        do {
            try await body(harness)
        } catch {
            await client.shutdown()
            await sandbox.shutdown()
            throw error
        }
        await client.shutdown()
        await sandbox.shutdown()
    }

    var credentials: SandboxCredentials { sandbox.credentials }

    var razorpay: RazorpayAdapter {
        RazorpayAdapter(configuration: RazorpayConfiguration(baseURL: sandbox.baseURL(for: .razorpay), keyID: credentials.razorpayKeyID,
                                                             keySecret: Secret(credentials.razorpayKeySecret),
                                                             webhookSecret: Secret(credentials.razorpayWebhookSecret), transport: transport),
                        client: client)
    }

    var cashfree: CashfreeAdapter {
        CashfreeAdapter(configuration: CashfreeConfiguration(baseURL: sandbox.baseURL(for: .cashfree), clientID: credentials.cashfreeClientID,
                                                             clientSecret: Secret(credentials.cashfreeClientSecret), transport: transport),
                        client: client)
    }

    func instamojo() -> InstamojoAdapter {
        InstamojoAdapter(configuration: InstamojoConfiguration(baseURL: sandbox.baseURL(for: .instamojo), clientID: credentials.instamojoClientID,
                                                               clientSecret: Secret(credentials.instamojoClientSecret),
                                                               privateSalt: Secret(credentials.instamojoPrivateSalt), transport: transport),
                         client: client)
    }

    func setu() -> SetuAdapter {
        SetuAdapter(configuration: SetuConfiguration(baseURL: sandbox.baseURL(for: .setu), clientID: credentials.setuClientID,
                                                     secret: Secret(credentials.setuSecret), partnerID: credentials.setuPartnerID,
                                                     orgID: "11321101108211244842", webhookAPIKey: Secret(credentials.setuWebhookKey),
                                                     transport: transport),
                    client: client)
    }

    /// A control-API call; returns the decoded JSON answer (and fails the test on a non-2xx).
    @discardableResult
    func control(_ method: String, _ path: String, json: String? = nil, expectStatus: Int? = nil) async throws -> Any {
        let request = HTTPClientRequest(method: method, url: sandbox.baseURL + path,
                                        headers: json == nil ? [] : [("Content-Type", "application/json")],
                                        body: json.map { Array($0.utf8) } ?? [])
        let response = try await client.execute(request)
        if let expectStatus {
            #expect(response.status == expectStatus, "\(method) \(path): \(response.bodyText)")
        } else {
            #expect((200..<300).contains(response.status), "\(method) \(path): \(response.bodyText)")
        }
        return try JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
    }

    /// A control-API call returning the raw answer bytes.
    func controlBytes(_ method: String, _ path: String, json: String? = nil) async throws -> [UInt8] {
        let response = try await client.execute(HTTPClientRequest(method: method, url: sandbox.baseURL + path,
                                                                  headers: [("Content-Type", "application/json")],
                                                                  body: Array((json ?? "{}").utf8)))
        #expect((200..<300).contains(response.status), "\(method) \(path): \(response.bodyText)")
        return response.body
    }

    /// Adds a fault rule (JSON as in docs/sandbox.md).
    func fault(_ json: String) async throws {
        try await control("POST", "/_sandbox/faults", json: json)
    }

    /// Marks an order paid / failed / … through the control API; returns the answer object.
    func complete(_ provider: String, _ orderID: String, status: String, extra: String = "") async throws -> [String: Any] {
        let answer = try await control("POST", "/_sandbox/\(provider)/orders/\(orderID)/complete", json: #"{"status":"\#(status)"\#(extra)}"#)
        return try #require(answer as? [String: Any])
    }

    /// The webhook deliveries the sandbox attempted, as requests our verifier can check.
    func webhooks(provider: String) async throws -> [(event: String, request: WebhookRequest)] {
        let log = try #require(try await control("GET", "/_sandbox/webhooks") as? [[String: Any]])
        return log.compactMap { entry in
            guard entry["provider"] as? String == provider, let event = entry["event"] as? String,
                  let headers = entry["headers"] as? [String: String], let body = entry["body"] as? String else { return nil }
            return (event, WebhookRequest(headers: headers.map { ($0.key, $0.value) }, body: Array(body.utf8)))
        }
    }
}

/// Asserts that `body` throws a ProviderError with `code`, returning it.
@discardableResult
func expectProviderError(_ code: ProviderError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () async throws -> Void) async -> ProviderError? {
    do {
        try await body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ProviderError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected ProviderError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
