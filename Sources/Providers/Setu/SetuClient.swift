public import HTTPClient
public import PaymentsCore

/// How to reach Setu BBPS BillPay and with which credentials.
public struct SetuConfiguration: Sendable {
    /// `https://sandbox-coudc.setu.co` [H].
    public static let sandboxBaseURL = "https://sandbox-coudc.setu.co"
    /// `https://coudc.setu.co` [H].
    public static let productionBaseURL = "https://coudc.setu.co"

    /// Host root; `/api/v2/…` is appended (default ``sandboxBaseURL``).
    public var baseURL: String
    /// `clientID` for the token call.
    public var clientID: String
    /// `secret` for the token call.
    public var secret: Secret
    /// `X-PARTNER-ID` sent on every call.
    public var partnerID: String
    /// `orgId` for link creation.
    public var orgID: String
    /// The static key Setu sends in `X-BILL-WEBHOOK-API-KEY`.
    public var webhookAPIKey: Secret
    /// `x-api-user` / `x-api-password` for payment-event, if Setu issued them. The
    /// three sources disagree on this call's authentication [L], so PayQL sends
    /// `X-PARTNER-ID`, the Bearer token and these when configured.
    public var apiUser: String?
    /// `x-api-password`, paired with ``apiUser``.
    public var apiPassword: Secret?
    /// Refresh the token when less than this remains.
    public var tokenRefreshMargin: Duration
    /// Timeouts and retries.
    public var transport: ProviderTransportSettings
    /// Amounts: INR; Setu documents no bounds [L], so from 1 paisa up to
    /// 999 999 999 999 999 paise (15 significant digits).
    public var amountRules: AmountRules

    /// A configuration with the documented defaults.
    public init(baseURL: String = SetuConfiguration.sandboxBaseURL, clientID: String, secret: Secret, partnerID: String,
                orgID: String, webhookAPIKey: Secret, apiUser: String? = nil, apiPassword: Secret? = nil,
                tokenRefreshMargin: Duration = .seconds(60), transport: ProviderTransportSettings = .init(),
                amountRules: AmountRules = SetuConfiguration.defaultAmountRules) {
        self.baseURL = baseURL
        self.clientID = clientID
        self.secret = secret
        self.partnerID = partnerID
        self.orgID = orgID
        self.webhookAPIKey = webhookAPIKey
        self.apiUser = apiUser
        self.apiPassword = apiPassword
        self.tokenRefreshMargin = tokenRefreshMargin
        self.transport = transport
        self.amountRules = amountRules
    }

    /// INR, 1 … 999 999 999 999 999 paise.
    public static let defaultAmountRules = AmountRules(currencies: ["INR"], minimum: 1, maximum: 999_999_999_999_999)
}

/// The Setu BBPS BillPay adapter (pre-built screens with the merchant's own
/// payment gateway): bill-pay links, the `initiate_payment` data, payment
/// confirmation back to Setu and webhook verification.
public struct SetuAdapter: PaymentProvider {
    /// Which provider this adapter speaks to.
    public let name = ProviderName.setu
    /// What this adapter can do.
    public let capabilities: ProviderCapabilities = [.billPayLinks, .paymentConfirmation, .webhooks]
    /// The configuration in force.
    public let configuration: SetuConfiguration
    private let http: ProviderHTTP
    private let tokens: BearerTokenCache

    /// An adapter sending through `client` (shared; the caller shuts it down).
    public init(configuration: SetuConfiguration, client: HTTPClient) {
        self.configuration = configuration
        let http = ProviderHTTP(client: client, provider: .setu, settings: configuration.transport,
                                parseError: { SetuTransformers.parseError(status: $0, body: $1) })
        self.http = http
        let tokenURL = ProviderHTTP.join(configuration.baseURL, "/api/v2/auth/token")
        let request = SetuTokenRequest(clientID: configuration.clientID, secret: configuration.secret.revealed)
        tokens = BearerTokenCache(refreshMargin: configuration.tokenRefreshMargin) { () async throws(ProviderError) in
            let body: [UInt8]
            do { body = try WireCoding.encode(request) } catch {
                throw ProviderError(.invalidRequest, provider: .setu, operation: "fetchToken", message: "cannot encode request")
            }
            let token = try await http.json(SetuToken.self, method: "POST", url: tokenURL,
                                            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                                            body: body, operation: "fetchToken", safeToRepeat: true, secretBearing: true)
            return (token.token, token.expiresIn)
        }
    }

    /// How many tokens were fetched so far.
    public func tokenFetchCount() async -> Int { await tokens.fetchCount }

    private func send<T: Decodable>(_ type: T.Type, path: String, body value: some Encodable, operation: String,
                                    safeToRepeat: Bool, extraHeaders: [(name: String, value: String)] = []) async throws(ProviderError) -> T {
        let body = try http.jsonBody(value, operation: operation)
        var attempt = 0
        while true {
            attempt += 1
            let token = try await tokens.token()
            let headers: [(name: String, value: String)] = [
                ("Authorization", "Bearer \(token.revealed)"), ("X-PARTNER-ID", configuration.partnerID),
                ("Content-Type", "application/json"), ("Accept", "application/json"),
            ] + extraHeaders
            do {
                return try await http.json(type, method: "POST", url: ProviderHTTP.join(configuration.baseURL, path), headers: headers,
                                           body: body, operation: operation, safeToRepeat: safeToRepeat)
            } catch where error.httpStatus == 401 && attempt == 1 {
                await tokens.invalidate(token)
            }
        }
    }

