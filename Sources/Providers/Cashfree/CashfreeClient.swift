public import HTTPClient
public import PaymentsCore

/// How to reach Cashfree PG and with which keys.
public struct CashfreeConfiguration: Sendable {
    /// `https://sandbox.cashfree.com/pg` [H].
    public static let sandboxBaseURL = "https://sandbox.cashfree.com/pg"
    /// `https://api.cashfree.com/pg` [H].
    public static let productionBaseURL = "https://api.cashfree.com/pg"

    /// Base URL including `/pg` (default ``sandboxBaseURL``).
    public var baseURL: String
    /// `x-client-id` (App ID).
    public var clientID: String
    /// `x-client-secret`; also the webhook signing key.
    public var clientSecret: Secret
    /// `x-api-version`, required on every call. Pinned to `2025-01-01`, the
    /// version the webhook docs and the reference's OpenAPI use (docs/providers/cashfree.md §1).
    public var apiVersion: String
    /// Timeouts and retries.
    public var transport: ProviderTransportSettings
    /// Order amounts: INR, at least ₹1 [H]. No maximum is in the reference [L];
    /// the default ceiling, 999 999 999 999 999 paise (15 significant digits),
    /// is the largest 2-decimal amount a binary double still round-trips, in
    /// case the other side parses JSON numbers as doubles.
    public var orderAmountRules: AmountRules

    /// A configuration with the documented defaults.
    public init(baseURL: String = CashfreeConfiguration.sandboxBaseURL, clientID: String, clientSecret: Secret,
                apiVersion: String = "2025-01-01", transport: ProviderTransportSettings = .init(),
                orderAmountRules: AmountRules = CashfreeConfiguration.defaultOrderAmountRules) {
        self.baseURL = baseURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.apiVersion = apiVersion
        self.transport = transport
        self.orderAmountRules = orderAmountRules
    }

    /// INR, ₹1.00 … ₹9 999 999 999 999.99.
    public static let defaultOrderAmountRules = AmountRules(currencies: ["INR"], minimum: 100, maximum: 999_999_999_999_999)
}

/// The Cashfree PG adapter: orders (→ `payment_session_id`), order status,
/// payments, refunds, idempotency keys and webhook signatures.
public struct CashfreeAdapter: OrderProvider {
    /// Which provider this adapter speaks to.
    public let name = ProviderName.cashfree
    /// What this adapter can do.
    public let capabilities: ProviderCapabilities = [.orders, .orderPayments, .refunds, .orderIdempotencyKey, .refundIdempotencyKey, .webhooks]
    /// The configuration in force.
    public let configuration: CashfreeConfiguration
    private let http: ProviderHTTP
    private var refundRules: AmountRules {
        AmountRules(currencies: configuration.orderAmountRules.currencies, minimum: 1, maximum: configuration.orderAmountRules.maximum)
    }

    /// An adapter sending through `client` (shared; the caller shuts it down).
    public init(configuration: CashfreeConfiguration, client: HTTPClient) {
        self.configuration = configuration
        http = ProviderHTTP(client: client, provider: .cashfree, settings: configuration.transport,
                            parseError: { CashfreeTransformers.parseError(status: $0, body: $1) })
    }

