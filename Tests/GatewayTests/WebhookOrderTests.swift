import Foundation
@testable import Gateway
import JSON
import Testing

/// Cashfree's webhooks late, out of order and again: the order ends as if each came once, in order.
@Suite struct WebhookOrderTests {
    static let snapshotQuery = """
        query($id: ID!) { order(id: $id) { status amountPaid { amount } needsReconciliation
          payments { providerPaymentId status verified } timeline { kind status previousStatus } } }
        """

    @Test func cashfreeWebhooksOutOfOrderAndRedeliveredLeaveTheSameFinalState() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let created = try #require(try await h.createOrder(provider: "CASHFREE", amount: "17000", receipt: "cf_hooks", customer: customer)
                .data("createOrder")?["order"])
            let id = try #require(created["id"]?.stringValue)
            // A failed attempt, then a successful one: PAYMENT_FAILED_WEBHOOK then PAYMENT_SUCCESS_WEBHOOK.
            let failed = try await h.complete("cashfree", order: "cf_hooks", status: "failed")
            let paid = try await h.complete("cashfree", order: "cf_hooks", status: "paid")
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
            let snapshot = try await h.graphQL(Self.snapshotQuery, variables: ["id": .string(id)]).data("order")
            #expect(snapshot?["amountPaid"]?["amount"]?.stringValue == "17000")
            #expect(snapshot?["payments"]?.arrayValue?.count == 2)
            let events = try await h.count("webhook_events")
            #expect(events == 2)

            // The failure arrives again after the success, then the success again, then the failure once more.
            let failedID = try #require(failed["webhooks"]?.arrayValue?.first?["id"]?.stringValue)
            let paidID = try #require(paid["webhooks"]?.arrayValue?.first?["id"]?.stringValue)
            for delivery in [failedID, paidID, failedID] {
                let redelivered = try await h.sandboxControl("/webhooks/\(delivery)/redeliver")
                #expect(redelivered["status"]?.intValue == 200)
            }
            #expect(try await h.count("webhook_events") == events)
            let after = try await h.graphQL(Self.snapshotQuery, variables: ["id": .string(id)]).data("order")
            #expect(after == snapshot)
        }
    }
}
