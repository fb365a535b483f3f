public import PaymentsCore
/// What a provider adapter can do. Not every provider does everything:
/// Gateway routes by these flags, and the protocols below make the same
/// split visible in the type system.
public struct ProviderCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Create customers at the provider.
    public static let customers = ProviderCapabilities(rawValue: 1 << 0)
    /// Whitelist a customer's bank account for TPV.
    public static let tpvBankAccounts = ProviderCapabilities(rawValue: 1 << 1)
    /// Create and fetch orders.
    public static let orders = ProviderCapabilities(rawValue: 1 << 2)
    /// List an order's payment attempts.
    public static let orderPayments = ProviderCapabilities(rawValue: 1 << 3)
    /// Refund a payment.
    public static let refunds = ProviderCapabilities(rawValue: 1 << 4)
    /// The provider de-duplicates order creation by an idempotency key header.
    public static let orderIdempotencyKey = ProviderCapabilities(rawValue: 1 << 5)
    /// The provider de-duplicates refunds by an idempotency key header.
    public static let refundIdempotencyKey = ProviderCapabilities(rawValue: 1 << 6)
    /// Razorpay Turbo UPI customer session tokens.
    public static let turboUPISession = ProviderCapabilities(rawValue: 1 << 7)
    /// Verify a checkout's payment signature on the server.
    public static let paymentSignature = ProviderCapabilities(rawValue: 1 << 8)
    /// List an order's payment options (cards, banks, EMI, wallets, UPI).
    public static let paymentOptions = ProviderCapabilities(rawValue: 1 << 9)
    /// UPI collect requests to a VPA, with status polling.
    public static let upiCollect = ProviderCapabilities(rawValue: 1 << 10)
    /// Setu BBPS bill-pay links.
    public static let billPayLinks = ProviderCapabilities(rawValue: 1 << 11)
    /// Confirm a payment back to the provider (Setu payment-event).
    public static let paymentConfirmation = ProviderCapabilities(rawValue: 1 << 12)
    /// Verify webhook authenticity.
    public static let webhooks = ProviderCapabilities(rawValue: 1 << 13)
}

/// What every adapter has: a name, its capabilities and webhook verification.
public protocol PaymentProvider: Sendable {
    /// Which provider this adapter speaks to.
    var name: ProviderName { get }
    /// What it can do.
    var capabilities: ProviderCapabilities { get }
    /// Checks a webhook's authenticity over its raw bytes. Never throws:
    /// anything wrong is an `.invalid(reason)`.
    func verifyWebhook(_ request: WebhookRequest) -> WebhookVerdict
}

/// Providers with orders, payments and refunds (Razorpay, Cashfree, Instamojo).
public protocol OrderProvider: PaymentProvider {
    /// Creates an order (checkout) and returns what the client SDK needs.
    func createOrder(_ request: CreateOrderRequest) async throws(ProviderError) -> ProviderOrder
    /// Fetches an order by the provider's id; its status is the source of truth for "paid".
    func fetchOrder(id: String) async throws(ProviderError) -> ProviderOrder
    /// The payment attempts made against an order.
    func fetchPayments(orderID: String) async throws(ProviderError) -> [ProviderPayment]
    /// Refunds all or part of a payment.
    func createRefund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund
}

/// Providers that keep customer records (Razorpay).
public protocol CustomerProvider: PaymentProvider {
    /// Creates a customer; with `failIfExists == false` the existing one is returned instead.
    func createCustomer(_ customer: CustomerDetails, gstin: String?, notes: [String: String],
                        failIfExists: Bool) async throws(ProviderError) -> ProviderCustomer
}

/// Providers that whitelist bank accounts for Third-Party Validation (Razorpay).
public protocol BankAccountWhitelisting: PaymentProvider {
    /// Adds (whitelists) a bank account to a customer.
    func addBankAccount(customerID: String, account: BankAccountDetails) async throws(ProviderError) -> ProviderBankAccount
    /// Removes a whitelisted bank account.
    func deleteBankAccount(customerID: String, bankAccountID: String) async throws(ProviderError)
}
