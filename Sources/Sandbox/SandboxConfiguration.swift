/// The four simulated providers; the raw value is the path prefix.
public enum SandboxProvider: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Razorpay (`https://api.razorpay.com`).
    case razorpay
    /// Cashfree Payments PG (`https://sandbox.cashfree.com/pg`).
    case cashfree
    /// Instamojo API v2 (`https://test.instamojo.com`).
    case instamojo
    /// Setu BBPS BillPay (`https://sandbox-coudc.setu.co`).
    case setu

    /// The provider's name, as in paths and `--webhook-url provider=URL`.
    public var description: String { rawValue }

    /// What replaces the real base URL below the sandbox root (`/cashfree/pg` for `https://sandbox.cashfree.com/pg`).
    public var basePath: String {
        switch self {
        case .razorpay: "/razorpay"
        case .cashfree: "/cashfree/pg"
        case .instamojo: "/instamojo"
        case .setu: "/setu"
        }
    }
}

/// Where webhooks are sent.
///
/// `"razorpay=http://…"` targets one provider with that exact URL; a URL
/// containing `{provider}` gets the provider's name substituted; any other URL
/// gets `/{provider}` appended (the gateway's `POST /webhooks/{provider}`).
public struct WebhookTarget: Sendable, Equatable {
    /// Only this provider's webhooks, or all when nil.
    public var provider: SandboxProvider?
    /// The URL as configured (may contain `{provider}`).
    public var url: String

    /// Parses the `--webhook-url` form: `[provider=]URL`.
    public init(_ specification: String) {
        if let equals = specification.firstIndex(of: "="),
           let provider = SandboxProvider(rawValue: String(specification[..<equals])) {
            self.provider = provider
            self.url = String(specification[specification.index(after: equals)...])
        } else {
            self.provider = nil
            self.url = specification
        }
    }

    /// A target for one provider (exact URL) or for all (`provider: nil`, see the type's rules).
    public init(provider: SandboxProvider?, url: String) {
        self.provider = provider
        self.url = url
    }

    /// The URL this target uses for `provider`, or nil if it does not apply.
    public func url(for provider: SandboxProvider) -> String? {
        if let only = self.provider { return only == provider ? url : nil }
        if url.contains("{provider}") { return url.replacingAll("{provider}", with: provider.rawValue) }
        return (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/" + provider.rawValue
    }
}

/// The credentials each simulator accepts, and the secrets it signs webhooks with.
///
/// Defaults are fixed, documented test values (docs/sandbox.md); they are not
/// secrets of any real account.
public struct SandboxCredentials: Sendable, Equatable {
    /// Razorpay API key id (`rzp_test_…`), the Basic-auth user.
    public var razorpayKeyID = "rzp_test_sandbox00001"
    /// Razorpay API key secret: Basic-auth password and Checkout signature key.
    public var razorpayKeySecret = "sandbox_razorpay_key_secret"
    /// Razorpay webhook secret (signs `X-Razorpay-Signature`; not the key secret).
    public var razorpayWebhookSecret = "sandbox_razorpay_webhook_secret"
    /// Cashfree `x-client-id`.
    public var cashfreeClientID = "cf_test_sandbox_app_id"
    /// Cashfree `x-client-secret`; also the webhook signing key.
    public var cashfreeClientSecret = "cfsk_test_sandbox_secret"
    /// Instamojo OAuth2 client id.
    public var instamojoClientID = "test_sandbox_client_id"
    /// Instamojo OAuth2 client secret.
    public var instamojoClientSecret = "test_sandbox_client_secret"
    /// Instamojo private salt (webhook `mac`).
    public var instamojoPrivateSalt = "sandbox_instamojo_private_salt"
    /// Setu `clientID` for `POST /api/v2/auth/token`.
    public var setuClientID = "sandbox-setu-client-id"
    /// Setu `secret` for the token call.
    public var setuSecret = "sandbox-setu-secret"
    /// Setu `X-PARTNER-ID` (an integer as text).
    public var setuPartnerID = "100000000001"
    /// Setu user-event webhook key (`X-BILL-WEBHOOK-API-KEY`).
    public var setuWebhookKey = "sandbox-setu-webhook-key"
    /// The key Setu sends when it calls the partner's own endpoints (`X-SETU-BILLPAY-API-KEY`).
    public var setuBillPayAPIKey = "sandbox-setu-billpay-api-key"

    /// The documented defaults; change fields to accept other credentials.
    public init() {}

    /// The documented default test credentials.
    public static let defaults = SandboxCredentials()
}

/// How `SandboxServer` runs.
public struct SandboxConfiguration: Sendable {
    /// Address to bind; loopback by default.
    public var host: String
    /// Port to bind; 0 picks a free one (read `SandboxServer.port`).
    public var port: Int
    /// Where webhooks go.
    public var webhookTargets: [WebhookTarget]
    /// Latency added to every provider API request (not to `/_sandbox`).
    public var latency: Duration
    /// Fault rules active from the start.
    public var faults: [FaultRule]
    /// Credentials the simulators accept.
    public var credentials: SandboxCredentials
    /// Timeout of one webhook delivery attempt.
    public var webhookTimeout: Duration
    /// Further attempts after a failed delivery (no answer or not 2xx); 0 = none.
    public var webhookRetries: Int
    /// Wait before the first retry; each later retry waits twice as long.
    public var webhookRetryDelay: Duration
    /// The base URL of the partner's endpoints that Setu calls (`{base}/setu/v1/getPaymentStatus`,
    /// `{base}/setu/v1/refund`); nil = those control calls are refused.
    public var setuPartnerURL: String?

    /// A configuration with the documented defaults (loopback, port 8090, no
    /// webhook targets, no latency or faults, default credentials, 5 s webhook
    /// timeout, no webhook retries, 1 s first retry delay).
    public init(host: String = "127.0.0.1", port: Int = 8090, webhookTargets: [WebhookTarget] = [],
                latency: Duration = .zero, faults: [FaultRule] = [],
                credentials: SandboxCredentials = .defaults, webhookTimeout: Duration = .seconds(5),
                webhookRetries: Int = 0, webhookRetryDelay: Duration = .seconds(1), setuPartnerURL: String? = nil) {
        self.host = host
        self.port = port
        self.webhookTargets = webhookTargets
        self.latency = latency
        self.faults = faults
        self.credentials = credentials
        self.webhookTimeout = webhookTimeout
        self.webhookRetries = webhookRetries
        self.webhookRetryDelay = webhookRetryDelay
        self.setuPartnerURL = setuPartnerURL
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
