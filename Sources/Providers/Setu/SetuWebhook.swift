/// Setu BillPay user-event webhooks carry no signature: a static key agreed
/// over email arrives in `X-BILL-WEBHOOK-API-KEY` (setu.md §6, §8). It is
/// compared in constant time; the body is not authenticated beyond that [H].
enum SetuWebhook {
    static let apiKeyHeader = "X-BILL-WEBHOOK-API-KEY"

    static func verify(_ request: WebhookRequest, key: Secret) -> WebhookVerdict {
        guard request.headerCount(apiKeyHeader) <= 1 else { return .invalid("more than one \(apiKeyHeader) header") }
        return WebhookVerifier.verifyStaticKey(presented: request.header(apiKeyHeader), expected: key, headerName: apiKeyHeader)
    }
}
