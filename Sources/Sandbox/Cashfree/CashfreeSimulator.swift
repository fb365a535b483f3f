import Crypto
import Support

/// Cashfree PG (`https://sandbox.cashfree.com/pg/...`), per docs/providers/cashfree.md.
///
/// Auth is `x-client-id` + `x-client-secret`; `x-api-version` is required.
/// Errors are `{"message","code","type"[,"help"]}` (samples/cashfree/error_*.json).
final class CashfreeSimulator: ProviderSimulator {
    struct State: Sendable {
        var customers: [String: WireObject] = [:]
        var orders: [String: Cashfree.Order] = [:]
        var orderSequence: [String] = []
        var payments: [String: Cashfree.Payment] = [:]
        var paymentSequence: [String] = []
        /// order_id → refund_id → refund.
        var refunds: [String: [String: Cashfree.Refund]] = [:]
        var refundSequence: [String] = []
        /// `x-idempotency-key` → (fingerprint of method+path+body, the first answer).
        var idempotency: [String: (fingerprint: [UInt8], response: SandboxResponse)] = [:]
        /// Keys whose first request is being handled right now.
        var inFlight: Set<String> = []
        var nextCfOrderID: Int64 = 2_149_460_581
        var nextCfPaymentID: Int64 = 5_114_910_000_001
        var nextCfRefundID: Int64 = 11_325_632
    }

    let provider = SandboxProvider.cashfree
    let credentials: SandboxCredentials
    let state = Locked(State())

    init(credentials: SandboxCredentials) {
        self.credentials = credentials
    }

    func reset() { state.withLock { $0 = State() } }

    static let help = "Check latest errors and resolution from this link: https://www.cashfree.com/docs/api-reference/error-codes"

    /// A Cashfree error body.
    static func error(_ message: String, code: String, type: String = "invalid_request_error", status: Int = 400,
                      help: Bool = true) -> SandboxResponse {
        var body: WireObject = ["message": .string(message), "code": .string(code), "type": .string(type)]
        if help { body["help"] = .string(Self.help) }
        return .json(.object(body), status: status)
    }

    /// `<field>_invalid` with the sample's message shape (`order_amount : invalid value provided`).
    static func invalid(_ field: String) -> CashfreeFailure {
        CashfreeFailure(error("\(field) : invalid value provided", code: "\(field.split(separator: ".").last.map(String.init) ?? field)_invalid"))
    }

    static func missing(_ field: String) -> CashfreeFailure {
        CashfreeFailure(error("\(field) : is missing in the request", code: "\(field.split(separator: ".").last.map(String.init) ?? field)_missing"))
    }

    /// samples/cashfree/error_404.json
    static func orderNotFound() -> SandboxResponse {
        error("order not found for this merchant", code: "order_not_found", status: 404, help: false)
    }

    func serverError(status: Int) -> SandboxResponse {
        status == 502
            ? Self.error("bank processing failure", code: "bank_processing_failure", type: "api_error", status: 502, help: false)
            : Self.error("internal server error", code: "internal_error", type: "api_error", status: status, help: false)
    }

    func rateLimited(retryAfterSeconds: Int) -> SandboxResponse {
        // samples/cashfree/error_429.json plus the documented x-ratelimit-* headers.
        var response = Self.error("Too many requests from IP. Check headers", code: "request_failed",
                                  type: "rate_limit_error", status: 429, help: false)
        response.headers += [("Retry-After", String(retryAfterSeconds)), ("x-ratelimit-limit", "200"),
                             ("x-ratelimit-remaining", "0"), ("x-ratelimit-retry", String(retryAfterSeconds)),
                             ("x-ratelimit-type", "app_id")]
        return response
    }

    // MARK: Routing

