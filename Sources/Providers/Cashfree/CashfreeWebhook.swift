/// Cashfree webhook signature (cashfree.md §6):
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
