public import HTTPClient
public import PaymentsCore

/// How to reach Instamojo (API v2) and with which credentials.
public struct InstamojoConfiguration: Sendable {
    /// Test environment host (API under `/v2/`, token at `/oauth2/token/`) [H].
    public static let testBaseURL = "https://test.instamojo.com"
    /// Production host [H].
    public static let productionBaseURL = "https://api.instamojo.com"

    /// Host root; `/v2/…` and `/oauth2/token/` are appended (default ``testBaseURL``).
    public var baseURL: String
    /// OAuth2 client id (`test_…` in test).
    public var clientID: String
    /// OAuth2 client secret.
    public var clientSecret: Secret
    /// The private salt that keys webhook MACs.
    public var privateSalt: Secret
    /// Refresh the token when less than this remains (the Java SDK uses 300 s) [H].
    public var tokenRefreshMargin: Duration
    /// Reason code sent with refunds made through ``InstamojoAdapter/createRefund(_:)``.
    public var defaultRefundReason: InstamojoRefundReason
    /// Timeouts and retries.
    public var transport: ProviderTransportSettings
    /// Payment request amounts: INR ₹9 … ₹2,00,000 (v2 reference) [H].
    public var orderAmountRules: AmountRules

    /// A configuration with the documented defaults.
    public init(baseURL: String = InstamojoConfiguration.testBaseURL, clientID: String, clientSecret: Secret,
                privateSalt: Secret, tokenRefreshMargin: Duration = .seconds(300),
                defaultRefundReason: InstamojoRefundReason = .other, transport: ProviderTransportSettings = .init(),
                orderAmountRules: AmountRules = InstamojoConfiguration.defaultOrderAmountRules) {
        self.baseURL = baseURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.privateSalt = privateSalt
        self.tokenRefreshMargin = tokenRefreshMargin
        self.defaultRefundReason = defaultRefundReason
        self.transport = transport
        self.orderAmountRules = orderAmountRules
    }

    /// INR, 900 … 20 000 000 paise.
    public static let defaultOrderAmountRules = AmountRules(currencies: ["INR"], minimum: 900, maximum: 20_000_000)
}

/// The Instamojo adapter: OAuth2 client-credentials token (cached, refreshed
/// before expiry, one fetch at a time), payment requests and gateway orders,
/// the order's payment options, UPI collect and its status, payment details,
/// refunds and the webhook MAC.
public struct InstamojoAdapter: OrderProvider {
    /// Which provider this adapter speaks to.
    public let name = ProviderName.instamojo
    /// What this adapter can do.
    public let capabilities: ProviderCapabilities = [.orders, .orderPayments, .refunds, .paymentOptions, .upiCollect, .webhooks]
    /// The configuration in force.
    public let configuration: InstamojoConfiguration
    private let http: ProviderHTTP
    private let tokens: BearerTokenCache
    private var refundRules: AmountRules {
        AmountRules(currencies: configuration.orderAmountRules.currencies, minimum: 1, maximum: configuration.orderAmountRules.maximum)
    }

    /// An adapter sending through `client` (shared; the caller shuts it down).
    public init(configuration: InstamojoConfiguration, client: HTTPClient) {
        self.configuration = configuration
        let http = ProviderHTTP(client: client, provider: .instamojo, settings: configuration.transport,
                                parseError: { InstamojoTransformers.parseError(status: $0, body: $1) })
        self.http = http
        let tokenURL = ProviderHTTP.join(configuration.baseURL, "/oauth2/token/")
        let fields = [("grant_type", "client_credentials"), ("client_id", configuration.clientID),
                      ("client_secret", configuration.clientSecret.revealed)]
        tokens = BearerTokenCache(refreshMargin: configuration.tokenRefreshMargin) { () async throws(ProviderError) in
            // Asking for a token twice is harmless, so the fetch may be retried.
            let token = try await http.json(InstamojoToken.self, method: "POST", url: tokenURL,
                                            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                                            body: WireCoding.formEncode(fields), operation: "fetchToken", safeToRepeat: true,
                                            secretBearing: true)
            return (token.access_token, token.expires_in)
        }
    }

