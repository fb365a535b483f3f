import HTTPClient
public import PaymentsCore
public import Providers

/// Which environment a provider's credentials talk to (the contract's `ProviderEnvironment`).
public enum ProviderEnvironment: String, Sendable {
    case test = "TEST"
    case live = "LIVE"
}

/// The configured providers: an adapter per provider that has credentials (or the sandbox).
public struct ProviderRegistry: Sendable {
    /// Razorpay, when configured.
    public var razorpay: RazorpayAdapter?
    /// Cashfree, when configured.
    public var cashfree: CashfreeAdapter?
    /// Instamojo, when configured.
    public var instamojo: InstamojoAdapter?
    /// Setu, when configured.
    public var setu: SetuAdapter?
    /// Each provider's environment.
    public var environments: [ProviderName: ProviderEnvironment]
    /// Webhook secrets per provider (Razorpay webhook secret, Cashfree client secret, Instamojo salt, Setu key).
    public var webhookSecrets: [ProviderName: Secret]
    /// The key Setu presents in `X-SETU-BILLPAY-API-KEY` on PayQL's partner endpoints (`POST /setu/v1/*`); nil: not served.
    public var setuBillPayAPIKey: Secret?
    /// Recent calls per provider (what `providers { health }` shows, and routing's circuit breaker);
    /// adapters report to ``ProviderHealth/observer``.
    var health: ProviderHealth

    /// A registry of the given adapters; a DOWN provider's circuit stays open `circuitCooldown`
    /// after its last failure (``ProviderHealth``).
    public init(razorpay: RazorpayAdapter? = nil, cashfree: CashfreeAdapter? = nil, instamojo: InstamojoAdapter? = nil,
                setu: SetuAdapter? = nil, environments: [ProviderName: ProviderEnvironment] = [:],
                webhookSecrets: [ProviderName: Secret] = [:], circuitCooldown: Duration = .seconds(30)) {
        self.health = ProviderHealth(cooldown: circuitCooldown)
        self.razorpay = razorpay
        self.cashfree = cashfree
        self.instamojo = instamojo
        self.setu = setu
        self.environments = environments
        self.webhookSecrets = webhookSecrets
    }

    /// Whether `provider` is configured.
    public func isConfigured(_ provider: ProviderName) -> Bool {
        switch provider {
        case .razorpay: razorpay != nil
        case .cashfree: cashfree != nil
        case .instamojo: instamojo != nil
        case .setu: setu != nil
        }
    }

    /// The environment `provider` talks to (TEST unless configured as live).
    public func environment(_ provider: ProviderName) -> ProviderEnvironment { environments[provider] ?? .test }

    /// The contract's `ProviderCapability` names of what the adapter can do.
    func capabilityNames(_ provider: ProviderName) -> [String] {
        let capabilities: ProviderCapabilities? = switch provider {
        case .razorpay: razorpay?.capabilities
        case .cashfree: cashfree?.capabilities
        case .instamojo: instamojo?.capabilities
        case .setu: setu?.capabilities
        }
        guard let capabilities else { return [] }
        let names: [(ProviderCapabilities, String)] = [
            (.customers, "CUSTOMERS"), (.tpvBankAccounts, "TPV_BANK_ACCOUNTS"), (.orders, "ORDERS"), (.orderPayments, "ORDER_PAYMENTS"),
            (.refunds, "REFUNDS"), (.orderIdempotencyKey, "ORDER_IDEMPOTENCY_KEY"), (.refundIdempotencyKey, "REFUND_IDEMPOTENCY_KEY"),
            (.turboUPISession, "TURBO_UPI_SESSION"), (.paymentSignature, "PAYMENT_SIGNATURE"), (.paymentOptions, "PAYMENT_OPTIONS"),
            (.upiCollect, "UPI_COLLECT"), (.billPayLinks, "BILL_PAY_LINKS"), (.paymentConfirmation, "PAYMENT_CONFIRMATION"),
            (.webhooks, "WEBHOOKS"),
        ]
        return names.filter { capabilities.contains($0.0) }.map(\.1)
    }

    /// The order amount limits of an order provider.
    func orderAmountRules(_ provider: ProviderName) -> AmountRules? {
        switch provider {
        case .razorpay: razorpay?.configuration.orderAmountRules
        case .cashfree: cashfree?.configuration.orderAmountRules
        case .instamojo: instamojo?.configuration.orderAmountRules
        case .setu: nil
        }
    }
}
