import Foundation
import HTTPClient
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import JSON
import Testing

/// An order's whole life through real HTTP `/graphql`, real PostgreSQL and the sandbox providers.
@Suite struct OrderLifecycleTests {
    static let orderFields = """
        id receipt provider providerOrderId status needsReconciliation amount { amount decimal currency } amountPaid { amount }
        checkout { __typename ... on RazorpayCheckout { keyId orderId amount { amount } prefill { name email contact } }
                   ... on CashfreeCheckout { orderId paymentSessionId environment } ... on InstamojoCheckout { gatewayOrderId paymentUrl } }
        customer { id name }
        payments { providerPaymentId status verified verification { method } amount { amount } }
        timeline { kind status source }
        """

    static func createCustomer(_ h: GatewayHarness, phone: String = "9876543210") async throws -> String {
        let answer = try await h.graphQL("""
            mutation($p: PhoneNumber) { createCustomer(input: {name: "Asha Rao", email: "asha@example.com", phone: $p}) {
              customer { id phone } existing userErrors { code message } } }
            """, variables: ["p": .string(phone)])
        #expect(answer.userErrorCodes("createCustomer") == [])
        return try #require(answer.data("createCustomer")?["customer"]?["id"]?.stringValue)
    }

    static func createOrder(_ h: GatewayHarness, provider: String, amount: String = "50000", customer: String? = nil,
                            extra: String = "") async throws -> JSONValue {
        let answer = try await h.graphQL("""
            mutation($c: ID) { createOrder(input: {amount: {amount: "\(amount)"}, provider: \(provider), customerId: $c \(extra)}) {
              order { \(orderFields) } userErrors { code message field } } }
            """, variables: ["c": customer.map(JSONValue.string) ?? .null])
        #expect(answer.status == 200)
        #expect(answer.userErrorCodes("createOrder") == [], "\(answer.json)")
        return try #require(answer.data("createOrder")?["order"])
    }

    static func order(_ h: GatewayHarness, _ id: String) async throws -> JSONValue {
        let answer = try await h.graphQL("query($id: ID!) { order(id: $id) { \(orderFields) } }", variables: ["id": .string(id)])
        return try #require(answer.data("order"))
    }

