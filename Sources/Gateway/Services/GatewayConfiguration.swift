/// How the Gateway behaves; every value has a documented default (docs/api.md).
public struct GatewayConfiguration: Sendable {
    /// The most a client session may set as its order cap, and its default (₹1,00,000 in paise).
    public var sessionMaxOrderAmountMinor: Int64 = 10_000_000
    /// How long an authenticated key is trusted before it is looked up again (also the longest a revoked key keeps working).
    public var keyCacheLifetime: Duration = .seconds(5)
    /// The keys that encrypt TPV account numbers at rest (`PAYQL_DATA_KEY`, read by the executable only).
    /// nil: TPV bank accounts cannot be added or used (CAPABILITY_NOT_SUPPORTED).
    public var dataKeys: DataKeyring?
    /// Where merchant notifications are POSTed, and their signing secret (docs/api.md, "Merchant webhooks"). Default: none.
    public var merchantWebhooks = MerchantWebhookConfiguration()
    /// UPI collect waiting and polling (Instamojo custom UI).
    public var upiCollects = UpiCollectSettings()

    /// How long a Setu bill-pay link may start a bill payment (`BillPayLink.expiresAt`). Setu documents links as single-use
    /// without a lifetime; PayQL refuses older ones so that a stale web view session is not paid. Default 1 h.
    public var billPayLinkLifetime: Duration = .seconds(3600)

    /// The defaults.
    public init() {}
}
