public import PaymentsCore
/// Setu BillPay user-event webhooks carry no signature: a static key agreed
/// over email arrives in `X-BILL-WEBHOOK-API-KEY` (docs/providers/setu.md §6, §8). It is
/// compared in constant time; the body is not authenticated beyond that [H].
enum SetuWebhook {
    static let apiKeyHeader = "X-BILL-WEBHOOK-API-KEY"

    static func verify(_ request: WebhookRequest, key: Secret) -> WebhookVerdict {
        guard request.headerCount(apiKeyHeader) <= 1 else { return .invalid("more than one \(apiKeyHeader) header") }
        return WebhookVerifier.verifyStaticKey(presented: request.header(apiKeyHeader), expected: key, headerName: apiKeyHeader)
    }
}

extension SetuWebhook {
    /// Normalises a user event (docs/providers/setu.md §6). Setu sends no event id; the event
    /// name with `refId` (or `txnId`, `orderId`) identifies it.
    static func event(_ request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        switch WireCoding.decodeOrExplain(SetuWebhookEvent.self, from: request.body) {
        case .failure(let failure): throw .webhookPayload(.setu, failure.message)
        case .success(let wire):
            var amount: Amount?
            if let paid = wire.amountPaid {
                do {
                    amount = try AmountConversion.fromDecimalText(paid.text, currencyCode: "INR",
                                                                  rules: AmountRules(currencies: ["INR"], minimum: 0, maximum: Int64.max),
                                                                  syntax: paid.syntax)
                } catch {
                    throw .webhookPayload(.setu, "amountPaid: \(error)")
                }
            }
            let key = wire.refId ?? wire.txnId ?? wire.orderId ?? ""
            return WebhookEvent(provider: .setu, eventID: "\(wire.event):\(key)", type: wire.event, orderID: wire.orderId,
                                paymentID: wire.txnId, paymentStatus: SetuStatusMapping.payment(event: wire.event),
                                rawPaymentStatus: wire.status, amount: amount)
        }
    }
}