    @Test func razorpayOrderIsPaidByItsSignedWebhooks() async throws {
        try await GatewayHarness.run { h in
            let customer = try await Self.createCustomer(h)
            let created = try await Self.createOrder(h, provider: "RAZORPAY", customer: customer)
            #expect(created["status"]?.stringValue == "CREATED")
            #expect(created["checkout"]?["__typename"]?.stringValue == "RazorpayCheckout")
            #expect(created["checkout"]?["prefill"]?["contact"]?.stringValue == "+919876543210")
            let providerOrderID = try #require(created["providerOrderId"]?.stringValue)
            #expect(providerOrderID.hasPrefix("order_"))
            #expect(created["checkout"]?["orderId"]?.stringValue == providerOrderID)
            let id = try #require(created["id"]?.stringValue)

            try await h.complete("razorpay", order: providerOrderID)
            let paid = try await h.eventually { try await Self.order(h, id)["status"]?.stringValue == "PAID" }
            #expect(paid)
            let order = try await Self.order(h, id)
            #expect(order["amountPaid"]?["amount"]?.stringValue == "50000")
            let payments = try #require(order["payments"]?.arrayValue)
            #expect(payments.count == 1)
            #expect(payments.first?["status"]?.stringValue == "CAPTURED")
            #expect(payments.first?["verified"]?.boolValue == true)
            #expect(payments.first?["verification"]?["method"]?.stringValue == "SIGNED_WEBHOOK")
            let kinds = order["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
            #expect(kinds.first == "CREATED")
            #expect(kinds.contains("PAYMENT_CAPTURED"))
            #expect(order["timeline"]?.arrayValue?.last?["status"]?.stringValue == "PAID")
        }
    }

    @Test func razorpayVerificationChecksTheSignatureOverTheStoredOrder() async throws {
        try await GatewayHarness.run { h in
            let created = try await Self.createOrder(h, provider: "RAZORPAY")
            let id = try #require(created["id"]?.stringValue)
            let providerOrderID = try #require(created["providerOrderId"]?.stringValue)
            let completion = try await h.complete("razorpay", order: providerOrderID)
            let checkout = try #require(completion["checkout"])
            let paymentID = try #require(checkout["razorpay_payment_id"]?.stringValue)
            let signature = try #require(checkout["razorpay_signature"]?.stringValue)
            let verify = """
                mutation($o: ID!, $p: String!, $ro: String!, $s: String!) { verifyOrderPayment(input: {orderId: $o, clientOutcome: SUCCESS_CALLBACK,
                  razorpay: {razorpayPaymentId: $p, razorpayOrderId: $ro, razorpaySignature: $s}}) {
                  verified order { status } payment { providerPaymentId status } userErrors { code field } } }
                """
            // A forged signature is refused and changes nothing it would not change anyway.
            let forged = try await h.graphQL(verify, variables: ["o": .string(id), "p": .string(paymentID), "ro": .string(providerOrderID),
                                                                 "s": .string(String(repeating: "0", count: 64))])
            #expect(forged.userErrorCodes("verifyOrderPayment") == ["SIGNATURE_MISMATCH"])
            #expect(forged.data("verifyOrderPayment")?["verified"]?.boolValue == false)
            // The right signature but another order's id: the stored order id is what is signed.
            let other = try await Self.createOrder(h, provider: "RAZORPAY")
            let swapped = try await h.graphQL(verify, variables: ["o": .string(try #require(other["id"]?.stringValue)), "p": .string(paymentID),
                                                                  "ro": .string(providerOrderID), "s": .string(signature)])
            #expect(swapped.userErrorCodes("verifyOrderPayment") == ["SIGNATURE_MISMATCH"])
            let good = try await h.graphQL(verify, variables: ["o": .string(id), "p": .string(paymentID), "ro": .string(providerOrderID),
                                                               "s": .string(signature)])
            #expect(good.userErrorCodes("verifyOrderPayment") == [])
            #expect(good.data("verifyOrderPayment")?["verified"]?.boolValue == true)
            #expect(good.data("verifyOrderPayment")?["order"]?["status"]?.stringValue == "PAID")
            #expect(good.data("verifyOrderPayment")?["payment"]?["providerPaymentId"]?.stringValue == paymentID)
        }
    }

    @Test func cashfreeOrderGivesThePaymentSessionAndIsPaidByWebhook() async throws {
        try await GatewayHarness.run { h in
            let customer = try await Self.createCustomer(h, phone: "+919812345678")
            let created = try await Self.createOrder(h, provider: "CASHFREE", amount: "17000", customer: customer)
            #expect(created["checkout"]?["__typename"]?.stringValue == "CashfreeCheckout")
            let session = created["checkout"]?["paymentSessionId"]?.stringValue ?? ""
            #expect(!session.isEmpty)
            // Cashfree's order_id is PayQL's receipt: the one reference every provider gets.
            let receipt = try #require(created["receipt"]?.stringValue)
            #expect(created["providerOrderId"]?.stringValue == receipt)
            try await h.complete("cashfree", order: receipt)
            let id = try #require(created["id"]?.stringValue)
            #expect(try await h.eventually { try await Self.order(h, id)["status"]?.stringValue == "PAID" })
            let synced = try await h.graphQL("mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { status payments { status } } userErrors { code } } }",
                                             variables: ["o": .string(id)])
            #expect(synced.data("syncOrder")?["order"]?["status"]?.stringValue == "PAID")
            #expect(synced.data("syncOrder")?["order"]?["payments"]?.arrayValue?.count == 1)
        }
    }

    @Test func instamojoNeedsTheBuyerAndAReturnURLThenIsPaidByWebhook() async throws {
        try await GatewayHarness.run { h in
            let missing = try await h.graphQL("""
                mutation { createOrder(input: {amount: {amount: "50000"}, provider: INSTAMOJO, returnUrl: "https://shop.example/done"}) {
                  order { id } userErrors { code field } } }
                """)
            #expect(missing.userErrorCodes("createOrder") == ["REQUIRED"])
            #expect(try await h.count("orders") == 0)
            let customer = try await Self.createCustomer(h)
            let created = try await Self.createOrder(h, provider: "INSTAMOJO", customer: customer, extra: #"returnUrl: "https://shop.example/done""#)
            #expect(created["checkout"]?["__typename"]?.stringValue == "InstamojoCheckout")
            #expect(created["checkout"]?["paymentUrl"]?.stringValue?.hasPrefix("http") == true)
            let gatewayOrder = try #require(created["checkout"]?["gatewayOrderId"]?.stringValue)
            try await h.complete("instamojo", order: gatewayOrder)
            // Instamojo's webhook for a gateway order names no gateway order (the reference documents payment-request
            // webhooks only; see docs/sandbox.md): PayQL confirms gateway orders by a status check.
            let id = try #require(created["id"]?.stringValue)
            let synced = try await h.graphQL("mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { status } userErrors { code } } }",
                                             variables: ["o": .string(id)])
            #expect(synced.userErrorCodes("syncOrder") == [])
            #expect(try await Self.order(h, id)["status"]?.stringValue == "PAID")
        }
    }

    @Test func redeliveredAndOutOfOrderWebhooksLeaveTheSameFinalState() async throws {
        try await GatewayHarness.run { h in
            let created = try await Self.createOrder(h, provider: "RAZORPAY")
            let id = try #require(created["id"]?.stringValue)
            let completion = try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await Self.order(h, id)["status"]?.stringValue == "PAID" })
            let eventsBefore = try await h.count("webhook_events")
            let timelineBefore = try await h.count("order_events")
            // Redeliver every webhook, the first one (payment.authorized) last: nothing moves back, nothing is applied twice.
            let deliveries = completion["webhooks"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(deliveries.count == 3)
            for delivery in deliveries.reversed() {
                try await h.sandboxControl("/webhooks/\(delivery)/redeliver")
            }
            #expect(try await h.count("webhook_events") == eventsBefore)
            #expect(try await h.count("order_events") == timelineBefore)
            let deliveriesCounted = try await h.pool.query("SELECT sum(deliveries)::bigint FROM webhook_events").single(Int64.self)
            #expect(deliveriesCounted == eventsBefore * 2)
            #expect(try await Self.order(h, id)["status"]?.stringValue == "PAID")
        }
    }

    @Test func aBadWebhookSignatureIs401AndNothingIsApplied() async throws {
        try await GatewayHarness.run { h in
            let body = Array(#"{"event":"payment.captured","payload":{}}"#.utf8)
            let response = try await h.client.execute(.init(method: "POST", url: h.baseURL + "/webhooks/razorpay",
                                                            headers: [("x-razorpay-signature", String(repeating: "a", count: 64)),
                                                                      ("content-type", "application/json")], body: body))
            #expect(response.status == 401)
            #expect(try await h.count("webhook_events") == 0)
            #expect(try await h.count("webhook_rejections") == 1)
            let unknown = try await h.client.execute(.init(method: "POST", url: h.baseURL + "/webhooks/paypal", body: body))
            #expect(unknown.status == 404)
            let get = try await h.client.execute(.init(method: "GET", url: h.baseURL + "/webhooks/razorpay"))
            #expect(get.status == 405)
            #expect(get.headers.first { $0.name.lowercased() == "allow" }?.value == "POST")
        }
    }
}
