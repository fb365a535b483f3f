import PaymentsCore
/// Cashfree webhook signature (docs/providers/cashfree.md §6):
/// `x-webhook-signature == base64(HMAC-SHA256(client_secret, x-webhook-timestamp + raw body))`,
/// plain concatenation, standard Base64 with padding. The raw text is signed:
/// re-serialising `170.00` as `170` breaks it (vector cf-wh-02).
enum CashfreeWebhook {
    static let signatureHeader = "x-webhook-signature"
    static let timestampHeader = "x-webhook-timestamp"
    static let idempotencyHeader = "x-idempotency-key"

    static func signedMessage(_ request: WebhookRequest) -> Result<SignedMessage, WebhookRejection> {
        guard let signature = request.header(signatureHeader) else { return .failure(WebhookRejection("missing \(signatureHeader) header")) }
        guard let timestamp = request.header(timestampHeader) else { return .failure(WebhookRejection("missing \(timestampHeader) header")) }
        guard request.headerCount(signatureHeader) == 1, request.headerCount(timestampHeader) == 1 else {
            return .failure(WebhookRejection("repeated signature or timestamp header"))
        }
        // Epoch milliseconds in every sample; anything but digits cannot be Cashfree's.
        guard !timestamp.isEmpty, timestamp.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return .failure(WebhookRejection("\(timestampHeader) is not a number"))
        }
        // No freshness window is documented [L]; Cashfree's retries may reuse the
        // original timestamp, so none is enforced here (de-duplicate on x-idempotency-key).
        return .success(SignedMessage(message: Array(timestamp.utf8) + request.body, presentedSignature: signature,
                                      scheme: .hmacSHA256Base64))
    }
}

extension CashfreeWebhook {
    /// Normalises `{"data":{order,payment|refund},"type"}` (docs/providers/cashfree.md §6).
    /// Amounts are read from the raw number text (`170.00`).
    static func event(_ request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        let rules = AmountRules(currencies: ["INR"], minimum: 0, maximum: Int64.max)
        switch WireCoding.decodeOrExplain(CashfreeWebhookEvent.self, from: request.body) {
        case .failure(let failure): throw .webhookPayload(.cashfree, failure.message)
        case .success(let wire):
            var event = WebhookEvent(provider: .cashfree, eventID: "", type: wire.type, orderID: wire.data.order?.order_id)
            if let payment = wire.data.payment {
                event.paymentID = payment.cf_payment_id?.text
                if let status = payment.payment_status {
                    event.paymentStatus = CashfreeStatusMapping.payment(status)
                    event.rawPaymentStatus = status
                }
                if let amount = payment.payment_amount ?? wire.data.order?.order_amount {
                    event.amount = try CashfreeTransformers.decimal(amount, currency: payment.payment_currency, rules: rules, operation: "parseWebhook")
                }
            }
            if let refund = wire.data.refund {
                let mapped = try CashfreeTransformers.refund(refund, rules: rules, operation: "parseWebhook")
                event.refundID = mapped.reference
                event.refundStatus = mapped.status
                event.refundReference = mapped.reference
                event.rawRefundStatus = mapped.rawStatus
                event.paymentID = event.paymentID ?? mapped.paymentID
                event.orderID = event.orderID ?? refund.order_id
                event.amount = mapped.amount
            }
            let derived = [wire.type, event.orderID ?? "", event.paymentID ?? "", event.refundID ?? "",
                           event.rawPaymentStatus ?? wire.data.refund?.refund_status ?? ""].joined(separator: ":")
            event.eventID = request.header(idempotencyHeader) ?? derived
            return event
        }
    }
}
