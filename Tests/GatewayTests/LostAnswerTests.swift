import Foundation
@testable import Gateway
import HTTPClient
import JSON
import PaymentsCore
import Postgres
import Providers
import Sandbox
import Testing

/// The create-at-provider protocol when the provider does the work and the answer is lost
/// (the sandbox's `*_after` faults): the order is kept with `needsReconciliation`, found
/// again by its receipt, never duplicated; and when the provider cannot be reached at all,
/// nothing is kept.
@Suite struct LostAnswerTests {
    /// Each way of losing the answer to Razorpay's `POST /v1/orders` (createOrder reports each as
    /// PROVIDER_TIMEOUT: the outcome is unknown).
    static let losses = [
        #""kind":"drop_after""#, #""kind":"timeout_after","ms":3000"#, #""kind":"status_after","status":502"#, #""kind":"malformed_after""#,
    ]

    /// A shorter attempt than the `timeout_after` hold, so the client gives up first.
    static let transport = ProviderTransportSettings(attemptTimeout: .milliseconds(800), operationDeadline: .seconds(3))

    @Test(arguments: 0..<4)
    func lostCreationIsReconciledByReceiptWithoutADuplicate(_ index: Int) async throws {
        let fault = Self.losses[index]
        try await GatewayHarness.run(transport: Self.transport) { h in
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders",\#(fault),"times":1}"#)
            // The immediate look-up by receipt fails too, so the order is left to the reconciler.
            try await h.sandboxControl("/faults", body: #"{"route":"GET /razorpay/v1/orders","kind":"status","status":503}"#)
            let receipt = "lost_\(index)_\(UUID().uuidString.prefix(8))"
            let answer = try await h.createOrder(receipt: receipt)
            #expect(answer.userErrorCodes("createOrder") == ["PROVIDER_TIMEOUT"], "\(answer.json)")
            let created = try #require(answer.data("createOrder")?["order"])
            #expect(created["needsReconciliation"]?.boolValue == true)
            #expect(created["providerOrderId"]?.isNull == true)
            #expect(created["receipt"]?.stringValue == receipt)
            let id = try #require(created["id"]?.stringValue)

            // The provider did create it, once.
            try await h.sandboxControl("/faults", method: "DELETE")
            let atProvider = try await h.razorpayOrders(receipt: receipt)
            #expect(atProvider.count == 1)
            let providerOrderID = try #require(atProvider.first?["id"]?.stringValue)

            let clock = TestClock()
            clock.advance(.seconds(10))
            let log = ReconcilerLog()
            let reconciler = h.reconciler(clock: clock, log: log)
            #expect(try await reconciler.runOnce() == 1)
            #expect(log.failures == [])
            let reconciled = try #require(try await h.order(id))
            #expect(reconciled["providerOrderId"]?.stringValue == providerOrderID)
            #expect(reconciled["needsReconciliation"]?.boolValue == false)
            #expect(reconciled["status"]?.stringValue == "CREATED")
            // The checkout the app needs is there now.
            #expect(reconciled["checkout"]?["orderId"]?.stringValue == providerOrderID)
            #expect(try await h.razorpayOrders(receipt: receipt).count == 1)
            // Paying it works like any order.
            try await h.complete("razorpay", order: providerOrderID)
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
        }
    }

    @Test func aLostOrderPaidBeforeItWasReconciledIsPaidAfterwards() async throws {
        try await GatewayHarness.run(transport: Self.transport) { h in
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"drop_after","times":1}"#)
            try await h.sandboxControl("/faults", body: #"{"route":"GET /razorpay/v1/orders","kind":"status","status":503}"#)
            let answer = try await h.createOrder(receipt: "paid_while_lost")
            let id = try #require(answer.data("createOrder")?["order"]?["id"]?.stringValue)
            try await h.sandboxControl("/faults", method: "DELETE")
            // The customer paid (the app got the order some other way): the webhooks name an order PayQL does not know yet.
            let providerOrderID = try #require(try await h.razorpayOrders(receipt: "paid_while_lost").first?["id"]?.stringValue)
            try await h.complete("razorpay", order: providerOrderID)
            #expect(try await h.order(id)?["status"]?.stringValue == "CREATED")
            let clock = TestClock()
            clock.advance(.seconds(10))
            let log = ReconcilerLog()
            #expect(try await h.reconciler(clock: clock, log: log).runOnce() == 1)
            #expect(log.failures == [])
            let order = try #require(try await h.order(id))
            #expect(order["status"]?.stringValue == "PAID")
            #expect(order["providerOrderId"]?.stringValue == providerOrderID)
            #expect(order["needsReconciliation"]?.boolValue == false)
        }
    }

    @Test func theImmediateLookUpByReceiptFindsTheOrderAtOnce() async throws {
        try await GatewayHarness.run(transport: Self.transport) { h in
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"status_after","times":1}"#)
            let answer = try await h.createOrder(receipt: "found_at_once")
            #expect(answer.userErrorCodes("createOrder") == [])
            let created = try #require(answer.data("createOrder")?["order"])
            #expect(created["needsReconciliation"]?.boolValue == false)
            let atProvider = try await h.razorpayOrders(receipt: "found_at_once")
            #expect(atProvider.count == 1)
            #expect(created["providerOrderId"]?.stringValue == atProvider.first?["id"]?.stringValue)
            #expect(created["checkout"]?["orderId"]?.stringValue == atProvider.first?["id"]?.stringValue)
        }
    }