    /// How many access tokens were fetched so far (shows the cache working).
    public func tokenFetchCount() async -> Int { await tokens.fetchCount }

    private func url(_ path: String) -> String { ProviderHTTP.join(configuration.baseURL, path) }

    /// Sends with the Bearer token; after a 401 the token is dropped and the call made once more with a fresh one.
    private func authorized<T: Decodable>(_ type: T.Type, method: String, url: String, form: [(String, String)]? = nil,
                                          operation: String, safeToRepeat: Bool) async throws(ProviderError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            let token = try await tokens.token()
            var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token.revealed)"), ("Accept", "application/json")]
            if form != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
            do {
                return try await http.json(type, method: method, url: url, headers: headers, body: form.map(WireCoding.formEncode) ?? [],
                                           operation: operation, safeToRepeat: safeToRepeat)
            } catch where error.httpStatus == 401 && attempt == 1 {
                // The token was revoked or expired early: a request refused with 401 did nothing, so repeating it is safe.
                await tokens.invalidate(token)
            }
        }
    }

    // MARK: Orders

    /// Creates a payment request (`POST /v2/payment_requests/`), then the gateway
    /// order the mobile SDK needs from it (`POST /v2/gateway/orders/payment-request/`).
    /// The order id is the payment request id; ``CheckoutData/instamojo(paymentURL:gatewayOrderID:)``
    /// carries the hosted page and the gateway order id. Not retried: Instamojo has
    /// no idempotency key for payment requests.
    public func createOrder(_ request: CreateOrderRequest) async throws(ProviderError) -> ProviderOrder {
        let operation = "createOrder"
        let fields = try InstamojoTransformers.paymentRequestFields(request, rules: configuration.orderAmountRules)
        let created = try await authorized(InstamojoPaymentRequest.self, method: "POST", url: url("/v2/payment_requests/"),
                                           form: fields, operation: operation, safeToRepeat: false)
        let gateway = try await authorized(InstamojoGatewayOrderFromRequest.self, method: "POST",
                                           url: url("/v2/gateway/orders/payment-request/"), form: [("id", created.id)],
                                           operation: "createGatewayOrderFromPaymentRequest", safeToRepeat: false)
        var order = try InstamojoTransformers.order(created, gatewayOrderID: gateway.order_id, rules: configuration.orderAmountRules,
                                                    operation: operation)
        order.reference = request.reference
        return order
    }

    /// `POST /v2/gateway/orders/` with the merchant's unique `transaction_id`
    /// (``CreateOrderRequest/reference``): needs the customer's name, email and
    /// phone and a redirect URL.
    public func createGatewayOrder(_ request: CreateOrderRequest) async throws(ProviderError) -> ProviderOrder {
        let operation = "createGatewayOrder"
        let fields = try InstamojoTransformers.gatewayOrderFields(request, rules: configuration.orderAmountRules)
        let created = try await authorized(InstamojoGatewayOrderCreated.self, method: "POST", url: url("/v2/gateway/orders/"),
                                           form: fields, operation: operation, safeToRepeat: false)
        return try InstamojoTransformers.gatewayOrder(created.order, paymentURL: created.payment_options?.payment_url,
                                                      rules: configuration.orderAmountRules, operation: operation)
    }

    /// `GET /v2/gateway/orders/transaction_id:{id}/`: reconciles a gateway order by the merchant's reference.
    public func fetchGatewayOrder(transactionID: String) async throws(ProviderError) -> ProviderOrder {
        let operation = "fetchGatewayOrder"
        let wire = try await authorized(InstamojoGatewayOrder.self, method: "GET",
                                        url: url("/v2/gateway/orders/transaction_id:\(WireCoding.pathSegment(transactionID))/"),
                                        operation: operation, safeToRepeat: true)
        return try InstamojoTransformers.gatewayOrder(wire, paymentURL: nil, rules: configuration.orderAmountRules, operation: operation)
    }

    /// The payments of a gateway order found by the merchant's reference: the order's `payments`
    /// URLs, each fetched with ``fetchPayment(id:)`` (a refund needs the payment id).
    public func fetchGatewayOrderPayments(transactionID: String) async throws(ProviderError) -> [ProviderPayment] {
        let operation = "fetchGatewayOrderPayments"
        let wire = try await authorized(InstamojoGatewayOrder.self, method: "GET",
                                        url: url("/v2/gateway/orders/transaction_id:\(WireCoding.pathSegment(transactionID))/"),
                                        operation: operation, safeToRepeat: true)
        var payments: [ProviderPayment] = []
        for link in wire.payments ?? [] {
            guard let paymentID = InstamojoTransformers.lastPathComponent(link) else { continue }
            var payment = try await fetchPayment(id: paymentID)
            payment.orderID = wire.id
            payments.append(payment)
        }
        return payments
    }

    /// `GET /v2/payment_requests/{id}/`. `Completed` maps to paid; confirm with the payment.
    public func fetchOrder(id: String) async throws(ProviderError) -> ProviderOrder {
        let wire = try await fetchPaymentRequest(id: id)
        return try InstamojoTransformers.order(wire, gatewayOrderID: nil, rules: configuration.orderAmountRules, operation: "fetchOrder")
    }

    private func fetchPaymentRequest(id: String) async throws(ProviderError) -> InstamojoPaymentRequest {
        try await authorized(InstamojoPaymentRequest.self, method: "GET", url: url("/v2/payment_requests/\(WireCoding.pathSegment(id))/"),
                             operation: "fetchOrder", safeToRepeat: true)
    }

    /// The payments of a payment request: its `payments` URLs, each fetched with ``fetchPayment(id:)``.
    public func fetchPayments(orderID: String) async throws(ProviderError) -> [ProviderPayment] {
        let wire = try await fetchPaymentRequest(id: orderID)
        var payments: [ProviderPayment] = []
        for link in wire.payments ?? [] {
            guard let paymentID = InstamojoTransformers.lastPathComponent(link) else { continue }
            var payment = try await fetchPayment(id: paymentID)
            payment.orderID = orderID
            payments.append(payment)
        }
        return payments
    }

    /// `GET /v2/payments/{id}/`: `status` true/false/null → captured/failed/pending.
    public func fetchPayment(id: String) async throws(ProviderError) -> ProviderPayment {
        let operation = "fetchPayment"
        let wire = try await authorized(InstamojoPayment.self, method: "GET", url: url("/v2/payments/\(WireCoding.pathSegment(id))/"),
                                        operation: operation, safeToRepeat: true)
        return try InstamojoTransformers.payment(wire, orderID: nil, rules: refundRules, operation: operation)
    }

    // MARK: Payment options and UPI collect

    /// `GET /v2/gateway/orders/{id}/checkout-options/`: cards, netbanking banks,
    /// EMI banks with tenure and rate, wallets, UPI. The path and shape come from
    /// the official Android SDK, not the v2 reference [L].
    public func paymentOptions(gatewayOrderID: String) async throws(ProviderError) -> PaymentOptions {
        let wire = try await authorized(InstamojoCheckoutOptions.self, method: "GET",
                                        url: url("/v2/gateway/orders/\(WireCoding.pathSegment(gatewayOrderID))/checkout-options/"),
                                        operation: "paymentOptions", safeToRepeat: true)
        return InstamojoTransformers.paymentOptions(wire)
    }

    /// `POST /v2/gateway/orders/{id}/upi/` with `virtual_address`: a collect request
    /// to the customer's VPA [L]. Not retried (a second collect would reach the customer twice).
    public func requestUPICollect(gatewayOrderID: String, vpa: String) async throws(ProviderError) -> UPICollect {
        let operation = "requestUPICollect"
        let parts = vpa.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .invalid("a VPA looks like name@handle", provider: name, operation: operation, field: "virtual_address")
        }
        let wire = try await authorized(InstamojoUPISubmission.self, method: "POST",
                                        url: url("/v2/gateway/orders/\(WireCoding.pathSegment(gatewayOrderID))/upi/"),
                                        form: [("virtual_address", vpa)], operation: operation, safeToRepeat: false)
        return UPICollect(paymentID: wire.payment_id, status: InstamojoStatusMapping.upi(wire.status_code),
                          rawStatus: String(wire.status_code), message: wire.status_message, statusURL: wire.status_check_url)
    }

    /// Polls a collect's status at the `status_check_url` Instamojo returned. The
    /// URL must be on the configured host: the Bearer token never goes elsewhere.
    public func upiCollectStatus(_ collect: UPICollect) async throws(ProviderError) -> UPICollect {
        let operation = "upiCollectStatus"
        guard let statusURL = collect.statusURL else {
            throw .invalid("the collect has no status URL", provider: name, operation: operation)
        }
        guard Self.origin(statusURL) == Self.origin(configuration.baseURL) else {
            throw ProviderError(.malformedResponse, provider: name, operation: operation,
                                message: "status_check_url is not on the configured Instamojo host")
        }
        let wire = try await authorized(InstamojoUPIStatus.self, method: "GET", url: statusURL, operation: operation, safeToRepeat: true)
        return UPICollect(paymentID: wire.payment_id ?? collect.paymentID, status: InstamojoStatusMapping.upi(wire.status_code),
                          rawStatus: String(wire.status_code), message: wire.status_message, statusURL: statusURL)
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(_ url: String) -> String? {
        let parts = url.split(separator: "://", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        let rest = parts[1]
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return parts[0].lowercased() + "://" + rest[..<hostEnd].lowercased()
    }

    // MARK: Refunds

    /// `POST /v2/payments/{id}/refund/` with the configured reason code.
    public func createRefund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        try await createRefund(request, reason: configuration.defaultRefundReason)
    }

    /// `POST /v2/payments/{id}/refund/`: `type` (reason), `body` (note),
    /// `refund_amount` (default the whole payment) and `transaction_id`
    /// (``RefundRequest/reference``; a second refund on a payment needs a new one).
    public func createRefund(_ request: RefundRequest, reason: InstamojoRefundReason) async throws(ProviderError) -> ProviderRefund {
        let operation = "createRefund"
        let fields = try InstamojoTransformers.refundFields(request, reason: reason, rules: refundRules)
        let answer = try await authorized(InstamojoRefundCreated.self, method: "POST",
                                          url: url("/v2/payments/\(WireCoding.pathSegment(request.paymentID))/refund/"),
                                          form: fields, operation: operation, safeToRepeat: false)
        if answer.success == false {
            throw ProviderError(.rejected, provider: name, operation: operation, message: "Instamojo answered success: false")
        }
        return try InstamojoTransformers.refund(answer.refund, reference: request.reference, rules: refundRules, operation: operation)
    }

    /// `GET /v2/resolutioncenter/cases/{id}/`: the refund case and its resolution.
    public func fetchRefund(id: String) async throws(ProviderError) -> ProviderRefund {
        let wire = try await authorized(InstamojoRefundCase.self, method: "GET",
                                        url: url("/v2/resolutioncenter/cases/\(WireCoding.pathSegment(id))/"),
                                        operation: "fetchRefund", safeToRepeat: true)
        return try InstamojoTransformers.refundCase(wire, rules: refundRules, operation: "fetchRefund")
    }

    // MARK: Webhooks

    /// Verifies the form body's `mac` with the private salt.
    public func verifyWebhook(_ request: WebhookRequest) -> WebhookVerdict {
        Self.verifyWebhook(request, salt: configuration.privateSalt)
    }

    /// Webhook verification without an adapter (for `payql webhook verify`).
    public static func verifyWebhook(_ request: WebhookRequest, salt: Secret) -> WebhookVerdict {
        switch InstamojoWebhook.signedMessage(request) {
        case .success(let signed): WebhookVerifier.verify(signed, secret: salt)
        case .failure(let rejection): .invalid(rejection.reason)
        }
    }
}
