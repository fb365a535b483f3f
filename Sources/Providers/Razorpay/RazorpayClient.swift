public import HTTPClient
import Crypto
public import PaymentsCore

/// How to reach Razorpay and with which keys.
public struct RazorpayConfiguration: Sendable {
    /// Razorpay's API host; test and live share it, the key pair decides the mode (docs/providers/razorpay.md §1).
    public static let productionBaseURL = "https://api.razorpay.com"

    /// Base URL without the `/v1` (default ``productionBaseURL``; the sandbox's `…/razorpay` in tests).
    public var baseURL: String
    /// Host for Turbo UPI session tokens; defaults to `baseURL`. UAT is
    /// `https://api-web-turbo-upi.ext.dev.razorpay.in` per the Turbo UPI guide [M].
    public var turboBaseURL: String?
    /// `rzp_test_…` / `rzp_live_…` key id.
    public var keyID: String
    /// The key secret: HTTP Basic password and the checkout-signature key.
    public var keySecret: Secret
    /// The webhook secret set in the Dashboard (not the key secret).
    public var webhookSecret: Secret
    /// Timeouts and retries.
    public var transport: ProviderTransportSettings
    /// Order amounts: INR, at least 100 paise [H]. Razorpay publishes no maximum
    /// in the reference [L] (per-merchant limits exist and come back as a
    /// rejection); the default ceiling is 2^53−1 paise, the largest integer every
    /// JSON reader (JavaScript's included) holds exactly.
    public var orderAmountRules: AmountRules

    /// A configuration with the documented defaults.
    public init(baseURL: String = RazorpayConfiguration.productionBaseURL, turboBaseURL: String? = nil,
                keyID: String, keySecret: Secret, webhookSecret: Secret,
                transport: ProviderTransportSettings = .init(),
                orderAmountRules: AmountRules = RazorpayConfiguration.defaultOrderAmountRules) {
        self.baseURL = baseURL
        self.turboBaseURL = turboBaseURL
        self.keyID = keyID
        self.keySecret = keySecret
        self.webhookSecret = webhookSecret
        self.transport = transport
        self.orderAmountRules = orderAmountRules
    }

    /// INR, 100 paise … 2^53−1 paise.
    public static let defaultOrderAmountRules = AmountRules(currencies: ["INR"], minimum: 100, maximum: 9_007_199_254_740_991)
}

/// A Turbo UPI customer session token for the app SDK.
public struct TurboUPISession: Sendable, Hashable {
    /// The token; hand it to the app, don't log it.
    public var token: Secret
    /// Expiry, unix seconds.
    public var expiresAt: Int64
}

/// The Razorpay adapter: customers, TPV bank accounts, orders, payments,
/// refunds, Turbo UPI session tokens, checkout and webhook signatures.
public struct RazorpayAdapter: OrderProvider, CustomerProvider, BankAccountWhitelisting {
    /// Which provider this adapter speaks to.
    public let name = ProviderName.razorpay
    /// What this adapter can do.
    public let capabilities: ProviderCapabilities = [
        .customers, .tpvBankAccounts, .orders, .orderPayments, .refunds, .refundIdempotencyKey,
        .turboUPISession, .paymentSignature, .webhooks,
    ]
    /// The configuration in force.
    public let configuration: RazorpayConfiguration
    private let http: ProviderHTTP
    /// Refund amounts: at least 1 paisa, at most the order ceiling.
    private var refundRules: AmountRules {
        AmountRules(currencies: configuration.orderAmountRules.currencies, minimum: 1, maximum: configuration.orderAmountRules.maximum)
    }

    /// An adapter sending through `client` (shared; the caller shuts it down).
    public init(configuration: RazorpayConfiguration, client: HTTPClient) {
        self.configuration = configuration
        http = ProviderHTTP(client: client, provider: .razorpay, settings: configuration.transport,
                            parseError: { RazorpayTransformers.parseError(status: $0, body: $1) })
    }

    private var headers: [(name: String, value: String)] {
        [("Authorization", Self.authorization(keyID: configuration.keyID, keySecret: configuration.keySecret)),
         ("Content-Type", "application/json"), ("Accept", "application/json")]
    }

    /// `Basic base64(key_id:key_secret)`; the scheme word is exactly `Basic` (docs/providers/razorpay.md §1).
    static func authorization(keyID: String, keySecret: Secret) -> String {
        "Basic " + Encoding.base64(Array("\(keyID):\(keySecret.revealed)".utf8))
    }

    private func url(_ path: String, base: String? = nil) -> String { ProviderHTTP.join(base ?? configuration.baseURL, path) }

    private func body(_ value: some Encodable, operation: String) throws(ProviderError) -> [UInt8] {
        try http.jsonBody(value, operation: operation)
    }

    // MARK: Customers and TPV bank accounts