    @Test func cashfreeLostAnswersEndInTheOneOrderNamedByTheReceipt() async throws {
        try await GatewayHarness.run(transport: Self.transport) { h in
            // Cashfree orders need a customer with a phone.
            let customer = try await OrderLifecycleTests.createCustomer(h)
            for (index, fault) in [#""kind":"drop_after""#, #""kind":"status_after""#, #""kind":"malformed_after""#].enumerated() {
                try await h.sandboxControl("/faults", body: #"{"route":"POST /cashfree/pg/orders",\#(fault),"times":1}"#)
                let receipt = "cf_lost_\(index)"
                let answer = try await h.createOrder(provider: "CASHFREE", amount: "17000", receipt: receipt, customer: customer)
                let created = try #require(answer.data("createOrder")?["order"], "\(answer.json)")
                let id = try #require(created["id"]?.stringValue)
                if created["needsReconciliation"]?.boolValue == true {
                    let clock = TestClock()
                    clock.advance(.seconds(10))
                    let log = ReconcilerLog()
                    #expect(try await h.reconciler(clock: clock, log: log).runOnce() >= 1)
                    #expect(log.failures == [])
                }
                // Cashfree's order_id is the receipt: one order at most, and PayQL has it with its payment session.
                let order = try #require(try await h.order(id))
                #expect(order["needsReconciliation"]?.boolValue == false, "\(fault)")
                #expect(order["providerOrderId"]?.stringValue == receipt)
                #expect(order["checkout"]?["paymentSessionId"]?.stringValue?.isEmpty == false)
            }
            #expect(try await h.count("orders") == 3)
        }
    }

    @Test func instamojoLostGatewayOrderIsFoundByItsTransactionID() async throws {
        try await GatewayHarness.run(transport: Self.transport) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            try await h.sandboxControl("/faults", body: #"{"route":"POST /instamojo/v2/gateway/orders","kind":"status_after","times":1}"#)
            try await h.sandboxControl("/faults", body: #"{"route":"GET /instamojo/v2/gateway/orders/*","kind":"status","status":503}"#)
            let answer = try await h.graphQL("""
                mutation($c: ID) { createOrder(input: {amount: {amount: "50000"}, provider: INSTAMOJO, customerId: $c, receipt: "imj_lost",
                                                       returnUrl: "https://shop.example/done"}) {
                  order { id needsReconciliation providerOrderId } userErrors { code } } }
                """, variables: ["c": .string(customer)])
            #expect(answer.userErrorCodes("createOrder") == ["PROVIDER_TIMEOUT"], "\(answer.json)")
            let id = try #require(answer.data("createOrder")?["order"]?["id"]?.stringValue)
            #expect(answer.data("createOrder")?["order"]?["needsReconciliation"]?.boolValue == true)
            try await h.sandboxControl("/faults", method: "DELETE")
            let clock = TestClock()
            clock.advance(.seconds(10))
            let log = ReconcilerLog()
            #expect(try await h.reconciler(clock: clock, log: log).runOnce() == 1)
            #expect(log.failures == [])
            let order = try #require(try await h.order(id))
            #expect(order["needsReconciliation"]?.boolValue == false)
            let providerOrderID = try #require(order["providerOrderId"]?.stringValue)
            // The one gateway order Instamojo holds for that transaction_id.
            let token = try await h.client.execute(.init(method: "POST", url: h.sandbox.baseURL(for: .instamojo) + "/oauth2/token/",
                                                         headers: [("content-type", "application/x-www-form-urlencoded")],
                                                         body: Array("grant_type=client_credentials&client_id=\(h.sandbox.credentials.instamojoClientID)&client_secret=\(h.sandbox.credentials.instamojoClientSecret)".utf8)))
            let bearer = try #require(try JSONParser.parse(token.body)["access_token"]?.stringValue)
            let found = try await h.client.execute(.init(method: "GET", url: h.sandbox.baseURL(for: .instamojo) + "/v2/gateway/orders/transaction_id:imj_lost/",
                                                         headers: [("authorization", "Bearer \(bearer)")]))
            let body = try JSONParser.parse(found.body)
            #expect((body["order"]?["id"] ?? body["id"])?.stringValue == providerOrderID, "\(body)")
        }
    }

    /// `OrderStore.markCreated` commits without waiting for its flush: a crash may lose that commit after
    /// the client was answered. The row is then as the pending insert left it (committed durably before
    /// the provider call); the reconciler flags it as an unfinished creation and finds the same provider
    /// order by its receipt — the one the client was given — without creating another.
    @Test func anAcknowledgedOrderWhoseLastCommitWasLostIsFoundAgainByItsReceipt() async throws {
        try await GatewayHarness.run { h in
            let answer = try await h.createOrder(receipt: "acknowledged_then_lost")
            #expect(answer.userErrorCodes("createOrder") == [])
            let created = try #require(answer.data("createOrder")?["order"])
            let id = try #require(created["id"]?.stringValue)
            let acknowledged = try #require(created["providerOrderId"]?.stringValue)
            // The crash's effect: the row without what markCreated wrote.
            let uuid = try #require(GlobalID(id, of: .order)).uuid
            _ = try await h.pool.query("""
                UPDATE orders SET provider_order_id = NULL, provider_status = NULL, client_payload = '{}', last_synced_at = NULL
                WHERE id = \(uuid)
                """)
            let clock = TestClock()
            // Past the creation grace (60 s): an order with no provider order and no flag is not being created any more.
            clock.advance(.seconds(120))
            let log = ReconcilerLog()
            #expect(try await h.reconciler(clock: clock, log: log).runOnce() == 1)
            #expect(log.failures == [])
            let order = try #require(try await h.order(id))
            #expect(order["providerOrderId"]?.stringValue == acknowledged)
            #expect(order["checkout"]?["orderId"]?.stringValue == acknowledged)
            #expect(order["needsReconciliation"]?.boolValue == false)
            #expect(try await h.razorpayOrders(receipt: "acknowledged_then_lost").count == 1)
        }
    }

    @Test func anUnreachableProviderKeepsNothingAndTheReceiptCanBeUsedAgain() async throws {
        try await GatewayHarness.run(providers: { settings in
            // Port 9 (discard) is closed on loopback: the connection is refused, nothing is sent.
            settings.razorpay?.baseURL = "http://127.0.0.1:9/razorpay"
        }) { h in
            let first = try await h.createOrder(receipt: "unreachable_1", idempotencyKey: "key-unreachable")
            #expect(first.userErrorCodes("createOrder") == ["PROVIDER_UNAVAILABLE"], "\(first.json)")
            #expect(first.data("createOrder")?["order"]?.isNull != false)
            #expect(try await h.count("orders") == 0)
            #expect(try await h.count("order_events") == 0)
            // Retryable: the idempotency key was released, so the retry does the work again (and fails again here).
            let again = try await h.createOrder(receipt: "unreachable_1", idempotencyKey: "key-unreachable")
            #expect(again.userErrorCodes("createOrder") == ["PROVIDER_UNAVAILABLE"])
            // The receipt is free: another provider takes it.
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let elsewhere = try await h.createOrder(provider: "CASHFREE", amount: "17000", receipt: "unreachable_1", customer: customer)
            #expect(elsewhere.userErrorCodes("createOrder") == [])
            #expect(elsewhere.data("createOrder")?["order"]?["receipt"]?.stringValue == "unreachable_1")
            #expect(try await h.count("orders") == 1)
        }
    }
}
