import Foundation
import Testing
@testable import Providers
import PaymentsCore

/// Normalising webhook bodies (the samples in Fixtures/samples).
@Suite struct WebhookEventTests {
    @Test func razorpayPaymentEvent() throws {
        let request = WebhookRequest(headers: [("x-razorpay-event-id", "evt_1")], body: try Fixture.sample("razorpay", "webhook_payment_authorized"))
        let event = try Webhooks.event(provider: .razorpay, request: request)
        #expect(event.eventID == "evt_1")
        #expect(event.type == "payment.authorized")
        // The SDK fixture's payment is already captured when payment.authorized arrives.
        #expect(event.paymentStatus == .captured)
        #expect(event.paymentID == "pay_6koWN7bvxujzxM")
        #expect(event.orderID == "order_100000000order")
        #expect(event.amount == .inr(1_000_000))
        // Without the header a key is derived from the payload, the same for every re-delivery.
        let derived = try Webhooks.event(provider: .razorpay, request: WebhookRequest(headers: [], body: request.body))
        #expect(derived.eventID == (try Webhooks.event(provider: .razorpay, request: WebhookRequest(headers: [], body: request.body))).eventID)
    }

    @Test func cashfreeEventsKeepTheExactAmount() throws {
        let success = try Webhooks.event(provider: .cashfree, request: WebhookRequest(headers: [("x-idempotency-key", "k1")],
                                                                                        body: try Fixture.sample("cashfree", "webhook_payment_success")))
        #expect(success.type == "PAYMENT_SUCCESS_WEBHOOK")
        #expect(success.paymentStatus == .captured)
        #expect(success.orderID == "gw_order_0001")
        #expect(success.amount == .inr(17_000))
        #expect(success.eventID == "k1")
        let failed = try Webhooks.event(provider: .cashfree, request: WebhookRequest(headers: [], body: try Fixture.sample("cashfree", "webhook_payment_failed")))
        #expect(failed.paymentStatus == .failed)
        let refund = try Webhooks.event(provider: .cashfree, request: WebhookRequest(headers: [], body: try Fixture.sample("cashfree", "webhook_refund_status")))
        #expect(refund.type == "REFUND_STATUS_WEBHOOK")
        #expect(refund.refundStatus != nil)
        #expect(refund.refundID != nil)
    }

    @Test func instamojoFormEvent() throws {
        let fields = try JSONDecoder().decode([String: String].self, from: Data(try Fixture.sample("instamojo", "webhook_form_fields")))
        let body = WireCoding.formEncode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let event = try Webhooks.event(provider: .instamojo, request: WebhookRequest(headers: [], body: body))
        #expect(event.paymentStatus == .captured)
        #expect(event.orderID == "92e58bd771414d05a5e443b0a85f8b43")
        #expect(event.amount == .inr(250_000))
        #expect(event.eventID == "MOJO5a06005J21512197:Credit")
    }

    @Test func setuUserEvents() throws {
        let success = try Webhooks.event(provider: .setu, request: WebhookRequest(headers: [], body: try Fixture.sample("setu", "webhook_bill_payment_success")))
        #expect(success.paymentStatus == .captured)
        #expect(success.amount == .inr(60_100))
        #expect(success.orderID == "H001234566666")
        // amountPaid as a JSON number (601.0) is read exactly too.
        let collection = try Webhooks.event(provider: .setu, request: WebhookRequest(headers: [], body: try Fixture.sample("setu", "webhook_bill_collection_failure")))
        #expect(collection.paymentStatus == .failed)
        #expect(collection.amount == .inr(60_100))
        let dispute = try Webhooks.event(provider: .setu, request: WebhookRequest(headers: [], body: try Fixture.sample("setu", "webhook_dispute_raised")))
        #expect(dispute.paymentStatus == nil)
    }

    @Test func unverifiedWebhooksAreNeverParsed() throws {
        let body = try Fixture.sample("setu", "webhook_bill_payment_success")
        let result = Webhooks.verifiedEvent(provider: .setu, request: WebhookRequest(headers: [("X-BILL-WEBHOOK-API-KEY", "wrong")], body: body),
                                            secret: Secret("right"))
        #expect(result == .failure(.invalidSignature("X-BILL-WEBHOOK-API-KEY does not match")))
        let garbage = Webhooks.verifiedEvent(provider: .setu, request: WebhookRequest(headers: [("X-BILL-WEBHOOK-API-KEY", "right")], body: Array("[]".utf8)),
                                             secret: Secret("right"))
        guard case .failure(.undocumentedPayload) = garbage else { Issue.record("expected undocumentedPayload, got \(garbage)"); return }
    }
}
