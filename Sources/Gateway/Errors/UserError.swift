public import PaymentsCore
import Providers

/// The contract's `UserErrorCode`: why a mutation did not do what was asked.
/// Raw values are the GraphQL enum values.
public enum UserErrorCode: String, Sendable, CaseIterable {
    case validationFailed = "VALIDATION_FAILED"
    case required = "REQUIRED"
    case invalidParameterCombination = "INVALID_PARAMETER_COMBINATION"
    case invalidAmount = "INVALID_AMOUNT"
    case amountTooPrecise = "AMOUNT_TOO_PRECISE"
    case amountOutOfRange = "AMOUNT_OUT_OF_RANGE"
    case amountMismatch = "AMOUNT_MISMATCH"
    case unsupportedCurrency = "UNSUPPORTED_CURRENCY"
    case invalidPhone = "INVALID_PHONE"
    case invalidEmail = "INVALID_EMAIL"
    case invalidIFSC = "INVALID_IFSC"
    case invalidAccountNumber = "INVALID_ACCOUNT_NUMBER"
    case invalidVPA = "INVALID_VPA"
    case invalidGSTIN = "INVALID_GSTIN"
    case tooManyNotes = "TOO_MANY_NOTES"
    case notFound = "NOT_FOUND"
    case alreadyExists = "ALREADY_EXISTS"
    case invalidState = "INVALID_STATE"
    case paymentModeNotAllowed = "PAYMENT_MODE_NOT_ALLOWED"
    case capabilityNotSupported = "CAPABILITY_NOT_SUPPORTED"
    case noRoute = "NO_ROUTE"
    case signatureMismatch = "SIGNATURE_MISMATCH"
    case paymentNotConfirmed = "PAYMENT_NOT_CONFIRMED"
    case notEligible = "NOT_ELIGIBLE"
    case idempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
    case idempotencyKeyInUse = "IDEMPOTENCY_KEY_IN_USE"
    case providerRejected = "PROVIDER_REJECTED"
    case providerAuthenticationFailed = "PROVIDER_AUTHENTICATION_FAILED"
    case providerRateLimited = "PROVIDER_RATE_LIMITED"
    case providerUnavailable = "PROVIDER_UNAVAILABLE"
    case providerTimeout = "PROVIDER_TIMEOUT"
    case providerMalformedResponse = "PROVIDER_MALFORMED_RESPONSE"
}

/// A business or provider failure, reported in a mutation payload's `userErrors`
/// (never as a top-level error). Carries no secret: messages are built here or
/// are the provider's own description.
public struct UserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an enum the client can switch on.
    public var code: UserErrorCode
    /// A sentence for a developer.
    public var message: String
    /// The path to the input field at fault (`["input", "amount", "amount"]`), when one is.
    public var field: [String]?
    /// The provider that said no, for provider failures.
    public var provider: ProviderName?
    /// The provider's own error code.
    public var providerCode: String?
    /// Whether the same call may succeed later (then its idempotency key is released).
    public var retryable: Bool
    /// The provider's request id to quote to its support (Setu `traceId`).
    public var providerTraceID: String?

    /// A user error; `retryable` defaults to false.
    public init(_ code: UserErrorCode, _ message: String, field: [String]? = nil, provider: ProviderName? = nil,
                providerCode: String? = nil, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.field = field
        self.provider = provider
        self.providerCode = providerCode
        self.retryable = retryable
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The input field `name` of the mutation's `input` argument is missing.
    static func required(_ path: String...) -> UserError {
        UserError(.required, "\(path.joined(separator: ".")) is required", field: ["input"] + path)
    }

    /// A provider failure in the contract's terms (see the API README, "Provider outcomes"):
    /// `PROVIDER_UNAVAILABLE` when nothing was done, `PROVIDER_TIMEOUT` when the outcome is unknown.
    static func provider(_ error: ProviderError) -> UserError {
        let code: UserErrorCode
        let retryable: Bool
        switch error.code.outcome {
        case .notDone:
            code = error.code == .rateLimited ? .providerRateLimited : .providerUnavailable
            retryable = true
        case .unknown:
            code = error.code == .malformedResponse ? .providerMalformedResponse : .providerTimeout
            retryable = true
        case .refused:
            switch error.code {
            case .authenticationFailed: code = .providerAuthenticationFailed
            case .notFound: code = .notFound
            case .invalidAmount: code = .invalidAmount
            case .unsupported: code = .capabilityNotSupported
            default: code = .providerRejected
            }
            retryable = false
        }
        var userError = UserError(code, error.message, provider: error.provider,
                                  providerCode: error.providerCode ?? error.reason, retryable: retryable)
        userError.providerTraceID = error.traceID
        return userError
    }
}
