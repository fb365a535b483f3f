public import PaymentsCore
/// Webhook verification by provider name, for callers that route on the
/// `{provider}` path segment (the gateway's `POST /webhooks/{provider}`, and
/// `payql webhook verify`).
public enum Webhooks {
    /// Verifies `request` for `provider` with `secret`: Razorpay's webhook secret,
    /// Cashfree's client secret, Instamojo's private salt or Setu's webhook key.
    public static func verify(provider: ProviderName, request: WebhookRequest, secret: Secret) -> WebhookVerdict {
        switch provider {
        case .razorpay: RazorpayAdapter.verifyWebhook(request, secret: secret)
        case .cashfree: CashfreeAdapter.verifyWebhook(request, secret: secret)
        case .instamojo: InstamojoAdapter.verifyWebhook(request, salt: secret)
        case .setu: SetuAdapter.verifyWebhook(request, key: secret)
        }
    }
}