    /// `POST /v1/customers`. `failIfExists == false` sends `fail_existing: "0"`, which returns the existing customer.
    public func createCustomer(_ customer: CustomerDetails, gstin: String? = nil, notes: [String: String] = [:],
                               failIfExists: Bool = true) async throws(ProviderError) -> ProviderCustomer {
        let operation = "createCustomer"
        let wire = try RazorpayTransformers.customerRequest(customer, gstin: gstin, notes: notes, failIfExists: failIfExists)
        let answer = try await http.json(RazorpayCustomer.self, method: "POST", url: url("/v1/customers"), headers: headers,
                                         body: body(wire, operation: operation), operation: operation, safeToRepeat: false)
        return RazorpayTransformers.customer(answer)
    }

    /// `GET /v1/customers/{id}`.
    public func fetchCustomer(id: String) async throws(ProviderError) -> ProviderCustomer {
        let answer = try await http.json(RazorpayCustomer.self, method: "GET", url: url("/v1/customers/\(WireCoding.pathSegment(id))"),
                                         headers: headers, operation: "fetchCustomer", safeToRepeat: true)
        return RazorpayTransformers.customer(answer)
    }

    /// `POST /v1/customers/{id}/bank_account`: whitelists an account for TPV / Turbo UPI.
    public func addBankAccount(customerID: String, account: BankAccountDetails) async throws(ProviderError) -> ProviderBankAccount {
        let operation = "addBankAccount"
        let answer = try await http.json(RazorpayBankAccount.self, method: "POST",
                                         url: url("/v1/customers/\(WireCoding.pathSegment(customerID))/bank_account"),
                                         headers: headers, body: body(RazorpayTransformers.bankAccountRequest(account), operation: operation),
                                         operation: operation, safeToRepeat: false)
        return RazorpayTransformers.bankAccount(answer)
    }

    /// `DELETE /v1/customers/{id}/bank_account/{ba_id}`; the answer must say `"status":"deleted"`.
    public func deleteBankAccount(customerID: String, bankAccountID: String) async throws(ProviderError) {
        let operation = "deleteBankAccount"
        let answer = try await http.json(RazorpayBankAccount.self, method: "DELETE",
                                         url: url("/v1/customers/\(WireCoding.pathSegment(customerID))/bank_account/\(WireCoding.pathSegment(bankAccountID))"),
                                         headers: headers, operation: operation, safeToRepeat: true)
        guard answer.status == "deleted" else {
            throw ProviderError(.malformedResponse, provider: name, operation: operation,
                                message: "delete answered status \(answer.status ?? "null"), not deleted")
        }
    }

    // MARK: Orders and payments

    /// `POST /v1/orders`. The reference is the unique `receipt`. Never retried:
    /// Razorpay documents no idempotency key for orders, so a timeout must be
    /// reconciled by receipt (``findOrders(receipt:)``).
    public func createOrder(_ request: CreateOrderRequest) async throws(ProviderError) -> ProviderOrder {
        let operation = "createOrder"
        let wire = try RazorpayTransformers.orderRequest(request, rules: configuration.orderAmountRules)
        let answer = try await http.json(RazorpayOrder.self, method: "POST", url: url("/v1/orders"), headers: headers,
                                         body: body(wire, operation: operation), operation: operation, safeToRepeat: false)
        return try RazorpayTransformers.order(answer, rules: configuration.orderAmountRules, operation: operation)
    }

    /// `GET /v1/orders/{id}`.
    public func fetchOrder(id: String) async throws(ProviderError) -> ProviderOrder {
        let answer = try await http.json(RazorpayOrder.self, method: "GET", url: url("/v1/orders/\(WireCoding.pathSegment(id))"),
                                         headers: headers, operation: "fetchOrder", safeToRepeat: true)
        return try RazorpayTransformers.order(answer, rules: configuration.orderAmountRules, operation: "fetchOrder")
    }

    /// `GET /v1/orders?receipt=…`: the orders carrying a receipt, to reconcile a create that timed out.
    public func findOrders(receipt: String) async throws(ProviderError) -> [ProviderOrder] {
        let operation = "findOrders"
        let answer = try await http.json(RazorpayCollection<RazorpayOrder>.self, method: "GET",
                                         url: url("/v1/orders?" + WireCoding.query([("receipt", receipt)])),
                                         headers: headers, operation: operation, safeToRepeat: true)
        var orders: [ProviderOrder] = []
        for item in answer.items { orders.append(try RazorpayTransformers.order(item, rules: configuration.orderAmountRules, operation: operation)) }
        return orders
    }

    /// `GET /v1/orders/{id}/payments`.
    public func fetchPayments(orderID: String) async throws(ProviderError) -> [ProviderPayment] {
        let operation = "fetchPayments"
        let answer = try await http.json(RazorpayCollection<RazorpayPayment>.self, method: "GET",
                                         url: url("/v1/orders/\(WireCoding.pathSegment(orderID))/payments"),
                                         headers: headers, operation: operation, safeToRepeat: true)
        var payments: [ProviderPayment] = []
        for item in answer.items { payments.append(try RazorpayTransformers.payment(item, rules: refundRules, operation: operation)) }
        return payments
    }

    /// `GET /v1/payments/{id}`.
    public func fetchPayment(id: String) async throws(ProviderError) -> ProviderPayment {
        let answer = try await http.json(RazorpayPayment.self, method: "GET", url: url("/v1/payments/\(WireCoding.pathSegment(id))"),
                                         headers: headers, operation: "fetchPayment", safeToRepeat: true)
        return try RazorpayTransformers.payment(answer, rules: refundRules, operation: "fetchPayment")
    }

