import PaymentsCore
import JSON
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
        // The project's parser first (``WebhookJSON``); `JSONDecoder` for whatever it gives up on.
        let read = WireCoding.numbersAreShort(request.body) ? RazorpayWebhookEvent(webhookJSON: request.body, parsed: request.parsedJSON) : nil
        switch read.map(Result.success) ?? WireCoding.decodeOrExplain(RazorpayWebhookEvent.self, from: request.body) {
        case .failure(let failure): throw .webhookPayload(.razorpay, failure.message)
        case .success(let wire): return try event(wire, request: request)
        }
    }

    /// The normalised event of a decoded envelope.
    static func event(_ wire: RazorpayWebhookEvent, request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        let rules = AmountRules(currencies: ["INR"], minimum: 0, maximum: Int64.max)
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

extension RazorpayWebhookEvent {
    /// The envelope read by ``WebhookJSON``, member by member as its `Decodable` conformance reads
    /// it; nil where that reader gives up (the caller then uses `JSONDecoder`). `parsed`: `body` already
    /// parsed by the caller (``WebhookRequest/parsedJSON``).
    init?(webhookJSON body: [UInt8], parsed: JSONValue? = nil) {
        guard let root = WebhookJSON.parse(body, parsed: parsed) else { return nil }
        do {
            let payload = try root.object("payload")
            var read = Payload()
            if let payment = try payload.object(ifPresent: "payment") { read.payment = PaymentWrapper(entity: try RazorpayPayment(payment.object("entity"))) }
            if let order = try payload.object(ifPresent: "order") { read.order = OrderWrapper(entity: try RazorpayOrder(order.object("entity"))) }
            if let refund = try payload.object(ifPresent: "refund") { read.refund = RefundWrapper(entity: try RazorpayRefund(refund.object("entity"))) }
            self.init(event: try root.string("event"), account_id: try root.string(ifPresent: "account_id"), payload: read,
                      created_at: try root.int64(ifPresent: "created_at"))
        } catch {
            return nil
        }
    }
}

extension RazorpayPayment {
    /// A payment entity read by ``WebhookJSON``.
    init(_ json: WebhookJSON) throws(WebhookJSON.Mismatch) {
        self.init(id: try json.string("id"), amount: try json.int64("amount"), currency: try json.string("currency"),
                  status: try json.string("status"), order_id: try json.string(ifPresent: "order_id"), method: try json.string(ifPresent: "method"),
                  captured: try json.bool(ifPresent: "captured"), refund_status: try json.string(ifPresent: "refund_status"),
                  amount_refunded: try json.int64(ifPresent: "amount_refunded"), error_code: try json.string(ifPresent: "error_code"),
                  error_description: try json.string(ifPresent: "error_description"), error_source: try json.string(ifPresent: "error_source"),
                  error_step: try json.string(ifPresent: "error_step"), error_reason: try json.string(ifPresent: "error_reason"))
    }
}

extension RazorpayOrder {
    /// An order entity read by ``WebhookJSON``.
    init(_ json: WebhookJSON) throws(WebhookJSON.Mismatch) {
        self.init(id: try json.string("id"), amount: try json.int64("amount"), amount_paid: try json.int64(ifPresent: "amount_paid"),
                  amount_due: try json.int64(ifPresent: "amount_due"), currency: try json.string("currency"),
                  receipt: try json.string(ifPresent: "receipt"), status: try json.string("status"), attempts: try json.int(ifPresent: "attempts"),
                  created_at: try json.int64(ifPresent: "created_at"))
    }
}

extension RazorpayRefund {
    /// A refund entity read by ``WebhookJSON``.
    init(_ json: WebhookJSON) throws(WebhookJSON.Mismatch) {
        self.init(id: try json.string("id"), amount: try json.int64(ifPresent: "amount"), currency: try json.string(ifPresent: "currency"),
                  payment_id: try json.string(ifPresent: "payment_id"), receipt: try json.string(ifPresent: "receipt"),
                  status: try json.string("status"))
    }
}
