import Foundation
import Testing
import JSON
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

    /// Razorpay bodies are read by the project's JSON parser (``WebhookJSON``) into the envelope
    /// `JSONDecoder` gives; whatever that reader gives up on still goes through `JSONDecoder`.
    @Test func razorpayBodiesReadWithoutFoundationGiveWhatJSONDecoderGives() throws {
        let bodies: [[UInt8]] = [
            try Fixture.sample("razorpay", "webhook_payment_authorized"),
            Array(#"{"entity":"event","event":"order.paid","payload":{"payment":{"entity":{"id":"pay_2","amount":50000,"currency":"INR","status":"captured","order_id":"order_2","method":"upi","captured":true,"amount_refunded":0,"error_code":null,"vpa":"a@b"}},"order":{"entity":{"id":"order_2","amount":50000,"amount_paid":50000,"amount_due":0,"currency":"INR","receipt":"r2","status":"paid","attempts":1,"notes":[]}}},"created_at":1796000000}"#.utf8),
            Array(#"{"event":"refund.processed","payload":{"refund":{"entity":{"id":"rfnd_3","amount":100,"currency":"INR","payment_id":"pay_3","receipt":null,"status":"processed"}},"payment":null},"account_id":"acc_1"}"#.utf8),
            Array(#"{"event":"payment.failed","payload":{"payment":{"entity":{"id":"pay_4","amount":100,"currency":"INR","status":"failed","error_code":"BAD_REQUEST_ERROR","error_description":"Payment failed","error_source":"bank","error_step":"payment_authorization","error_reason":"payment_failed"}}}}"#.utf8),
        ]
        for body in bodies {
            let request = WebhookRequest(headers: [("x-razorpay-event-id", "evt_x")], body: body)
            let read = try #require(RazorpayWebhookEvent(webhookJSON: body))
            let decoded = try WireCoding.decodeOrExplain(RazorpayWebhookEvent.self, from: body).get()
            #expect(try RazorpayWebhook.event(read, request: request) == RazorpayWebhook.event(decoded, request: request))
            #expect(try Webhooks.event(provider: .razorpay, request: request) == RazorpayWebhook.event(decoded, request: request))
        }
        // Given up on (JSONDecoder decides): an amount with an exponent, a string amount, a repeated name
        // (the parser keeps the last, JSONDecoder the first), an escaped name.
        #expect(!WebhookJSON.mayRepeatAName(Array(#"{"a":{"a":[{"a":1},{"a":2}],"b":"a"},"b":[1,"b"]}"#.utf8)))
        let others = [
            #"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_5","amount":5e4,"currency":"INR","status":"captured"}}}}"#,
            #"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_6","amount":"50000","currency":"INR","status":"captured"}}}}"#,
            #"{"event":"payment.captured","payload":{"payment":null},"event":"payment.failed"}"#,
            #"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_7","id":"pay_8","amount":1,"currency":"INR","status":"captured"}}}}"#,
            #"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_9","amount":1,"currency":"INR","st\u0061tus":"captured"}}}}"#,
        ].map { Array($0.utf8) }
        for body in others {
            #expect(RazorpayWebhookEvent(webhookJSON: body) == nil)
            let request = WebhookRequest(headers: [("x-razorpay-event-id", "evt_y")], body: body)
            switch WireCoding.decodeOrExplain(RazorpayWebhookEvent.self, from: body) {
            case .success(let decoded):
                #expect(try Webhooks.event(provider: .razorpay, request: request) == RazorpayWebhook.event(decoded, request: request))
            case .failure(let failure):
                #expect(throws: ProviderError.self) { try Webhooks.event(provider: .razorpay, request: request) }
                do {
                    _ = try Webhooks.event(provider: .razorpay, request: request)
                } catch {
                    #expect(error.message.contains(failure.message))
                }
            }
        }
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

    /// Header names match whatever the case of their ASCII letters, and only then: the signature header is found
    /// once however it is spelt, counted when repeated, and a name that differs in any other byte is not it.
    @Test func headerNamesMatchIgnoringASCIICaseOnly() {
        let request = WebhookRequest(headers: [("Content-Type", "application/json"), ("X-RAZORPAY-signature", "a"),
                                               ("x-razorpay-signaturE", "b"), ("x-razorpay-signatur", "c"), ("x-razorpay-signatures", "d"),
                                               ("X-Razorpay-Event-Id", "evt_1"), ("x-razorpay-event_id", "evt_2")],
                                     body: [])
        #expect(request.header("x-razorpay-signature") == "a")
        #expect(request.headerCount("X-Razorpay-Signature") == 2)
        #expect(request.header("x-razorpay-event-id") == "evt_1")
        #expect(request.headerCount("x-razorpay-event-id") == 1)
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("x-missing") == nil)
        // Only ASCII letters fold: "-" is not "_", and a non-ASCII byte matches only itself.
        #expect(WebhookRequest(headers: [("x_razorpay_event_id", "evt")], body: []).header("x-razorpay-event-id") == nil)
        #expect(WebhookRequest(headers: [("x-wébhook", "v")], body: []).header("x-wÉbhook") == nil)
        #expect(WebhookRequest(headers: [("x-wébhook", "v")], body: []).header("X-WéBHOOK") == "v")
        #expect(WebhookRequest(headers: [("`{", "v")], body: []).header("@[") == nil)
    }

    /// A body the caller has parsed already (`parsedJSON`: the Gateway parses an authentic body once, for its event
    /// and its redacted copy) is read from that parse, not parsed again; without one, from the bytes.
    @Test func razorpayReadsTheCallersParseWhenGiven() throws {
        let body = try Fixture.sample("razorpay", "webhook_payment_authorized")
        let alone = try Webhooks.event(provider: .razorpay, request: WebhookRequest(headers: [], body: body))
        let parsed = try JSONParser.parse(body)
        let given = try Webhooks.event(provider: .razorpay, request: WebhookRequest(headers: [], body: body, parsedJSON: parsed))
        #expect(given == alone)
        // Proof that the parse is the one read: a parse of other bytes (which a caller must never pass) wins over the body.
        let other = try JSONParser.parse(Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: alone.paymentID ?? "", with: "pay_fromTheParse").utf8))
        let read = try Webhooks.event(provider: .razorpay, request: WebhookRequest(headers: [], body: body, parsedJSON: other))
        #expect(read.paymentID == "pay_fromTheParse")
    }
}
