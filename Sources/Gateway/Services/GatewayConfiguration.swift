/// How the Gateway behaves; every value has a documented default (docs/api.md).
public struct GatewayConfiguration: Sendable {
    /// The most a client session may set as its order cap, and its default (₹1,00,000 in paise).
    public var sessionMaxOrderAmountMinor: Int64 = 10_000_000
    /// How long an authenticated key is trusted before it is looked up again (also the longest a revoked key keeps working).
    public var keyCacheLifetime: Duration = .seconds(5)
    /// The keys that encrypt TPV account numbers at rest (`PAYQL_DATA_KEY`, read by the executable only).
    /// nil: TPV bank accounts cannot be added or used (CAPABILITY_NOT_SUPPORTED).
    public var dataKeys: DataKeyring?

    /// The defaults.
    public init() {}
}
