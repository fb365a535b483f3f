import Crypto
public import JSON
public import PaymentsCore
import Support

/// A webhook exactly as it arrived: headers and the raw body bytes.
///
/// Signatures are over the raw bytes, so nothing here re-encodes the body.
public struct WebhookRequest: Sendable {
    /// Header fields in arrival order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    /// The raw body.
    public var body: [UInt8]
    /// `body` as `JSONParser.parse` reads it, when the caller has already parsed it (the Gateway parses an
    /// authentic body once, for its event and for the redacted copy it stores); nil: a reader that wants the
    /// JSON parses `body` itself. Only a value parsed from exactly `body` belongs here.
    public var parsedJSON: JSONValue?

    /// Creates the value from its fields.
    public init(headers: [(name: String, value: String)], body: [UInt8], parsedJSON: JSONValue? = nil) {
        self.headers = headers
        self.body = body
        self.parsedJSON = parsedJSON
    }

    /// The value of the first header named `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { ASCII.caseInsensitiveEquals($0.name, name) }?.value
    }

    /// How many headers are named `name`.
    func headerCount(_ name: String) -> Int {
        headers.count { ASCII.caseInsensitiveEquals($0.name, name) }
    }
}

/// The outcome of a webhook check. `invalid` carries a reason fit for a log
/// line (never the secret or the expected signature).
public enum WebhookVerdict: Sendable, Equatable, CustomStringConvertible {
    case valid
    case invalid(String)

    /// Whether the webhook is authentic.
    public var isValid: Bool { self == .valid }

    public var description: String {
        switch self {
        case .valid: "valid"
        case .invalid(let reason): "invalid: \(reason)"
        }
    }
}

/// What a provider's webhook module extracts: the bytes the provider signed,
/// the signature text presented, and how the signature is computed and
/// encoded. ``WebhookVerifier`` does the cryptography once for everyone.
struct SignedMessage: Sendable {
    enum Scheme: Sendable {
        /// Lower-case hex of HMAC-SHA256 (Razorpay).
        case hmacSHA256Hex
        /// Standard Base64 (padded) of HMAC-SHA256 (Cashfree).
        case hmacSHA256Base64
        /// Lower-case hex of HMAC-SHA1 (Instamojo).
        case hmacSHA1Hex
    }

    var message: [UInt8]
    var presentedSignature: String
    var scheme: Scheme
}

/// Shared verification: computes the MAC, encodes it the way the provider
/// does, and compares the texts in constant time. Exact text comparison is
/// deliberate: Razorpay's SDK rejects upper-case hex (vector rzp-pay-06),
/// Cashfree's rejects hex where Base64 is expected (cf-wh-06).
enum WebhookVerifier {
    /// Checks `signed` under `secret`.
    static func verify(_ signed: SignedMessage, secret: Secret) -> WebhookVerdict {
        guard !secret.isEmpty else { return .invalid("no secret configured") }
        guard !signed.presentedSignature.isEmpty else { return .invalid("empty signature") }
        let key = Array(secret.revealed.utf8)
        let expected: String
        switch signed.scheme {
        case .hmacSHA256Hex: expected = Encoding.hex(Crypto.hmac(.sha256, key: key, message: signed.message))
        case .hmacSHA256Base64: expected = Encoding.base64(Crypto.hmac(.sha256, key: key, message: signed.message))
        case .hmacSHA1Hex: expected = Encoding.hex(Crypto.hmac(.sha1, key: key, message: signed.message))
        }
        return Crypto.constantTimeEquals(Array(expected.utf8), Array(signed.presentedSignature.utf8))
            ? .valid : .invalid("signature mismatch")
    }

    /// A static shared key in a header (Setu): constant-time equality.
    static func verifyStaticKey(presented: String?, expected: Secret, headerName: String) -> WebhookVerdict {
        guard !expected.isEmpty else { return .invalid("no key configured") }
        guard let presented else { return .invalid("missing \(headerName) header") }
        return Crypto.constantTimeEquals(Array(presented.utf8), Array(expected.revealed.utf8))
            ? .valid : .invalid("\(headerName) does not match")
    }
}
