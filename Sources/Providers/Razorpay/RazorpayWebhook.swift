/// Razorpay signatures (razorpay.md §5): extract the signed message and the
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
