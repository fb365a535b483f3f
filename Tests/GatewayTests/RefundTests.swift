import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Sandbox
import Testing

/// `createRefund` through real HTTP `/graphql`, real PostgreSQL and the sandbox providers:
/// full and partial refunds on each provider, the reservation under the payment's lock,
/// refund webhooks, unknown outcomes, idempotency, bad input and visibility.
@Suite struct RefundTests {
    static let refundFields = """
        id reference status providerRefundId needsReconciliation reason note amount { amount currency }
        payment { id status amountRefunded { amount } } order { id status amountRefunded { amount } }
        """

    static let createRefund = """
        mutation($p: ID!, $a: MoneyInput, $r: String, $n: String, $k: String) {
          createRefund(input: {paymentId: $p, amount: $a, reference: $r, note: $n, idempotencyKey: $k}) {
            refund { \(refundFields) } userErrors { code message field provider retryable } } }
        """

    /// A refund call: `amount` in paise (nil refunds all that is left).
    static func refund(_ h: GatewayHarness, payment: String, amount: String? = nil, reference: String? = nil, note: String? = nil,
                       key: String? = nil, apiKey: String?? = .none) async throws -> GatewayHarness.Answer {
        try await h.graphQL(createRefund, variables: [
            "p": .string(payment), "a": amount.map { .object(["amount": .string($0)]) } ?? .null,
            "r": reference.map(JSONValue.string) ?? .null, "n": note.map(JSONValue.string) ?? .null,
            "k": key.map(JSONValue.string) ?? .null,
        ], key: apiKey)
    }