    /// `POST /api/v2/ethereal/link`: a single-use link into Setu's bill-pay screens.
    /// Not retried (each call makes a new session).
    public func createBillPayLink(_ request: SetuBillPayLinkRequest) async throws(ProviderError) -> SetuBillPayLink {
        let wire = try SetuTransformers.linkRequest(request, orgID: configuration.orgID)
        let answer = try await send(SetuLink.self, path: "/api/v2/ethereal/link", body: wire, operation: "createBillPayLink",
                                    safeToRepeat: false)
        // Every answer carries `success`; a 2xx saying false is still a refusal.
        if answer.success == false {
            throw ProviderError(.rejected, provider: name, operation: "createBillPayLink", message: "Setu answered success: false",
                                traceID: answer.traceId)
        }
        return SetuTransformers.link(answer)
    }

    /// Reads the `initiate_payment` JSON the app received from Setu's webview
    /// (current and deprecated names; amount as a string or number, exact).
    public static func parseInitiatePayment(_ body: [UInt8],
                                            rules: AmountRules = SetuConfiguration.defaultAmountRules) throws(ProviderError) -> SetuPaymentInitiation {
        switch WireCoding.decodeOrExplain(SetuInitiatePaymentWire.self, from: body) {
        case .success(let wire): return try SetuTransformers.initiation(wire, rules: rules)
        case .failure(let failure):
            throw ProviderError(.invalidRequest, provider: .setu, operation: "parseInitiatePayment",
                                message: "initiate_payment data is not understood: \(failure.message)")
        }
    }

    /// `POST /api/v2/webhooks/payment-event`: tells Setu the payment's outcome.
    /// Setu documents it as idempotent, so it is retried on transient failures.
    /// `allowed` (from the initiation) is checked before sending.
    public func confirmPayment(_ confirmation: SetuPaymentConfirmation, allowedModes: [SetuPaymentMode] = []) async throws(ProviderError) {
        let operation = "confirmPayment"
        if !allowedModes.isEmpty, !allowedModes.contains(confirmation.mode) {
            throw .invalid("payment mode \(confirmation.mode.rawValue) is not among the allowed ones", provider: name,
                           operation: operation, field: "paymentMode")
        }
        let wire = try SetuTransformers.paymentEvent(confirmation, rules: configuration.amountRules)
        var extra: [(name: String, value: String)] = []
        if let user = configuration.apiUser, let password = configuration.apiPassword {
            extra = [("x-api-user", user), ("x-api-password", password.revealed)]
        }
        let answer = try await send(SetuAcknowledgement.self, path: "/api/v2/webhooks/payment-event", body: wire,
                                    operation: operation, safeToRepeat: true, extraHeaders: extra)
        guard answer.status == "acknowledged" else {
            throw ProviderError(.malformedResponse, provider: name, operation: operation,
                                message: "Setu answered status '\(answer.status)', not acknowledged")
        }
    }

    /// `POST /api/v2/webhooks/refund-event` (optional in Setu's docs, setu.md §5): tells Setu the outcome of a
    /// refund of a bill's payment. The path prefix is not stated [M]; PayQL uses the payment-event's `/api/v2`.
    /// Retried on transient failures (an acknowledgement of the same refund id is idempotent).
    public func reportRefund(orderID: String, refundID: String, succeeded: Bool, at seconds: Int64) async throws(ProviderError) {
        let operation = "reportRefund"
        let wire = SetuRefundEventRequest(orderId: orderID, refundId: refundID, refundStatus: succeeded ? "success" : "failure",
                                          refundDateTime: SetuTransformers.utcDateTime(seconds))
        var extra: [(name: String, value: String)] = []
        if let user = configuration.apiUser, let password = configuration.apiPassword {
            extra = [("x-api-user", user), ("x-api-password", password.revealed)]
        }
        let answer = try await send(SetuAcknowledgement.self, path: "/api/v2/webhooks/refund-event", body: wire,
                                    operation: operation, safeToRepeat: true, extraHeaders: extra)
        guard answer.status == "acknowledged" else {
            throw ProviderError(.malformedResponse, provider: name, operation: operation,
                                message: "Setu answered status '\(answer.status)', not acknowledged")
        }
    }

    /// Verifies `X-BILL-WEBHOOK-API-KEY` against the configured key.
    public func verifyWebhook(_ request: WebhookRequest) -> WebhookVerdict {
        SetuWebhook.verify(request, key: configuration.webhookAPIKey)
    }

    /// Webhook verification without an adapter (for `payql webhook verify`).
    public static func verifyWebhook(_ request: WebhookRequest, key: Secret) -> WebhookVerdict {
        SetuWebhook.verify(request, key: key)
    }
}
