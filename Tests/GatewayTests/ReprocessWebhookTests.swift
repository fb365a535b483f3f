import Crypto
import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Sandbox
import Support
import Testing

/// `reprocessWebhookEvent` (OPS): a stored authentic event is applied again through the intake's
/// path; doing it twice changes nothing more; REJECTED deliveries cannot be reprocessed.
@Suite struct ReprocessWebhookTests {
    static let reprocess = """
        mutation($id: ID!) { reprocessWebhookEvent(input: {webhookEventId: $id}) {
          webhookEvent { id outcome eventType order { id status } payment { status } } userErrors { code message field } } }
        """

    @Test func anUnmatchedEventIsAppliedOnceItsOrderIsKnownAndAgainChangesNothing() async throws {
        try await GatewayHarness.run { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "42000")
            let order = try #require(created["id"]?.stringValue)
            let providerOrder = try #require(created["providerOrderId"]?.stringValue)
            let uuid = try #require(GlobalID(order, of: .order)).uuid
            // The webhook arrives while PayQL does not know the provider's order id yet (its createOrder
            // answer still on the way): stored UNMATCHED, the order untouched.
            _ = try await h.pool.query("UPDATE orders SET provider_order_id = NULL WHERE id = \(uuid)")
            try await h.complete("razorpay", order: providerOrder)
            let events = """
                query { webhookEvents(first: 10, filter: {outcome: [UNMATCHED]}) { nodes { id outcome eventType } } }
                """
            var unmatched: [JSONValue] = []
            #expect(try await h.eventually {
                unmatched = try await h.graphQL(events, key: h.opsKey).data("webhookEvents")?["nodes"]?.arrayValue ?? []
                return !unmatched.isEmpty
            })
            #expect(try await OrderLifecycleTests.order(h, order)["status"]?.stringValue == "CREATED")
            _ = try await h.pool.query("UPDATE orders SET provider_order_id = \(providerOrder) WHERE id = \(uuid)")

            // Reprocessed: the payment is recorded and the order PAID, as if the webhook came now.
            var paidBy: String?
            for event in unmatched {
                let answer = try await h.graphQL(Self.reprocess, variables: ["id": try #require(event["id"])], key: h.opsKey)
                #expect(answer.userErrorCodes("reprocessWebhookEvent") == [], "\(answer.json)")
                let result = answer.data("reprocessWebhookEvent")?["webhookEvent"]
                #expect(result?["outcome"]?.stringValue == "APPLIED")
                #expect(result?["order"]?["id"]?.stringValue == order)
                if result?["order"]?["status"]?.stringValue == "PAID", paidBy == nil { paidBy = event["id"]?.stringValue }
            }
            #expect(paidBy != nil, "no reprocessed event paid the order")
            #expect(try await OrderLifecycleTests.order(h, order)["status"]?.stringValue == "PAID")
            let payments = try await h.count("payments")
            let timeline = try await h.count("order_events")
            let outbox = try await h.count("outbox")
            #expect(outbox == 1, "order.paid once")

            // Again: idempotent (statuses only move forward; the payment is the same row).
            for event in unmatched {
                let again = try await h.graphQL(Self.reprocess, variables: ["id": try #require(event["id"])], key: h.opsKey)
                #expect(again.userErrorCodes("reprocessWebhookEvent") == [])
                #expect(again.data("reprocessWebhookEvent")?["webhookEvent"]?["order"]?["status"]?.stringValue == "PAID")
            }
            #expect(try await h.count("payments") == payments)
            #expect(try await h.count("order_events") == timeline)
            #expect(try await h.count("outbox") == outbox)
        }
    }

    @Test func anInstamojoFormDeliveryIsKeptAsItsFieldsAndCanBeReprocessed() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let created = try await OrderLifecycleTests.createOrder(h, provider: "INSTAMOJO", amount: "50000", customer: customer,
                                                                    extra: #"returnUrl: "https://shop.example/done""#)
            let order = try #require(created["id"]?.stringValue)
            let gatewayOrder = try #require(created["checkout"]?["gatewayOrderId"]?.stringValue)
            // Paid at the sandbox: its gateway-order delivery names no payment request (IGNORED; PayQL confirms
            // gateway orders by a status check), and is stored as its form's fields, personal ones redacted.
            try await h.complete("instamojo", order: gatewayOrder)
            let events = """
                query { webhookEvents(first: 10, filter: {provider: [INSTAMOJO]}) { nodes { id outcome eventId payload } } }
                """
            var stored: [JSONValue] = []
            #expect(try await h.eventually {
                stored = try await h.graphQL(events, key: h.opsKey).data("webhookEvents")?["nodes"]?.arrayValue ?? []
                return !stored.isEmpty
            })
            let delivered = try #require(stored.first)
            #expect(delivered["outcome"]?.stringValue == "IGNORED")
            let payload = try #require(delivered["payload"]?.objectValue)
            #expect(Set(payload.keys) == ["amount", "buyer", "buyer_name", "buyer_phone", "currency", "fees", "longurl", "mac", "payment_id",
                                          "payment_request_id", "purpose", "shorturl", "status"])
            #expect(payload["status"]?.stringValue == "Credit")
            #expect(payload["payment_id"]?.stringValue?.hasPrefix("MOJO") == true)
            for personal in ["buyer", "buyer_name", "buyer_phone"] {
                #expect(payload[personal]?.stringValue == "[redacted]", "\(personal) stored: \(payload)")
            }
            // Read again as the event it was (it used to be stored as {} and refused as unreadable).
            let again = try await h.graphQL(Self.reprocess, variables: ["id": try #require(delivered["id"])], key: h.opsKey)
            #expect(again.userErrorCodes("reprocessWebhookEvent") == [], "\(again.json)")
            #expect(again.data("reprocessWebhookEvent")?["webhookEvent"]?["outcome"]?.stringValue == "IGNORED")

            // A payment-request delivery (the documented shape) for a request PayQL does not know yet:
            // UNMATCHED; once an order carries that id, reprocessing applies it from the stored fields.
            var fields: [(String, String)] = [
                ("amount", "500.00"), ("buyer", "asha@example.com"), ("buyer_name", "Asha Rao"), ("buyer_phone", "+919876543210"),
                ("currency", "INR"), ("fees", "9.50"), ("longurl", "https://www.instamojo.com/@shop/pr1"), ("payment_id", "MOJO0000PR01"),
                ("payment_request_id", "pr_reprocess_1"), ("purpose", "Order"), ("shorturl", ""), ("status", "Credit"),
            ]
            let message = fields.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "|")
            fields.append(("mac", Encoding.hex(Crypto.hmac(.sha1, key: h.sandbox.credentials.instamojoPrivateSalt, message: message))))
            let response = try await h.client.execute(HTTPClientRequest(
                method: "POST", url: h.baseURL + "/webhooks/instamojo",
                headers: [("content-type", "application/x-www-form-urlencoded")], body: URLEncodedForm.encode(fields)))
            #expect(response.status == 200)
            let unmatched = try #require(try await h.graphQL("""
                query { webhookEvents(first: 10, filter: {provider: [INSTAMOJO], outcome: [UNMATCHED]}) { nodes { id } } }
                """, key: h.opsKey).data("webhookEvents")?["nodes"]?.arrayValue?.first)
            let uuid = try #require(GlobalID(order, of: .order)).uuid
            _ = try await h.pool.query("UPDATE orders SET provider_order_id = 'pr_reprocess_1' WHERE id = \(uuid)")
            let applied = try await h.graphQL(Self.reprocess, variables: ["id": try #require(unmatched["id"])], key: h.opsKey)
            #expect(applied.userErrorCodes("reprocessWebhookEvent") == [], "\(applied.json)")
            #expect(applied.data("reprocessWebhookEvent")?["webhookEvent"]?["outcome"]?.stringValue == "APPLIED")
            #expect(applied.data("reprocessWebhookEvent")?["webhookEvent"]?["payment"]?["status"]?.stringValue == "CAPTURED")
            #expect(try await OrderLifecycleTests.order(h, order)["status"]?.stringValue == "PAID")
        }
    }

    @Test func rejectedUnknownAndForbiddenAreRefused() async throws {
        try await GatewayHarness.run { h in
            // A delivery with a bad signature: REJECTED, body not kept.
            let response = try await h.client.execute(HTTPClientRequest(
                method: "POST", url: h.baseURL + "/webhooks/razorpay",
                headers: [("content-type", "application/json"), ("x-razorpay-signature", "00"), ("x-razorpay-event-id", "evt_forged")],
                body: Array(#"{"event":"payment.captured","payload":{}}"#.utf8)))
            #expect(response.status == 401)
            let rejected = try await h.graphQL("query { webhookEvents(filter: {outcome: [REJECTED]}) { nodes { id } } }", key: h.opsKey)
            let id = try #require(rejected.data("webhookEvents")?["nodes"]?.arrayValue?.first?["id"])
            let answer = try await h.graphQL(Self.reprocess, variables: ["id": id], key: h.opsKey)
            #expect(answer.userErrorCodes("reprocessWebhookEvent") == ["INVALID_STATE"])
            #expect(answer.json["data"]?["reprocessWebhookEvent"]?["userErrors"]?.arrayValue?.first?["message"]?.stringValue?.contains("REJECTED") == true)
            #expect(answer.data("reprocessWebhookEvent")?["webhookEvent"] == .null)

            let unknown = try await h.graphQL(Self.reprocess, variables: ["id": .string(GlobalID(.webhookEvent, UUID()).description)], key: h.opsKey)
            #expect(unknown.userErrorCodes("reprocessWebhookEvent") == ["NOT_FOUND"])
            let forbidden = try await h.graphQL(Self.reprocess, variables: ["id": id])
            #expect(forbidden.errorCodes == ["FORBIDDEN"])
        }
    }
}