    /// `POST /v1/payments/{id}/capture` with `{amount, currency}`: captures an
    /// authorized payment (needed when the account does not auto-capture; the
    /// order-level `payment_capture` flag is not relied on [L]). Capturing twice
    /// is refused by Razorpay, so a retry cannot capture twice.
    public func capturePayment(id: String, amount: Amount) async throws(ProviderError) -> ProviderPayment {
        let operation = "capturePayment"
        let paise: Int64
        do { paise = try AmountConversion.integerMinorUnits(amount, rules: refundRules) } catch {
            throw .amount(error, provider: name, operation: operation, field: "amount")
        }
        let wire = RazorpayCaptureRequest(amount: paise, currency: amount.currency.code)
        let answer = try await http.json(RazorpayPayment.self, method: "POST", url: url("/v1/payments/\(WireCoding.pathSegment(id))/capture"),
                                         headers: headers, body: body(wire, operation: operation), operation: operation, safeToRepeat: false)
        return try RazorpayTransformers.payment(answer, rules: refundRules, operation: operation)
    }

    // MARK: Refunds

    /// `POST /v1/payments/{id}/refund`. With an idempotency key (≥ 10 of
    /// `[A-Za-z0-9_-]`) it goes in `X-Refund-Idempotency` and the request may be
    /// retried; without one it is sent once.
    public func createRefund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        let operation = "createRefund"
        var requestHeaders = headers
        if let key = request.idempotencyKey {
            guard key.utf8.count >= 10, key.utf8.allSatisfy({ isKeyCharacter($0) }) else {
                throw .invalid("the refund idempotency key needs at least 10 of A-Z a-z 0-9 _ -", provider: name,
                               operation: operation, field: "idempotencyKey")
            }
            requestHeaders.append(("X-Refund-Idempotency", key))
        }
        let wire = try RazorpayTransformers.refundRequest(request, rules: refundRules)
        let answer = try await http.json(RazorpayRefund.self, method: "POST",
                                         url: url("/v1/payments/\(WireCoding.pathSegment(request.paymentID))/refund"),
                                         headers: requestHeaders, body: body(wire, operation: operation),
                                         operation: operation, safeToRepeat: request.idempotencyKey != nil)
        return try RazorpayTransformers.refund(answer, rules: refundRules, operation: operation)
    }

    /// `GET /v1/refunds/{id}`.
    public func fetchRefund(id: String) async throws(ProviderError) -> ProviderRefund {
        let answer = try await http.json(RazorpayRefund.self, method: "GET", url: url("/v1/refunds/\(WireCoding.pathSegment(id))"),
                                         headers: headers, operation: "fetchRefund", safeToRepeat: true)
        return try RazorpayTransformers.refund(answer, rules: refundRules, operation: "fetchRefund")
    }

    // MARK: Turbo UPI

    /// `POST /v1/upi/turbo/customer/session` with `customer_reference` (customer id
    /// or mobile number). Asking twice only yields two valid tokens, so it is retried.
    /// Source: the Turbo UPI guides only [M].
    public func createTurboUPISession(customerReference: String) async throws(ProviderError) -> TurboUPISession {
        let operation = "createTurboUPISession"
        guard !customerReference.isEmpty else {
            throw .invalid("customer_reference is required", provider: name, operation: operation, field: "customer_reference")
        }
        let answer = try await http.json(RazorpayTurboSession.self, method: "POST",
                                         url: url("/v1/upi/turbo/customer/session", base: configuration.turboBaseURL),
                                         headers: headers,
                                         body: body(RazorpayTurboSessionRequest(customer_reference: customerReference), operation: operation),
                                         operation: operation, safeToRepeat: true, secretBearing: true)
        return TurboUPISession(token: Secret(answer.token), expiresAt: answer.expire_at)
    }

    // MARK: Signatures

    /// Verifies Checkout's `razorpay_signature` for `order_id|payment_id` under the key secret.
    /// Pass the order id stored on the server.
    public func verifyPaymentSignature(orderID: String, paymentID: String, signature: String) -> WebhookVerdict {
        WebhookVerifier.verify(RazorpayWebhook.paymentSignature(orderID: orderID, paymentID: paymentID, signature: signature),
                               secret: configuration.keySecret)
    }

    /// Verifies `X-Razorpay-Signature` over the raw body with the webhook secret.
    public func verifyWebhook(_ request: WebhookRequest) -> WebhookVerdict {
        Self.verifyWebhook(request, secret: configuration.webhookSecret)
    }

    /// Webhook verification without an adapter (for `payql webhook verify`).
    public static func verifyWebhook(_ request: WebhookRequest, secret: Secret) -> WebhookVerdict {
        switch RazorpayWebhook.signedMessage(request) {
        case .success(let signed): WebhookVerifier.verify(signed, secret: secret)
        case .failure(let rejection): .invalid(rejection.reason)
        }
    }

    private func isKeyCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
