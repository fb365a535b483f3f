/// The unified order status of docs/DESIGN.md (Unified model). The provider's raw status is kept
/// beside it (``ProviderOrder/rawStatus``). A status no mapping knows becomes
/// ``unknown(_:)``, which means "needs reconciliation" — never paid.
public enum OrderStatus: Sendable, Hashable, CustomStringConvertible {
    case created
    case attempted
    case pending
    case paid
    case failed
    case expired
    case cancelled
    /// A raw status not in the provider's documented set.
    case unknown(String)

    /// The unified upper-case name (`PAID`) the public API uses; `unknown` is `UNKNOWN`.
    public var name: String {
        switch self {
        case .created: "CREATED"
        case .attempted: "ATTEMPTED"
        case .pending: "PENDING"
        case .paid: "PAID"
        case .failed: "FAILED"
        case .expired: "EXPIRED"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        }
    }

    /// True only for `unknown`: the order must be reconciled before anyone acts on it.
    public var needsReconciliation: Bool {
        if case .unknown = self { return true }
        return false
    }

    public var description: String {
        if case .unknown(let raw) = self { return "UNKNOWN(\(raw))" }
        return name
    }
}

/// The unified payment (attempt) status.
public enum PaymentStatus: Sendable, Hashable, CustomStringConvertible {
    /// Created, nothing happened yet.
    case created
    /// In progress: waiting for the customer, the bank or the UPI app.
    case pending
    /// Authorised but not captured (Razorpay without auto-capture).
    case authorized
    /// Money captured: the payment succeeded.
    case captured
    case failed
    case cancelled
    case refunded
    case partiallyRefunded
    /// A raw status not in the provider's documented set: needs reconciliation.
    case unknown(String)

    /// The unified upper-case name the public API uses.
    public var name: String {
        switch self {
        case .created: "CREATED"
        case .pending: "PENDING"
        case .authorized: "AUTHORIZED"
        case .captured: "CAPTURED"
        case .failed: "FAILED"
        case .cancelled: "CANCELLED"
        case .refunded: "REFUNDED"
        case .partiallyRefunded: "PARTIALLY_REFUNDED"
        case .unknown: "UNKNOWN"
        }
    }

    /// Whether money was taken (captured, possibly refunded since).
    public var isSuccessful: Bool {
        switch self {
        case .captured, .refunded, .partiallyRefunded: true
        case .created, .pending, .authorized, .failed, .cancelled, .unknown: false
        }
    }

    public var description: String {
        if case .unknown(let raw) = self { return "UNKNOWN(\(raw))" }
        return name
    }
}

/// The unified refund status.
public enum RefundStatus: Sendable, Hashable, CustomStringConvertible {
    case pending
    case succeeded
    case failed
    case cancelled
    /// A raw status not in the provider's documented set: needs reconciliation.
    case unknown(String)

    /// The unified upper-case name the public API uses.
    public var name: String {
        switch self {
        case .pending: "PENDING"
        case .succeeded: "SUCCEEDED"
        case .failed: "FAILED"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        }
    }

    public var description: String {
        if case .unknown(let raw) = self { return "UNKNOWN(\(raw))" }
        return name
    }
}