    private func headers(idempotencyKey: String? = nil) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("x-client-id", configuration.clientID), ("x-client-secret", configuration.clientSecret.revealed),
            ("x-api-version", configuration.apiVersion), ("Content-Type", "application/json"), ("Accept", "application/json"),
        ]
        if let idempotencyKey { headers.append(("x-idempotency-key", idempotencyKey)) }
        return headers
    }

    private func url(_ path: String) -> String { ProviderHTTP.join(configuration.baseURL, path) }

    private func body(_ value: some Encodable, operation: String) throws(ProviderError) -> [UInt8] {
        try http.jsonBody(value, operation: operation)
    }

    /// `POST /orders`. The reference is the merchant `order_id`; the answer's
    /// `payment_session_id` is what the client SDK needs. With an idempotency
    /// key (`x-idempotency-key`) the request is retried on transient failures;
    /// without one it is sent once (a duplicate `order_id` would be a 409 anyway).
    public func createOrder(_ request: CreateOrderRequest) async throws(ProviderError) -> ProviderOrder {
        let operation = "createOrder"
        let wire = try CashfreeTransformers.orderRequest(request, rules: configuration.orderAmountRules)
        let answer = try await http.json(CashfreeOrder.self, method: "POST", url: url("/orders"),
                                         headers: headers(idempotencyKey: request.idempotencyKey),
                                         body: body(wire, operation: operation), operation: operation,
                                         safeToRepeat: request.idempotencyKey != nil)
        return try CashfreeTransformers.order(answer, rules: configuration.orderAmountRules, operation: operation)
    }

    /// `GET /orders/{order_id}`. `order_status == PAID` is Cashfree's success condition.
    public func fetchOrder(id: String) async throws(ProviderError) -> ProviderOrder {
        let answer = try await http.json(CashfreeOrder.self, method: "GET", url: url("/orders/\(WireCoding.pathSegment(id))"),
                                         headers: headers(), operation: "fetchOrder", safeToRepeat: true)
        return try CashfreeTransformers.order(answer, rules: configuration.orderAmountRules, operation: "fetchOrder")
    }

    /// `PATCH /orders/{order_id}` with `{"order_status":"TERMINATED"}`: stops an unpaid
    /// order. The answer may be `TERMINATION_REQUESTED` first (both map to cancelled).
    public func terminateOrder(id: String) async throws(ProviderError) -> ProviderOrder {
        let operation = "terminateOrder"
        let answer = try await http.json(CashfreeOrder.self, method: "PATCH", url: url("/orders/\(WireCoding.pathSegment(id))"),
                                         headers: headers(), body: body(CashfreeTerminateRequest(order_status: "TERMINATED"), operation: operation),
                                         operation: operation, safeToRepeat: true)
        return try CashfreeTransformers.order(answer, rules: configuration.orderAmountRules, operation: operation)
    }

    /// `GET /orders/{order_id}/payments` (an array of attempts).
    public func fetchPayments(orderID: String) async throws(ProviderError) -> [ProviderPayment] {
        let operation = "fetchPayments"
        let answer = try await http.json([CashfreePayment].self, method: "GET",
                                         url: url("/orders/\(WireCoding.pathSegment(orderID))/payments"),
                                         headers: headers(), operation: operation, safeToRepeat: true)
        var payments: [ProviderPayment] = []
        for item in answer { payments.append(try CashfreeTransformers.payment(item, rules: refundRules, operation: operation)) }
        return payments
    }

    /// `POST /orders/{order_id}/refunds`; needs ``RefundRequest/orderID``, an amount and
    /// the merchant `refund_id` (``RefundRequest/reference``).
    public func createRefund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        let operation = "createRefund"
        guard let orderID = request.orderID else {
            throw .invalid("Cashfree refunds are made under the order: orderID is required", provider: name,
                           operation: operation, field: "order_id")
        }
        let wire = try CashfreeTransformers.refundRequest(request, rules: refundRules)
        let answer = try await http.json(CashfreeRefund.self, method: "POST",
                                         url: url("/orders/\(WireCoding.pathSegment(orderID))/refunds"),
                                         headers: headers(idempotencyKey: request.idempotencyKey),
                                         body: body(wire, operation: operation), operation: operation,
                                         safeToRepeat: request.idempotencyKey != nil)
        return try CashfreeTransformers.refund(answer, rules: refundRules, operation: operation)
    }

    /// `GET /orders/{order_id}/refunds/{refund_id}`.
    public func fetchRefund(orderID: String, refundID: String) async throws(ProviderError) -> ProviderRefund {
        let answer = try await http.json(CashfreeRefund.self, method: "GET",
                                         url: url("/orders/\(WireCoding.pathSegment(orderID))/refunds/\(WireCoding.pathSegment(refundID))"),
                                         headers: headers(), operation: "fetchRefund", safeToRepeat: true)
        return try CashfreeTransformers.refund(answer, rules: refundRules, operation: "fetchRefund")
    }

    /// Verifies `x-webhook-signature` over `x-webhook-timestamp` + raw body with the client secret.
    public func verifyWebhook(_ request: WebhookRequest) -> WebhookVerdict {
        Self.verifyWebhook(request, secret: configuration.clientSecret)
    }

    /// Webhook verification without an adapter (for `payql webhook verify`).
    public static func verifyWebhook(_ request: WebhookRequest, secret: Secret) -> WebhookVerdict {
        switch CashfreeWebhook.signedMessage(request) {
        case .success(let signed): WebhookVerifier.verify(signed, secret: secret)
        case .failure(let rejection): .invalid(rejection.reason)
        }
    }
}
