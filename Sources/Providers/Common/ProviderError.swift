public import PaymentsCore
/// What a failed provider call did, as far as PayQL can tell.
public enum ProviderOutcome: Sendable, Hashable {
    /// The request was never sent or the provider said it did nothing (safe to retry elsewhere).
    case notDone
    /// The provider understood and refused the request.
    case refused
    /// It may or may not have happened (timeout, reset after sending, 5xx, unreadable answer).
    case unknown
}

/// A failure talking to a provider, typed so callers can tell a rejection
/// (the provider said no: don't retry) from an outage (network, timeout, 429,
/// 5xx: retry later or reconcile).
///
/// Keeps what the provider said — its code, reason, field and step — but
/// never a credential: headers are not copied in, and bodies are kept only
/// when the provider returned something undocumented (bounded length).
public struct ProviderError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. A struct over a private enum so kinds can be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case rejected, authenticationFailed, notFound, conflict, idempotencyConflict
            case rateLimited, providerUnavailable, timeout, network, unreachable
            case malformedResponse, invalidAmount, invalidRequest, unsupported, cancelled
        }
        private let kind: Kind

        /// The provider refused the request as invalid (4xx with a business/validation error).
        public static let rejected = Code(kind: .rejected)
        /// The provider refused the credentials (401, or its documented auth error).
        public static let authenticationFailed = Code(kind: .authenticationFailed)
        /// The provider does not know the resource (404).
        public static let notFound = Code(kind: .notFound)
        /// The resource already exists or is in a conflicting state (409).
        public static let conflict = Code(kind: .conflict)
        /// The same idempotency key was used with a different request.
        public static let idempotencyConflict = Code(kind: .idempotencyConflict)
        /// Throttled (429); see ``ProviderError/retryAfterSeconds``.
        public static let rateLimited = Code(kind: .rateLimited)
        /// The provider failed (5xx): the outcome of a write is unknown until reconciled.
        public static let providerUnavailable = Code(kind: .providerUnavailable)
        /// No complete answer before the deadline: the outcome of a write is unknown.
        public static let timeout = Code(kind: .timeout)
        /// Could not connect, or the connection broke.
        public static let network = Code(kind: .network)
        /// The request never left: connection refused, DNS failure, connect timeout. Nothing was done.
        public static let unreachable = Code(kind: .unreachable)
        /// The provider answered with something PayQL does not understand.
        public static let malformedResponse = Code(kind: .malformedResponse)
        /// An amount could not be represented exactly or is out of the provider's bounds.
        public static let invalidAmount = Code(kind: .invalidAmount)
        /// PayQL refused to send the request (missing or invalid field), nothing was sent.
        public static let invalidRequest = Code(kind: .invalidRequest)
        /// The provider has no such operation (see ``ProviderCapabilities``).
        public static let unsupported = Code(kind: .unsupported)
        /// The calling task was cancelled while the request was in flight: the outcome of a write is unknown.
        public static let cancelled = Code(kind: .cancelled)

        /// A bounded, stable label for metrics (`"rate_limited"`).
        public var label: String {
            switch kind {
            case .rejected: "rejected"
            case .authenticationFailed: "authentication_failed"
            case .notFound: "not_found"
            case .conflict: "conflict"
            case .idempotencyConflict: "idempotency_conflict"
            case .rateLimited: "rate_limited"
            case .providerUnavailable: "provider_unavailable"
            case .timeout: "timeout"
            case .network: "network"
            case .unreachable: "unreachable"
            case .malformedResponse: "malformed_response"
            case .invalidAmount: "invalid_amount"
            case .invalidRequest: "invalid_request"
            case .unsupported: "unsupported"
            case .cancelled: "cancelled"
            }
        }

        /// Whether the failure is transient (network, timeout, 429, 5xx) rather than a refusal.
        public var isTransient: Bool {
            switch kind {
            case .rateLimited, .providerUnavailable, .timeout, .network, .unreachable: true
            case .rejected, .authenticationFailed, .notFound, .conflict, .idempotencyConflict,
                 .malformedResponse, .invalidAmount, .invalidRequest, .unsupported, .cancelled: false
            }
        }

        /// Whether a write may or may not have happened (reconcile before retrying without a key).
        public var outcomeUnknown: Bool {
            switch kind {
            case .providerUnavailable, .timeout, .network, .malformedResponse, .cancelled: true
            case .rejected, .authenticationFailed, .notFound, .conflict, .idempotencyConflict,
                 .rateLimited, .invalidAmount, .invalidRequest, .unsupported, .unreachable: false
            }
        }

        /// What the failure says about a write: never done, refused, or unknown (reconcile first).
        public var outcome: ProviderOutcome {
            switch kind {
            case .unreachable, .rateLimited: .notDone
            case .rejected, .authenticationFailed, .notFound, .conflict, .idempotencyConflict,
                 .invalidAmount, .invalidRequest, .unsupported: .refused
            case .providerUnavailable, .timeout, .network, .malformedResponse, .cancelled: .unknown
            }
        }

        public var description: String { label }
    }

    /// What kind of failure.
    public var code: Code
    /// Which provider.
    public var provider: ProviderName
    /// The adapter operation (`"createOrder"`).
    public var operation: String
    /// HTTP status, when the provider answered.
    public var httpStatus: Int?
    /// The provider's own error code (`BAD_REQUEST_ERROR`, `order_amount_invalid`).
    public var providerCode: String?
    /// The provider's reason (`input_validation_failed`), or the error `type` for Cashfree.
    public var reason: String?
    /// The offending field, when the provider names one.
    public var field: String?
    /// The provider's step (`payment_initiation`).
    public var step: String?
    /// The provider's source (`business`, `customer`, ...).
    public var source: String?
    /// Human-readable text from the provider or from PayQL (no secrets).
    public var message: String
    /// Seconds to wait before retrying, from `Retry-After` / `x-ratelimit-retry`.
    public var retryAfterSeconds: Int?
    /// The provider's trace/request id if it returned one (Setu `traceId`).
    public var traceID: String?

    /// An error with the given fields; the rest are nil.
    public init(_ code: Code, provider: ProviderName, operation: String, message: String,
                httpStatus: Int? = nil, providerCode: String? = nil, reason: String? = nil,
                field: String? = nil, step: String? = nil, source: String? = nil,
                retryAfterSeconds: Int? = nil, traceID: String? = nil) {
        self.code = code
        self.provider = provider
        self.operation = operation
        self.message = message
        self.httpStatus = httpStatus
        self.providerCode = providerCode
        self.reason = reason
        self.field = field
        self.step = step
        self.source = source
        self.retryAfterSeconds = retryAfterSeconds
        self.traceID = traceID
    }

    /// `"<provider> <operation>: <code>"`, for metric labels.
    public var metricLabel: String { "\(provider.rawValue).\(operation).\(code.label)" }

    public var description: String {
        var parts = ["\(provider) \(operation) failed: \(code.label)"]
        if let httpStatus { parts.append("HTTP \(httpStatus)") }
        if let providerCode { parts.append("code=\(providerCode)") }
        if let reason { parts.append("reason=\(reason)") }
        if let field { parts.append("field=\(field)") }
        if let step { parts.append("step=\(step)") }
        if let retryAfterSeconds { parts.append("retry-after=\(retryAfterSeconds)s") }
        parts.append("— \(message)")
        return parts.joined(separator: " ")
    }
}

extension ProviderError {
    /// An amount error in the context of a provider operation.
    static func amount(_ error: AmountError, provider: ProviderName, operation: String, field: String? = nil) -> ProviderError {
        ProviderError(.invalidAmount, provider: provider, operation: operation, message: error.description, field: field)
    }

    /// A request PayQL refuses to send.
    static func invalid(_ message: String, provider: ProviderName, operation: String, field: String? = nil) -> ProviderError {
        ProviderError(.invalidRequest, provider: provider, operation: operation, message: message, field: field)
    }
}
