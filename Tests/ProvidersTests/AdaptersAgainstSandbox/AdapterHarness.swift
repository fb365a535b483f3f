import Foundation
import HTTPClient
import HTTPServer
import HTTPTestSupport
import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// One in-process sandbox on an ephemeral loopback port, one HTTP client, and
/// the four adapters pointed at it (the adapters' tests against the simulated APIs;
/// the sandbox's own tests, over raw HTTP, are in SandboxTests). Every test gets its own, so tests share no state.
struct AdapterHarness {
    let sandbox: SandboxServer
    let client: HTTPClient
    let transport: ProviderTransportSettings
    let receiver: RecordingServer

    /// Short timeouts so fault tests finish quickly; the adapters' defaults are longer.
    static let fastTransport = ProviderTransportSettings(attemptTimeout: .seconds(2), operationDeadline: .seconds(4),
                                                         maxAttemptsWhenSafe: 3, retryBaseDelay: .milliseconds(20))

    /// Runs `body` against a fresh sandbox; always shuts both down.
    static func run(transport: ProviderTransportSettings = fastTransport,
                    _ body: (AdapterHarness) async throws -> Void) async throws {
        // Webhooks are really delivered over HTTP to a loopback receiver, which
        // keeps their exact headers and bytes for the adapters to verify.
        let receiver = try RecordingServer()
        let sandbox: SandboxServer
        do {
            sandbox = try await SandboxServer.start(SandboxConfiguration(port: 0, webhookTargets: [WebhookTarget(receiver.url("/hooks"))],
                                                                         webhookTimeout: .seconds(2)))
        } catch {
            await receiver.shutdown()
            throw error
        }
        let client: HTTPClient
        do { client = try HTTPClient() } catch {
            await sandbox.shutdown()
            await receiver.shutdown()
            throw error
        }
        let harness = AdapterHarness(sandbox: sandbox, client: client, transport: transport, receiver: receiver)
        do {
            try await body(harness)
        } catch {
            await client.shutdown()
            await sandbox.shutdown()
            await receiver.shutdown()
            throw error
        }
        await client.shutdown()
        await sandbox.shutdown()
        await receiver.shutdown()
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

    /// The webhooks the receiver got for `provider` (sent to `/hooks/{provider}`),
    /// with the event type read from the body.
    func webhooks(provider: String) async throws -> [(event: String, request: WebhookRequest)] {
        guard let name = ProviderName(rawValue: provider) else { return [] }
        return receiver.requests.filter { $0.path.hasSuffix("/\(provider)") }.map { delivery in
            let request = WebhookRequest(headers: delivery.headers.fields, body: delivery.body)
            return ((try? Webhooks.event(provider: name, request: request).type) ?? "", request)
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