    /// An order of `amount` paise at `provider`, paid in the sandbox and confirmed by PayQL; returns (order id, payment id).
    static func paidOrder(_ h: GatewayHarness, provider: String, amount: String = "50000") async throws -> (order: String, payment: String) {
        let customer = try await OrderLifecycleTests.createCustomer(h, phone: "98\(Int.random(in: 10_000_000...99_999_999))")
        let extra = provider == "INSTAMOJO" ? #"returnUrl: "https://shop.example/done""# : ""
        let created = try await OrderLifecycleTests.createOrder(h, provider: provider, amount: amount, customer: customer, extra: extra)
        let id = try #require(created["id"]?.stringValue)
        switch provider {
        case "RAZORPAY":
            try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
        case "CASHFREE":
            try await h.complete("cashfree", order: try #require(created["receipt"]?.stringValue))
        default:
            try await h.complete("instamojo", order: try #require(created["checkout"]?["gatewayOrderId"]?.stringValue))
            // Instamojo confirms gateway orders by a status check (OrderLifecycleTests), which also reads their payments.
            _ = try await h.graphQL("mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { status } } }", variables: ["o": .string(id)])
        }
        var paymentID: String?
        let paid = try await h.eventually {
            let order = try await OrderLifecycleTests.order(h, id)
            let payments = try await h.graphQL("query($id: ID!) { order(id: $id) { payments { id status } } }", variables: ["id": .string(id)])
            paymentID = payments.data("order")?["payments"]?.arrayValue?.first(where: { $0["status"]?.stringValue == "CAPTURED" })?["id"]?.stringValue
            return order["status"]?.stringValue == "PAID" && paymentID != nil
        }
        #expect(paid, "the \(provider) order was not paid")
        return (id, try #require(paymentID))
    }

    /// `Authorization: Basic …` value for the sandbox's Razorpay API (to count what Razorpay holds).
    static func razorpayBasic(_ h: GatewayHarness) -> String {
        Data("\(h.sandbox.credentials.razorpayKeyID):\(h.sandbox.credentials.razorpayKeySecret)".utf8).base64EncodedString()
    }

    /// The refund payload, with no user error expected.
    static func refunded(_ answer: GatewayHarness.Answer) throws -> JSONValue {
        #expect(answer.userErrorCodes("createRefund") == [], "\(answer.json)")
        return try #require(answer.data("createRefund")?["refund"])
    }

    /// A partial refund, then the rest (no amount): amounts, statuses and the timeline on `provider`.
    static func fullAndPartial(provider: String, amount: Int64, partial: Int64, note: String? = nil) async throws {
        try await GatewayHarness.run { h in
            let (order, payment) = try await Self.paidOrder(h, provider: provider, amount: String(amount))
            let first = try refunded(try await refund(h, payment: payment, amount: String(partial), note: note))
            #expect(first["status"]?.stringValue == "SUCCEEDED")
            #expect(first["needsReconciliation"]?.boolValue == false)
            #expect(first["amount"]?["amount"]?.stringValue == String(partial))
            #expect(first["reference"]?.stringValue?.hasPrefix("rf_") == true)
            #expect(first["providerRefundId"]?.stringValue?.isEmpty == false)
            #expect(first["payment"]?["status"]?.stringValue == "PARTIALLY_REFUNDED")
            #expect(first["payment"]?["amountRefunded"]?["amount"]?.stringValue == String(partial))
            // Refunds do not change the order's status (decision 10); its amountRefunded does.
            #expect(first["order"]?["status"]?.stringValue == "PAID")
            #expect(first["order"]?["amountRefunded"]?["amount"]?.stringValue == String(partial))

            let rest = try refunded(try await refund(h, payment: payment))
            #expect(rest["status"]?.stringValue == "SUCCEEDED")
            #expect(rest["amount"]?["amount"]?.stringValue == String(amount - partial))
            #expect(rest["payment"]?["status"]?.stringValue == "REFUNDED")
            #expect(rest["payment"]?["amountRefunded"]?["amount"]?.stringValue == String(amount))
            #expect(rest["order"]?["status"]?.stringValue == "PAID")
            #expect(rest["order"]?["amountRefunded"]?["amount"]?.stringValue == String(amount))

            // Nothing is left to refund.
            let again = try await refund(h, payment: payment, amount: "100")
            #expect(again.userErrorCodes("createRefund") == ["INVALID_STATE"])

            let read = try await h.graphQL("""
                query($id: ID!) { order(id: $id) { status amountRefunded { amount } refunds { id status }
                  payments { refunds { id } } timeline { kind refund { id } } } }
                """, variables: ["id": .string(order)])
            let readOrder = try #require(read.data("order"))
            #expect(readOrder["refunds"]?.arrayValue?.count == 2)
            #expect(readOrder["payments"]?.arrayValue?.first?["refunds"]?.arrayValue?.count == 2)
            let kinds = readOrder["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
            #expect(kinds.filter { $0 == "REFUND_CREATED" }.count == 2)
            #expect(kinds.filter { $0 == "REFUND_UPDATED" }.count >= 2)
            #expect(readOrder["timeline"]?.arrayValue?.contains { $0["refund"]?["id"]?.stringValue == first["id"]?.stringValue } == true)
            let byID = try await h.graphQL("query($id: ID!) { refund(id: $id) { id status payment { id } order { id } } }",
                                           variables: ["id": try #require(first["id"])])
            #expect(byID.data("refund")?["payment"]?["id"]?.stringValue == payment)
            #expect(byID.data("refund")?["order"]?["id"]?.stringValue == order)
        }
    }

    @Test func razorpayFullAndPartialRefunds() async throws {
        try await Self.fullAndPartial(provider: "RAZORPAY", amount: 50000, partial: 20000)
    }

    @Test func cashfreeFullAndPartialRefunds() async throws {
        try await Self.fullAndPartial(provider: "CASHFREE", amount: 17000, partial: 5000, note: "damaged box")
    }

    @Test func instamojoFullAndPartialRefunds() async throws {
        try await Self.fullAndPartial(provider: "INSTAMOJO", amount: 50000, partial: 12345)
    }

    @Test func overRefundsAndBadInputAreRefusedAndWriteNothing() async throws {
        try await GatewayHarness.run { h in
            let (order, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let eventsBefore = try await h.count("order_events")
            #expect(try await Self.refund(h, payment: payment, amount: "50001").userErrorCodes("createRefund") == ["AMOUNT_MISMATCH"])
            #expect(try await Self.refund(h, payment: payment, amount: "0").userErrorCodes("createRefund") == ["INVALID_AMOUNT"])
            // Not MinorUnits: refused while the variables are coerced (a GraphQL error), before any resolver runs.
            #expect(try await Self.refund(h, payment: payment, amount: "1.5").errorCodes == ["BAD_USER_INPUT"])
            #expect(try await Self.refund(h, payment: payment, amount: "-1").errorCodes == ["BAD_USER_INPUT"])
            #expect(try await Self.refund(h, payment: payment, amount: "99").userErrorCodes("createRefund") == ["AMOUNT_OUT_OF_RANGE"])
            #expect(try await Self.refund(h, payment: payment, reference: "a b").userErrorCodes("createRefund") == ["VALIDATION_FAILED"])
            // An order's id where a payment's is expected, and a payment id that names nothing.
            let wrongType = try await Self.refund(h, payment: order, amount: "100")
            #expect(wrongType.userErrorCodes("createRefund") == ["NOT_FOUND"])
            let unknown = GlobalID(.payment, UUID()).description
            #expect(try await Self.refund(h, payment: unknown, amount: "100").userErrorCodes("createRefund") == ["NOT_FOUND"])
            #expect(try await h.count("refunds") == 0)
            #expect(try await h.count("order_events") == eventsBefore)
            // A used reference is ALREADY_EXISTS.
            _ = try Self.refunded(try await Self.refund(h, payment: payment, amount: "1000", reference: "merchant-ref-1"))
            #expect(try await Self.refund(h, payment: payment, amount: "1000", reference: "merchant-ref-1").userErrorCodes("createRefund") == ["ALREADY_EXISTS"])
            #expect(try await h.count("refunds") == 1)
        }
    }

    @Test func concurrentRefundsNeverExceedTheCapture() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            // Ten refunds of ₹70 against a ₹500 capture: seven fit, three must be refused.
            let answers = try await withThrowingTaskGroup(of: GatewayHarness.Answer.self) { group in
                for _ in 0..<10 { group.addTask { try await Self.refund(h, payment: payment, amount: "7000") } }
                var all: [GatewayHarness.Answer] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            let succeeded = answers.filter { $0.data("createRefund")?["refund"]?["status"]?.stringValue == "SUCCEEDED" }
            let refused = answers.filter { !$0.userErrorCodes("createRefund").isEmpty }
            #expect(succeeded.count == 7)
            #expect(refused.count == 3)
            #expect(refused.allSatisfy { $0.userErrorCodes("createRefund") == ["AMOUNT_MISMATCH"] })
            let total = try await h.pool.query("SELECT coalesce(sum(amount_minor), 0)::bigint FROM refunds WHERE status = 'SUCCEEDED'").single(Int64.self)
            #expect(total == 49000)
            let stored = try await h.pool.query("SELECT amount_refunded_minor, status FROM payments").single((Int64, String).self)
            #expect(stored?.0 == 49000)
            #expect(stored?.1 == "PARTIALLY_REFUNDED")
            // The sandbox (Razorpay's side) agrees: it refunded exactly what PayQL reserved.
            let last = try Self.refunded(try await Self.refund(h, payment: payment))
            #expect(last["amount"]?["amount"]?.stringValue == "1000")
            #expect(last["payment"]?["status"]?.stringValue == "REFUNDED")
        }
    }

    @Test func cashfreeRefundWebhooksMoveAPendingRefund() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "CASHFREE", amount: "17000")
            // In Cashfree's sandbox the note picks the outcome: PENDING waits for the control API.
            let pending = try Self.refunded(try await Self.refund(h, payment: payment, amount: "7000", note: "PENDING"))
            #expect(pending["status"]?.stringValue == "PENDING")
            #expect(pending["needsReconciliation"]?.boolValue == false)
            #expect(pending["payment"]?["amountRefunded"]?["amount"]?.stringValue == "0")
            let id = try #require(pending["id"]?.stringValue)
            let reference = try #require(pending["reference"]?.stringValue)
            let receipt = try #require(try await h.pool.query("SELECT receipt FROM orders").single(String.self))
            // The pending refund is reserved: only ₹100 is left.
            #expect(try await Self.refund(h, payment: payment, amount: "10001").userErrorCodes("createRefund") == ["AMOUNT_MISMATCH"])

            let control = try await h.sandboxControl("/cashfree/orders/\(receipt)/refunds/\(reference)/complete", body: #"{"status":"success"}"#)
            #expect(control["webhooks"]?.arrayValue?.first?["status"]?.intValue == 200)
            let read = "query($id: ID!) { refund(id: $id) { status processedAt payment { status amountRefunded { amount } } order { amountRefunded { amount } } } }"
            #expect(try await h.eventually {
                try await h.graphQL(read, variables: ["id": .string(id)]).data("refund")?["status"]?.stringValue == "SUCCEEDED"
            })
            let done = try await h.graphQL(read, variables: ["id": .string(id)]).data("refund")
            #expect(done?["processedAt"]?.stringValue != nil)
            #expect(done?["payment"]?["status"]?.stringValue == "PARTIALLY_REFUNDED")
            #expect(done?["payment"]?["amountRefunded"]?["amount"]?.stringValue == "7000")
            #expect(done?["order"]?["amountRefunded"]?["amount"]?.stringValue == "7000")
            let linked = try await h.pool.query("SELECT count(*) FROM webhook_events WHERE refund_id IS NOT NULL AND outcome = 'APPLIED'").single(Int64.self)
            #expect(linked == 1)

            // A refund that fails at the provider releases its reservation.
            let second = try Self.refunded(try await Self.refund(h, payment: payment, amount: "10000", note: "PENDING"))
            let secondID = try #require(second["id"]?.stringValue)
            try await h.sandboxControl("/cashfree/orders/\(receipt)/refunds/\(try #require(second["reference"]?.stringValue))/complete",
                                       body: #"{"status":"failed"}"#)
            #expect(try await h.eventually {
                try await h.graphQL(read, variables: ["id": .string(secondID)]).data("refund")?["status"]?.stringValue == "FAILED"
            })
            let rest = try Self.refunded(try await Self.refund(h, payment: payment))
            #expect(rest["amount"]?["amount"]?.stringValue == "10000")
            #expect(rest["payment"]?["status"]?.stringValue == "REFUNDED")
            let kinds = try await h.pool.query("""
                SELECT kind FROM order_events WHERE source = 'WEBHOOK' AND refund_id = ANY(\([id, secondID].compactMap { GlobalID($0, of: .refund)?.uuid.uuidString })::uuid[])
                """).decode(String.self)
            #expect(kinds == ["REFUND_UPDATED", "REFUND_UPDATED"])
        }
    }

    @Test func razorpayRefundWebhooksAreMatchedToTheRefund() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let refund = try Self.refunded(try await Self.refund(h, payment: payment, amount: "15000"))
            let providerRefundID = try #require(refund["providerRefundId"]?.stringValue)
            #expect(providerRefundID.hasPrefix("rfnd_"))
            // refund.created and refund.processed arrive (in any order, maybe before the API answer): both land on the refund.
            #expect(try await h.eventually {
                try await h.pool.query("SELECT count(*) FROM webhook_events WHERE refund_id IS NOT NULL").single(Int64.self) == 2
            })
            let types = try await h.pool.query("SELECT event_type FROM webhook_events WHERE refund_id IS NOT NULL ORDER BY event_type").decode(String.self)
            #expect(types == ["refund.created", "refund.processed"])
            // Applied once: the payment's refunded amount is the refund's, not twice it.
            let stored = try await h.pool.query("SELECT amount_refunded_minor FROM payments").single(Int64.self)
            #expect(stored == 15000)
        }
    }

    @Test func anUnknownProviderOutcomeLeavesThePendingRefundReservedAndReplaysIt() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            // Every refund call answers 500 (the retries too): the outcome is unknown.
            try await h.sandboxControl("/faults", body: #"{"route": "POST /razorpay/v1/payments/*/refund", "kind": "status", "status": 500}"#)
            let lost = try await Self.refund(h, payment: payment, amount: "20000", key: "refund-attempt-1")
            #expect(lost.userErrorCodes("createRefund") == ["PROVIDER_TIMEOUT"])
            let refund = try #require(lost.data("createRefund")?["refund"])
            #expect(refund["status"]?.stringValue == "PENDING")
            #expect(refund["needsReconciliation"]?.boolValue == true)
            #expect(refund["providerRefundId"] == .null)
            // Still reserved: the rest of the payment is all that can be refunded meanwhile.
            #expect(try await Self.refund(h, payment: payment, amount: "30001").userErrorCodes("createRefund") == ["AMOUNT_MISMATCH"])
            // The client's retry with the same key returns the same refund, nothing is sent again.
            let retried = try await Self.refund(h, payment: payment, amount: "20000", key: "refund-attempt-1")
            #expect(retried.userErrorCodes("createRefund") == [])
            #expect(retried.data("createRefund")?["refund"]?["id"] == refund["id"])
            #expect(try await h.count("refunds") == 1)
            let flagged = try await h.pool.query("SELECT kind FROM order_events WHERE refund_id IS NOT NULL ORDER BY id").decode(String.self)
            #expect(flagged == ["REFUND_CREATED", "REFUND_UPDATED"])

            // Razorpay answers again: syncOrder re-sends the same request with the same X-Refund-Idempotency key.
            try await h.sandboxControl("/faults", method: "DELETE")
            let orderID = try #require(refund["order"]?["id"]?.stringValue)
            let synced = try await h.graphQL("""
                mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { amountRefunded { amount } refunds { id status needsReconciliation providerRefundId } } userErrors { code } } }
                """, variables: ["o": .string(orderID)])
            #expect(synced.userErrorCodes("syncOrder") == [])
            let reconciled = try #require(synced.data("syncOrder")?["order"]?["refunds"]?.arrayValue?.first)
            #expect(reconciled["id"] == refund["id"])
            #expect(reconciled["status"]?.stringValue == "SUCCEEDED")
            #expect(reconciled["needsReconciliation"]?.boolValue == false)
            #expect(reconciled["providerRefundId"]?.stringValue?.hasPrefix("rfnd_") == true)
            #expect(synced.data("syncOrder")?["order"]?["amountRefunded"]?["amount"]?.stringValue == "20000")
            // Syncing again asks nothing more: the refund is final, and Razorpay made exactly one.
            _ = try await h.graphQL("mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { id } } }", variables: ["o": .string(orderID)])
            let atRazorpay = try await h.client.execute(.init(
                method: "GET", url: h.sandbox.baseURL(for: .razorpay) + "/v1/payments/\(try #require(try await h.pool.query("SELECT provider_payment_id FROM payments").single(String.self)))/refunds",
                headers: [("authorization", "Basic " + Self.razorpayBasic(h))]))
            #expect(try JSONParser.parse(atRazorpay.body)["count"]?.intValue == 1)
            #expect(try await h.count("refunds") == 1)
        }
    }

    @Test func aProviderThatIsUnreachableKeepsNothing() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "CASHFREE", amount: "17000")
            try await h.sandboxControl("/faults", body: #"{"route": "POST /cashfree/pg/orders/*/refunds", "kind": "rate_limit", "retry_after": 1}"#)
            let throttled = try await Self.refund(h, payment: payment, amount: "1000", reference: "retry-me-later", key: "k-throttled")
            #expect(throttled.userErrorCodes("createRefund") == ["PROVIDER_RATE_LIMITED"])
            #expect(throttled.data("createRefund")?["userErrors"]?.arrayValue?.first?["retryable"]?.boolValue == true)
            #expect(try await h.count("refunds") == 0)
            try await h.sandboxControl("/faults", method: "DELETE")
            // The key was released and the reference is free: the retry does the work.
            let retried = try Self.refunded(try await Self.refund(h, payment: payment, amount: "1000", reference: "retry-me-later", key: "k-throttled"))
            #expect(retried["status"]?.stringValue == "SUCCEEDED")
        }
    }

    @Test func theSameIdempotencyKeyReturnsTheSameRefund() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let first = try Self.refunded(try await Self.refund(h, payment: payment, amount: "10000", key: "refund-key-42"))
            let second = try Self.refunded(try await Self.refund(h, payment: payment, amount: "10000", key: "refund-key-42"))
            #expect(second["id"] == first["id"])
            #expect(second["reference"] == first["reference"])
            #expect(try await h.count("refunds") == 1)
            let header = try await h.graphQL(Self.createRefund, variables: ["p": .string(payment), "a": .object(["amount": "10000"]),
                                                                            "r": .null, "n": .null, "k": .null],
                                             headers: [("idempotency-key", "refund-key-42")])
            #expect(header.data("createRefund")?["refund"]?["id"] == first["id"])
            let other = try await Self.refund(h, payment: payment, amount: "20000", key: "refund-key-42")
            #expect(other.userErrorCodes("createRefund") == ["IDEMPOTENCY_KEY_REUSED"])
            #expect(try await h.count("refunds") == 1)
            let stored = try await h.pool.query("SELECT amount_refunded_minor FROM payments").single(Int64.self)
            #expect(stored == 10000)
        }
    }

    @Test func clientSessionsCannotRefundNorSeeAnotherCustomersPayments() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let refund = try Self.refunded(try await Self.refund(h, payment: payment, amount: "1000"))
            let mine = try await OrderLifecycleTests.createCustomer(h, phone: "9000000009")
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { token } userErrors { code } } }
                """, variables: ["c": .string(mine)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            // Refunds need SECRET or OPS: refused before execution.
            let forbidden = try await Self.refund(h, payment: payment, amount: "1000", apiKey: token)
            #expect(forbidden.status == 403)
            #expect(forbidden.errorCodes == ["FORBIDDEN"])
            // Another customer's payment and refund are null for the session.
            let hidden = try await h.graphQL("query($p: ID!, $r: ID!) { payment(id: $p) { id } refund(id: $r) { id } node(id: $r) { id } }",
                                             variables: ["p": .string(payment), "r": try #require(refund["id"])], key: token)
            #expect(hidden.data("payment") == .null)
            #expect(hidden.data("refund") == .null)
            #expect(hidden.data("node") == .null)
            // An OPS key may refund (the ops page).
            let ops = try Self.refunded(try await Self.refund(h, payment: payment, amount: "1000", apiKey: h.opsKey))
            #expect(ops["status"]?.stringValue == "SUCCEEDED")
            #expect(try await h.count("refunds") == 2)
        }
    }

    @Test func instantRefundsWhereTheProviderHasThem() async throws {
        try await GatewayHarness.run { h in
            let instant = """
                mutation($p: ID!) { createRefund(input: {paymentId: $p, amount: {amount: "1000"}, speed: INSTANT}) {
                  refund { status speedRequested } userErrors { code field } } }
                """
            for provider in ["RAZORPAY", "CASHFREE"] {
                let (_, payment) = try await Self.paidOrder(h, provider: provider, amount: "17000")
                let answer = try await h.graphQL(instant, variables: ["p": .string(payment)])
                #expect(answer.userErrorCodes("createRefund") == [], "\(provider): \(answer.json)")
                #expect(answer.data("createRefund")?["refund"]?["speedRequested"]?.stringValue == "INSTANT")
                #expect(answer.data("createRefund")?["refund"]?["status"]?.stringValue == "SUCCEEDED")
                // NORMAL is every provider's default and is not sent.
                let normal = try Self.refunded(try await Self.refund(h, payment: payment, amount: "1000"))
                #expect(normal["status"]?.stringValue == "SUCCEEDED")
            }
            let (_, instamojo) = try await Self.paidOrder(h, provider: "INSTAMOJO", amount: "17000")
            let refused = try await h.graphQL(instant, variables: ["p": .string(instamojo)])
            #expect(refused.userErrorCodes("createRefund") == ["CAPABILITY_NOT_SUPPORTED"])
            let speeds = try await h.pool.query("SELECT speed_requested FROM refunds ORDER BY created_at").decode(String?.self)
            #expect(speeds == ["INSTANT", nil, "INSTANT", nil])
        }
    }

    @Test func paymentsAndRefundsListWithFiltersAndKeysetCursors() async throws {
        try await GatewayHarness.run { h in
            let (razorpayOrder, razorpayPayment) = try await Self.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let (_, cashfreePayment) = try await Self.paidOrder(h, provider: "CASHFREE", amount: "17000")
            for amount in ["1000", "2000", "3000"] { _ = try Self.refunded(try await Self.refund(h, payment: razorpayPayment, amount: amount)) }
            _ = try Self.refunded(try await Self.refund(h, payment: cashfreePayment, amount: "500", note: "PENDING"))

            let payments = try await h.graphQL("""
                query($o: ID) { all: payments { nodes { id } } razorpay: payments(filter: {provider: [RAZORPAY]}) { nodes { id provider } }
                  byOrder: payments(filter: {orderId: $o, status: [PARTIALLY_REFUNDED]}) { nodes { id } }
                  wrongType: payments(filter: {orderId: "\(razorpayPayment)"}) { nodes { id } } }
                """, variables: ["o": .string(razorpayOrder)])
            #expect(payments.data("all")?["nodes"]?.arrayValue?.count == 2)
            #expect(payments.data("razorpay")?["nodes"]?.arrayValue?.map { $0["id"] } == [.string(razorpayPayment)])
            #expect(payments.data("byOrder")?["nodes"]?.arrayValue?.map { $0["id"] } == [.string(razorpayPayment)])
            #expect(payments.data("wrongType")?["nodes"]?.arrayValue?.isEmpty == true)

            let refunds = try await h.graphQL("""
                query($p: ID) { pending: refunds(filter: {status: [PENDING]}) { nodes { provider amount { amount } } }
                  ofPayment: refunds(filter: {paymentId: $p, initiatedBy: [MERCHANT]}, order: OLDEST_FIRST) { nodes { amount { amount } } } }
                """, variables: ["p": .string(razorpayPayment)])
            #expect(refunds.data("pending")?["nodes"]?.arrayValue?.map { $0["provider"] } == ["CASHFREE"])
            #expect(refunds.data("ofPayment")?["nodes"]?.arrayValue?.map { $0["amount"]?["amount"] } == ["1000", "2000", "3000"])

            // Keyset pages of one, newest first, cover every refund once.
            var seen: [String] = []
            var after: JSONValue = .null
            for _ in 0..<5 {
                let page = try await h.graphQL("""
                    query($after: String) { refunds(first: 1, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }
                    """, variables: ["after": after])
                let connection = try #require(page.data("refunds"))
                seen += connection["edges"]?.arrayValue?.compactMap { $0["node"]?["id"]?.stringValue } ?? []
                guard connection["pageInfo"]?["hasNextPage"]?.boolValue == true else { break }
                after = connection["pageInfo"]?["endCursor"] ?? .null
            }
            #expect(seen.count == 4)
            #expect(Set(seen).count == 4)
            // The lists are for SECRET and OPS keys only.
            let publishable = try await h.graphQL("{ refunds { nodes { id } } }", key: h.publishableKey)
            #expect(publishable.status == 403)
        }
    }
}
