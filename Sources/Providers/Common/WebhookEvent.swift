public import PaymentsCore
/// A verified webhook, normalised: what happened to which order, payment or
/// refund, and a key to de-duplicate deliveries (providers deliver at least once).
public struct WebhookEvent: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// Stable across re-deliveries of the same event: Razorpay `x-razorpay-event-id`,
    /// Cashfree `x-idempotency-key`; derived from the payload where the provider sends none.
    public var eventID: String
    /// The provider's event name (`payment.captured`, `PAYMENT_SUCCESS_WEBHOOK`, `Credit`, `bill_payment_success`).
    public var type: String
    /// The provider's order id (Razorpay `order_…`, Cashfree `order_id`, Instamojo payment request id, Setu `orderId`).
    public var orderID: String?
    /// The order's unified status, when the event carries the order.
    public var orderStatus: OrderStatus?
    /// The provider's payment id.
    public var paymentID: String?
    /// The payment's unified status, when the event is about a payment.
    public var paymentStatus: PaymentStatus?
    /// The payment's raw status, when there is one.
    public var rawPaymentStatus: String?
    /// The refund id (Cashfree: the merchant `refund_id`), for refund events.
    public var refundID: String?
    /// The refund's unified status, for refund events.
    public var refundStatus: RefundStatus?
    /// The merchant's refund reference the event echoes (Razorpay `receipt`, Cashfree `refund_id`), for refund events.
    public var refundReference: String?
    /// The refund's raw status, for refund events.
    public var rawRefundStatus: String?
    /// The payment (or refund) amount the event carries.
    public var amount: Amount?

    /// Creates the value from its fields.
    public init(provider: ProviderName, eventID: String, type: String, orderID: String? = nil, orderStatus: OrderStatus? = nil,
                paymentID: String? = nil, paymentStatus: PaymentStatus? = nil, rawPaymentStatus: String? = nil,
                refundID: String? = nil, refundStatus: RefundStatus? = nil, amount: Amount? = nil) {
        self.provider = provider
        self.eventID = eventID
        self.type = type
        self.orderID = orderID
        self.orderStatus = orderStatus
        self.paymentID = paymentID
        self.paymentStatus = paymentStatus
        self.rawPaymentStatus = rawPaymentStatus
        self.refundID = refundID
        self.refundStatus = refundStatus
        self.amount = amount
    }
}

extension Webhooks {
    /// Verifies, then normalises. A webhook that fails verification is never parsed.
    public static func verifiedEvent(provider: ProviderName, request: WebhookRequest, secret: Secret) -> Result<WebhookEvent, WebhookFailure> {
        let verdict = verify(provider: provider, request: request, secret: secret)
        guard verdict.isValid else {
            if case .invalid(let reason) = verdict { return .failure(.invalidSignature(reason)) }
            return .failure(.invalidSignature("rejected"))
        }
        do {
            return .success(try event(provider: provider, request: request))
        } catch {
            return .failure(.undocumentedPayload(error.message))
        }
    }

    /// Normalises a webhook body. Call only after ``verify(provider:request:secret:)`` said valid.
    public static func event(provider: ProviderName, request: WebhookRequest) throws(ProviderError) -> WebhookEvent {
        switch provider {
        case .razorpay: try RazorpayWebhook.event(request)
        case .cashfree: try CashfreeWebhook.event(request)
        case .instamojo: try InstamojoWebhook.event(request)
        case .setu: try SetuWebhook.event(request)
        }
    }
}

/// Why a webhook was not accepted.
public enum WebhookFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not authentic (answer 401 and let the provider retry with the right secret).
    case invalidSignature(String)
    /// Authentic but not understood (answer 2xx and reconcile; retrying will not help).
    case undocumentedPayload(String)

    public var description: String {
        switch self {
        case .invalidSignature(let reason): "invalid signature: \(reason)"
        case .undocumentedPayload(let reason): "undocumented payload: \(reason)"
        }
    }
}

extension ProviderError {
    /// A webhook body that does not have the documented shape.
    static func webhookPayload(_ provider: ProviderName, _ message: String) -> ProviderError {
        ProviderError(.malformedResponse, provider: provider, operation: "parseWebhook", message: message)
    }
}