    func handle(_ request: SandboxRequest, context: SimulatorContext) -> SimulatorResult {
        let idOK = Crypto.constantTimeEquals(Array((request.header("x-client-id") ?? "").utf8), Array(credentials.cashfreeClientID.utf8))
        let secretOK = Crypto.constantTimeEquals(Array((request.header("x-client-secret") ?? "").utf8),
                                                 Array(credentials.cashfreeClientSecret.utf8))
        guard idOK && secretOK else {
            // samples/cashfree/error_401.json
            return SimulatorResult(Self.error("authentication Failed", code: "request_failed", type: "authentication_error",
                                              status: 401, help: false))
        }
        // Unsure: Cashfree's exact answer for a missing or bad version header.
        guard let version = request.header("x-api-version") else {
            return SimulatorResult(Self.error("x-api-version : is missing in the request", code: "x-api-version_missing"))
        }
        guard Clock.isDate(version) else {
            return SimulatorResult(Self.error("x-api-version : invalid value provided", code: "x-api-version_invalid"))
        }
        // Idempotent replay: same key and same request → the first answer; another request → 422.
        guard let key = request.method == "POST" ? request.header("x-idempotency-key") : nil else {
            return route(request, context)
        }
        let fingerprint = Crypto.hash(.sha256, Array((request.method + " " + request.path + "\n").utf8) + request.body)
        let lookup = state.withLock { state -> IdempotencyLookup in
            if let previous = state.idempotency[key] {
                return Crypto.constantTimeEquals(previous.fingerprint, fingerprint) ? .replay(previous.response) : .mismatch
            }
            // A concurrent duplicate waits for nothing: it is told the first is still running.
            guard state.inFlight.insert(key).inserted else { return .inFlight }
            return .fresh
        }
        switch lookup {
        case .replay(let response):
            return SimulatorResult(response)
        case .mismatch:
            // samples/cashfree/error_422_idempotency.json
            return SimulatorResult(Self.error("Request body does not match the original request for this idempotency key",
                                              code: "request_invalid", type: "idempotency_error", status: 422, help: false))
        case .inFlight:
            // Unsure: Cashfree documents no answer for a concurrent duplicate; 409 as Razorpay documents for its refunds.
            return SimulatorResult(Self.error("a request with this idempotency key is still being processed",
                                              code: "request_in_progress", status: 409, help: false))
        case .fresh:
            break
        }
        let result = route(request, context)
        // Only successes are remembered, so a corrected retry under the same key can still succeed.
        // Unsure: whether Cashfree also stores 4xx answers under the key.
        state.withLock { state in
            state.inFlight.remove(key)
            if (200..<300).contains(result.response.status) { state.idempotency[key] = (fingerprint, result.response) }
        }
        return result
    }

    private enum IdempotencyLookup {
        case replay(SandboxResponse)
        case mismatch
        case inFlight
        case fresh
    }

    private func route(_ request: SandboxRequest, _ context: SimulatorContext) -> SimulatorResult {
        let p = request.segments
        switch (request.method, p.count) {
        case ("POST", 1) where p[0] == "customers": return SimulatorResult(createCustomer(request))
        case ("POST", 1) where p[0] == "orders": return SimulatorResult(createOrder(request, context))
        case ("GET", 2) where p[0] == "orders": return SimulatorResult(fetchOrder(p[1], context))
        case ("PATCH", 2) where p[0] == "orders": return SimulatorResult(terminateOrder(p[1], request, context))
        case ("GET", 3) where p[0] == "orders" && p[2] == "payments": return SimulatorResult(orderPayments(p[1]))
        case ("GET", 4) where p[0] == "orders" && p[2] == "payments": return SimulatorResult(fetchPayment(p[1], p[3]))
        case ("POST", 3) where p[0] == "orders" && p[2] == "refunds": return createRefund(p[1], request, context)
        case ("GET", 3) where p[0] == "orders" && p[2] == "refunds": return SimulatorResult(orderRefunds(p[1]))
        case ("GET", 4) where p[0] == "orders" && p[2] == "refunds": return SimulatorResult(fetchRefund(p[1], p[3]))
        default:
            return SimulatorResult(Self.error("requested URL not found", code: "request_failed", status: 404, help: false))
        }
    }

    // MARK: Customers

    func createCustomer(_ request: SandboxRequest) -> SandboxResponse {
        do throws(CashfreeFailure) {
            guard let object = request.jsonObject() else { throw CashfreeFailure(Self.error("invalid JSON body", code: "request_failed")) }
            guard let phone = object["customer_phone"]?.stringValue else { throw Self.missing("customer_phone") }
            guard isCashfreePhone(phone) else { throw Self.invalid("customer_phone") }
            let email = try optionalText(object, "customer_email", 3...100, field: "customer_email")
            if let email, !isPlausibleEmail(email) { throw Self.invalid("customer_email") }
            let name = try optionalText(object, "customer_name", 3...100, field: "customer_name")
            let customer: WireObject = ["customer_uid": .string(Identifiers.uuid()), "customer_phone": .string(phone),
                                        "customer_email": .string(email), "customer_name": .string(name)]
            state.withLock { $0.customers[customer["customer_uid"]?.stringValue ?? ""] = customer }
            return .json(.object(customer))
        } catch {
            return error.response
        }
    }

    /// An optional string whose length must lie in `range`.
    func optionalText(_ object: WireObject, _ key: String, _ range: ClosedRange<Int>, field: String) throws(CashfreeFailure) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue, range.contains(text.count) else { throw Self.invalid(field) }
        return text
    }
}

/// Exactly ten digits (schema min = max = 10). Unsure: the live API also takes a
/// `+`-prefixed international number; the sandbox accepts `+` and 8–15 digits too.
func isCashfreePhone(_ text: String) -> Bool {
    if text.hasPrefix("+") {
        let digits = text.dropFirst()
        return (8...15).contains(digits.count) && digits.allSatisfy(\.isASCIIDigit)
    }
    return text.count == 10 && text.allSatisfy(\.isASCIIDigit)
}

/// A Cashfree error response carried through typed throws.
struct CashfreeFailure: Error {
    let response: SandboxResponse
    init(_ response: SandboxResponse) { self.response = response }
}
