import PaymentsCore
/// Razorpay signatures (docs/providers/razorpay.md §5): extract the signed message and the
/// presented signature; ``WebhookVerifier`` does the constant-time check.
enum RazorpayWebhook {
    static let signatureHeader = "X-Razorpay-Signature"
    static let eventIDHeader = "x-razorpay-event-id"

    /// Webhook: `hex(HMAC-SHA256(webhook_secret, raw body))` in `X-Razorpay-Signature`.
    static func signedMessage(_ request: WebhookRequest) -> Result<SignedMessage, WebhookRejection> {
        guard request.headerCount(signatureHeader) == 1, let signature = request.header(signatureHeader) else {
            return .failure(WebhookRejection(request.headerCount(signatureHeader) == 0
                ? "missing \(signatureHeader) header" : "more than one \(signatureHeader) header"))
        }
        return .success(SignedMessage(message: request.body, presentedSignature: signature, scheme: .hmacSHA256Hex))
    }

    /// Checkout success: `hex(HMAC-SHA256(key_secret, order_id + "|" + payment_id))`.
    /// Use the order id stored on the server, not the one the client echoes.
    static func paymentSignature(orderID: String, paymentID: String, signature: String) -> SignedMessage {
        SignedMessage(message: Array("\(orderID)|\(paymentID)".utf8), presentedSignature: signature, scheme: .hmacSHA256Hex)
    }
}

/// Why a webhook was refused before any cryptography (missing header, bad body).
struct WebhookRejection: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension RazorpayWebhook {
    /// Normalises an event envelope (docs/providers/razorpay.md §5b). Payment, order and refund
    /// entities are read when present; amounts are integer paise.
    static func event(_ request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        let rules = AmountRules(currencies: ["INR"], minimum: 0, maximum: Int64.max)
        switch WireCoding.decodeOrExplain(RazorpayWebhookEvent.self, from: request.body) {
        case .failure(let failure): throw .webhookPayload(.razorpay, failure.message)
        case .success(let wire):
            var event = WebhookEvent(provider: .razorpay, eventID: "", type: wire.event)
            if let order = wire.payload.order?.entity {
                event.orderID = order.id
                event.orderStatus = RazorpayStatusMapping.order(order.status)
            }
            if let payment = wire.payload.payment?.entity {
                let mapped = try RazorpayTransformers.payment(payment, rules: rules, operation: "parseWebhook")
                event.paymentID = mapped.id
                event.orderID = event.orderID ?? mapped.orderID
                event.paymentStatus = mapped.status
                event.rawPaymentStatus = mapped.rawStatus
                event.amount = mapped.amount
            }
            if let refund = wire.payload.refund?.entity {
                let mapped = try RazorpayTransformers.refund(refund, rules: rules, operation: "parseWebhook")
                event.refundID = mapped.id
                event.refundStatus = mapped.status
                event.refundReference = mapped.reference
                event.rawRefundStatus = mapped.rawStatus
                event.paymentID = event.paymentID ?? mapped.paymentID
                event.amount = mapped.amount ?? event.amount
            }
            // The documented de-duplication key; without it, the entities and the event time.
            let derived = [wire.event, event.orderID ?? "", event.paymentID ?? "", event.refundID ?? "", wire.created_at.map(String.init) ?? ""]
                .joined(separator: ":")
            event.eventID = request.header(eventIDHeader) ?? derived
            return event
        }
    }
}
