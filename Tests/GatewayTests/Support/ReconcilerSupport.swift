import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Sandbox
import Synchronization

/// A clock the test moves: the system's time plus an offset.
final class TestClock: Sendable {
    private let offset = Mutex<Duration>(.zero)

    /// Now, as the reconciler sees it.
    func now() -> PostgresTimestamp { PostgresTimestamp(Date()).adding(offset.withLock { $0 }) }

    /// Moves the clock forward by `duration`.
    func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
}

/// The events one reconciler reported (thread-safe).
final class ReconcilerLog: Sendable {
    private let events = Mutex<[ReconcilerEvent]>([])

    func record(_ event: ReconcilerEvent) { events.withLock { $0.append(event) } }

    /// Every order id claimed, in order, repeats included.
    var claimed: [UUID] {
        events.withLock { $0.flatMap { event -> [UUID] in if case .claimed(let ids) = event { ids } else { [] } } }
    }

    /// The failures' messages.
    var failures: [String] {
        events.withLock { $0.compactMap { event in if case .failed(_, let message) = event { message } else { nil } } }
    }
}

extension GatewayHarness {
    /// A reconciler over this harness's gateway, on `clock`, with a fast schedule; not started
    /// (tests call `runOnce()`), its events recorded in `log`.
    func reconciler(clock: TestClock, log: ReconcilerLog = ReconcilerLog(),
                    adjust: (inout ReconcilerConfiguration) -> Void = { _ in }) -> Reconciler {
        var configuration = ReconcilerConfiguration()
        configuration.now = { clock.now() }
        configuration.interval = .milliseconds(20)
        configuration.schedule = ReconcileSchedule(delays: [.seconds(5), .seconds(60)])
        adjust(&configuration)
        return Reconciler(gateway: gateway, configuration: configuration) { log.record($0) }
    }

    /// Orders the Razorpay sandbox holds with `receipt` (`GET /v1/orders?receipt=`), or its first 100 orders.
    func razorpayOrders(receipt: String?) async throws -> [JSONValue] {
        let credentials = sandbox.credentials
        let basic = Data("\(credentials.razorpayKeyID):\(credentials.razorpayKeySecret)".utf8).base64EncodedString()
        let filter = receipt.map { "receipt=\($0)&" } ?? ""
        let response = try await client.execute(.init(method: "GET", url: sandbox.baseURL(for: .razorpay) + "/v1/orders?\(filter)count=100",
                                                      headers: [("authorization", "Basic \(basic)")]))
        return (try JSONParser.parse(response.body))["items"]?.arrayValue ?? []
    }

    /// `createOrder` with the fields the reliability tests read; the whole answer.
    func createOrder(provider: String = "RAZORPAY", amount: String = "50000", receipt: String? = nil, customer: String? = nil,
                     idempotencyKey: String? = nil) async throws -> Answer {
        try await graphQL("""
            mutation($r: String, $k: String, $c: ID) { createOrder(input: {amount: {amount: "\(amount)"}, provider: \(provider), receipt: $r,
                                                                   customerId: $c, idempotencyKey: $k}) {
              order { id receipt providerOrderId status needsReconciliation
                      checkout { __typename ... on RazorpayCheckout { orderId } ... on CashfreeCheckout { orderId paymentSessionId } } }
              userErrors { code message field } } }
            """, variables: ["r": receipt.map(JSONValue.string) ?? .null, "k": idempotencyKey.map(JSONValue.string) ?? .null,
                             "c": customer.map(JSONValue.string) ?? .null])
    }

    /// One order read through `/graphql` (same fields as ``createOrder``).
    func order(_ id: String) async throws -> JSONValue? {
        try await graphQL("""
            query($id: ID!) { order(id: $id) { id receipt providerOrderId status needsReconciliation
              checkout { __typename ... on RazorpayCheckout { orderId } ... on CashfreeCheckout { orderId paymentSessionId } } } }
            """, variables: ["id": .string(id)]).data("order")
    }
}
