public import HTTPClient
public import PaymentsCore
public import Providers

/// Credentials and base URLs per provider, as the executable read them (flags and
/// `PAYQL_*` secrets) or as the sandbox offers them. A provider without settings is absent.
public struct ProviderSettings: Sendable {
    /// Razorpay: key id and secret, webhook secret.
    public struct Razorpay: Sendable {
        public var baseURL: String
        public var keyID: String
        public var keySecret: Secret
        public var webhookSecret: Secret
        public init(baseURL: String, keyID: String, keySecret: Secret, webhookSecret: Secret) {
            self.baseURL = baseURL
            self.keyID = keyID
            self.keySecret = keySecret
            self.webhookSecret = webhookSecret
        }
    }

    /// Cashfree: client id and secret (the secret also signs webhooks).
    public struct Cashfree: Sendable {
        public var baseURL: String
        public var clientID: String
        public var clientSecret: Secret
        public init(baseURL: String, clientID: String, clientSecret: Secret) {
            self.baseURL = baseURL
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    /// Instamojo: OAuth client id and secret, the private salt that signs webhooks.
    public struct Instamojo: Sendable {
        public var baseURL: String
        public var clientID: String
        public var clientSecret: Secret
        public var salt: Secret
        public init(baseURL: String, clientID: String, clientSecret: Secret, salt: Secret) {
            self.baseURL = baseURL
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.salt = salt
        }
    }

    /// Setu: client id and secret, partner id, webhook key, and the key Setu presents on PayQL's partner endpoints.
    public struct Setu: Sendable {
        public var baseURL: String
        public var clientID: String
        public var secret: Secret
        public var partnerID: String
        public var webhookKey: Secret
        /// `X-SETU-BILLPAY-API-KEY` on `POST /setu/v1/*` (`PAYQL_SETU_BILLPAY_API_KEY`); nil: those endpoints answer 404.
        public var billPayAPIKey: Secret?
        public init(baseURL: String, clientID: String, secret: Secret, partnerID: String, webhookKey: Secret, billPayAPIKey: Secret? = nil) {
            self.baseURL = baseURL
            self.clientID = clientID
            self.secret = secret
            self.partnerID = partnerID
            self.webhookKey = webhookKey
            self.billPayAPIKey = billPayAPIKey
        }
    }

    public var razorpay: Razorpay?
    public var cashfree: Cashfree?
    public var instamojo: Instamojo?
    public var setu: Setu?
    /// Providers whose credentials are live ones (Razorpay's `rzp_live_` keys are detected by their prefix).
    public var live: Set<ProviderName>
    /// Timeouts and retries for every provider.
    public var transport: ProviderTransportSettings
    /// How long a DOWN provider gets no routed creates before one trial (`--provider-circuit-cooldown-ms`).
    public var circuitCooldown: Duration = .seconds(30)
    /// The clock provider health reads (tests move their own; nil: the continuous clock).
    var healthClock: (@Sendable () -> ContinuousClock.Instant)?

    public init(razorpay: Razorpay? = nil, cashfree: Cashfree? = nil, instamojo: Instamojo? = nil, setu: Setu? = nil,
                live: Set<ProviderName> = [], transport: ProviderTransportSettings = .init()) {
        self.razorpay = razorpay
        self.cashfree = cashfree
        self.instamojo = instamojo
        self.setu = setu
        self.live = live
        self.transport = transport
    }

    /// Whether no provider is configured.
    public var isEmpty: Bool { razorpay == nil && cashfree == nil && instamojo == nil && setu == nil }

    /// The adapters, sending through `client` (the caller shuts it down).
    public func registry(client: HTTPClient) -> ProviderRegistry {
        var registry = ProviderRegistry(circuitCooldown: circuitCooldown)
        if let healthClock { registry.health = ProviderHealth(cooldown: circuitCooldown, now: healthClock) }
        var live = self.live
        var transport = self.transport
        transport.observer = registry.health.observer
        if let razorpay {
            registry.razorpay = RazorpayAdapter(configuration: RazorpayConfiguration(
                baseURL: razorpay.baseURL, keyID: razorpay.keyID, keySecret: razorpay.keySecret, webhookSecret: razorpay.webhookSecret,
                transport: transport), client: client)
            registry.webhookSecrets[.razorpay] = razorpay.webhookSecret
            if razorpay.keyID.hasPrefix("rzp_live_") { live.insert(.razorpay) }
        }
        if let cashfree {
            registry.cashfree = CashfreeAdapter(configuration: CashfreeConfiguration(
                baseURL: cashfree.baseURL, clientID: cashfree.clientID, clientSecret: cashfree.clientSecret, transport: transport), client: client)
            registry.webhookSecrets[.cashfree] = cashfree.clientSecret
        }
        if let instamojo {
            registry.instamojo = InstamojoAdapter(configuration: InstamojoConfiguration(
                baseURL: instamojo.baseURL, clientID: instamojo.clientID, clientSecret: instamojo.clientSecret, privateSalt: instamojo.salt,
                transport: transport), client: client)
            registry.webhookSecrets[.instamojo] = instamojo.salt
        }
        if let setu {
            // Setu's org id travels in bill-pay calls; PayQL uses the partner id for it until part 2 needs them apart.
            registry.setu = SetuAdapter(configuration: SetuConfiguration(
                baseURL: setu.baseURL, clientID: setu.clientID, secret: setu.secret, partnerID: setu.partnerID, orgID: setu.partnerID,
                webhookAPIKey: setu.webhookKey, transport: transport), client: client)
            registry.webhookSecrets[.setu] = setu.webhookKey
            registry.setuBillPayAPIKey = setu.billPayAPIKey
        }
        for provider in ProviderName.allCases { registry.environments[provider] = live.contains(provider) ? .live : .test }
        return registry
    }
}
