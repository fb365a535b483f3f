import Crypto
import Support

/// Razorpay's REST API (`https://api.razorpay.com/v1/...`), per docs/providers/razorpay.md.
///
/// Auth is HTTP Basic `key_id:key_secret` with the scheme word exactly
/// `Basic`. Errors use the `{"error":{code,description,source,step,reason,metadata,field}}`
/// envelope of `samples/razorpay/error_*.json`.
final class RazorpaySimulator: ProviderSimulator {
    struct State: Sendable {
        var customers: [String: Razorpay.Customer] = [:]
        var customerOrder: [String] = []
        var bankAccounts: [String: Razorpay.BankAccount] = [:]
        var orders: [String: Razorpay.Order] = [:]
        var orderSequence: [String] = []
        var payments: [String: Razorpay.Payment] = [:]
        var paymentSequence: [String] = []
        var refunds: [String: Razorpay.Refund] = [:]
        var refundSequence: [String] = []
        /// `X-Refund-Idempotency` key → (request fingerprint, refund id).
        var refundKeys: [String: (fingerprint: [UInt8], refundID: String)] = [:]
    }

    let provider = SandboxProvider.razorpay
    let credentials: SandboxCredentials
    let state = Locked(State())
    /// A fixed merchant account id for webhook envelopes.
    let accountID = "acc_Sandbox0000001"

    init(credentials: SandboxCredentials) {
        self.credentials = credentials
    }

    func reset() { state.withLock { $0 = State() } }

    // MARK: Errors

    /// A Razorpay error envelope.
    static func error(_ description: String, status: Int = 400, code: String = "BAD_REQUEST_ERROR",
                      field: String? = nil, source: String = "business", step: String = "payment_initiation",
                      reason: String = "input_validation_failed") -> SandboxResponse {
        var body: WireObject = ["code": .string(code), "description": .string(description), "source": .string(source),
                                "step": .string(step), "reason": .string(reason), "metadata": .object([:])]
        if let field { body["field"] = .string(field) }
        return .json(.object(["error": .object(body)]), status: status)
    }

    /// Unknown id. Unsure: text recalled from the live API ("The id provided does not exist"),
    /// not in the reference; the live API answers 400 for it.
    static func notFound() -> SandboxResponse {
        error("The id provided does not exist", source: "NA", step: "NA", reason: "NA")
    }

    func serverError(status: Int) -> SandboxResponse {
        Self.error("The server encountered an error. The incident has been reported to admins.", status: status,
                   code: "SERVER_ERROR", source: "internal", step: "NA", reason: "server_error")
    }

    func rateLimited(retryAfterSeconds: Int) -> SandboxResponse {
        var response = Self.error("Too many requests", status: 429, source: "NA", step: "NA", reason: "rate_limited")
        response.headers.append(("Retry-After", String(retryAfterSeconds)))
        return response
    }

    // MARK: Routing

    func handle(_ request: SandboxRequest, context: SimulatorContext) -> SimulatorResult {
        if let failure = authenticate(request) { return SimulatorResult(failure) }
        let s = request.segments
        guard s.first == "v1" else { return SimulatorResult(Self.unknownRoute()) }
        let p = Array(s.dropFirst())
        switch (request.method, p.count) {
        case ("POST", 1) where p[0] == "customers": return SimulatorResult(createCustomer(request, context))
        case ("GET", 1) where p[0] == "customers": return SimulatorResult(listCustomers(request))
        case ("GET", 2) where p[0] == "customers": return SimulatorResult(fetchCustomer(p[1]))
        case ("PUT", 2) where p[0] == "customers": return SimulatorResult(editCustomer(p[1], request))
        case ("POST", 3) where p[0] == "customers" && p[2] == "bank_account":
            return SimulatorResult(addBankAccount(customerID: p[1], request))
        case ("DELETE", 4) where p[0] == "customers" && p[2] == "bank_account":
            return SimulatorResult(deleteBankAccount(customerID: p[1], accountID: p[3]))
        case ("POST", 1) where p[0] == "orders": return SimulatorResult(createOrder(request, context))
        case ("GET", 1) where p[0] == "orders": return SimulatorResult(listOrders(request))
        case ("GET", 2) where p[0] == "orders": return SimulatorResult(fetchOrder(p[1]))
        case ("PATCH", 2) where p[0] == "orders": return SimulatorResult(updateOrder(p[1], request))
        case ("GET", 3) where p[0] == "orders" && p[2] == "payments": return SimulatorResult(orderPayments(p[1]))
        case ("GET", 1) where p[0] == "payments": return SimulatorResult(listPayments(request))
        case ("GET", 2) where p[0] == "payments": return SimulatorResult(fetchPayment(p[1]))
        case ("POST", 3) where p[0] == "payments" && p[2] == "capture": return capture(paymentID: p[1], request, context)
        case ("POST", 3) where p[0] == "payments" && p[2] == "refund":
            return createRefund(paymentID: p[1], request, context)
        case ("GET", 3) where p[0] == "payments" && p[2] == "refunds": return SimulatorResult(paymentRefunds(p[1]))
        case ("GET", 4) where p[0] == "payments" && p[2] == "refunds":
            return SimulatorResult(fetchRefund(p[3], paymentID: p[1]))
        case ("POST", 1) where p[0] == "refunds":
            let body = request.formOrJSON()
            guard let paymentID = body?["payment_id"]?.stringValue else {
                return SimulatorResult(Self.error("The payment id field is required.", field: "payment_id"))
            }
            return createRefund(paymentID: paymentID, request, context)
        case ("GET", 2) where p[0] == "refunds": return SimulatorResult(fetchRefund(p[1], paymentID: nil))
        case ("PATCH", 2) where p[0] == "refunds": return SimulatorResult(updateRefund(p[1], request))
        case ("POST", 4) where p == ["upi", "turbo", "customer", "session"]:
            return SimulatorResult(turboSession(request, context))
        default:
            return SimulatorResult(Self.unknownRoute())
        }
    }

    static func unknownRoute() -> SandboxResponse {
        error("The requested URL was not found on the server.", status: 404, source: "NA", step: "NA", reason: "NA")
    }

    /// `Authorization: Basic base64(key_id:key_secret)`; the scheme word must be exactly `Basic`.
    /// Unsure: the live API's exact text and status for bad keys (the reference says 400/4xx,
    /// "Authentication failed"); the sandbox answers 401.
    private func authenticate(_ request: SandboxRequest) -> SandboxResponse? {
        let refuse = Self.error("Authentication failed", status: 401, source: "NA", step: "NA", reason: "NA")
        guard let header = request.header("authorization"), header.hasPrefix("Basic ") else { return refuse }
        guard let decoded = Encoding.bytes(base64: String(header.dropFirst(6)).trimmingSpaces()),
              let text = String(validating: decoded, as: UTF8.self),
              let colon = text.firstIndex(of: ":") else { return refuse }
        let keyID = Array(text[..<colon].utf8)
        let secret = Array(text[text.index(after: colon)...].utf8)
        let idOK = Crypto.constantTimeEquals(keyID, Array(credentials.razorpayKeyID.utf8))
        let secretOK = Crypto.constantTimeEquals(secret, Array(credentials.razorpayKeySecret.utf8))
        return idOK && secretOK ? nil : refuse
    }

    // MARK: Shared validation

    /// The JSON (or form) body as an object, or Razorpay's error for a bad body.
    func body(_ request: SandboxRequest) throws(RazorpayFailure) -> WireObject {
        if request.body.isEmpty { return WireObject() }
        guard let object = request.formOrJSON() else {
            throw RazorpayFailure(Self.error("The request body is not valid JSON.", source: "NA", step: "NA"))
        }
        return object
    }

    /// Validates `notes`: an object of at most 15 string/number values of at most 256 characters.
    func notes(_ value: Wire?) throws(RazorpayFailure) -> WireObject {
        guard let value, !value.isNull else { return WireObject() }
        if case .array(let items) = value, items.isEmpty { return WireObject() }
        guard let object = value.objectValue else {
            throw RazorpayFailure(Self.error("The notes field must be an array.", field: "notes"))
        }
        // Unsure: the live API's wording for these two limits.
        guard object.count <= 15 else {
            throw RazorpayFailure(Self.error("Number of fields in notes should be less than or equal to 15", field: "notes"))
        }
        for (key, item) in object.members {
            let text: String
            switch item {
            case .string(let s): text = s
            case .number(let n): text = n
            case .bool(let b): text = b ? "1" : "0"
            default: throw RazorpayFailure(Self.error("The notes.\(key) must be a string.", field: "notes"))
            }
            guard text.count <= 256 else {
                throw RazorpayFailure(Self.error("The notes.\(key) may not be greater than 256 characters.", field: "notes"))
            }
        }
        return object
    }

    /// `count`/`skip` paging (`count` default 10, at most 100).
    func paging(_ request: SandboxRequest) throws(RazorpayFailure) -> (count: Int, skip: Int) {
        guard let count = Int(request.queryValue("count") ?? "10"), (1...100).contains(count) else {
            throw RazorpayFailure(Self.error("The count must be between 1 and 100.", field: "count"))
        }
        guard let skip = Int(request.queryValue("skip") ?? "0"), skip >= 0 else {
            throw RazorpayFailure(Self.error("The skip must be at least 0.", field: "skip"))
        }
        return (count, skip)
    }

    /// An optional string field of at most `limit` characters.
    func optionalString(_ object: WireObject, _ key: String, limit: Int) throws(RazorpayFailure) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        let text: String
        switch value {
        case .string(let s): text = s
        case .number(let n): text = n
        default: throw RazorpayFailure(Self.error("The \(key) must be a string.", field: key))
        }
        guard text.count <= limit else {
            throw RazorpayFailure(Self.error("The \(key) may not be greater than \(limit) characters.", field: key))
        }
        return text
    }
}

/// A Razorpay error response carried through `Result`.
struct RazorpayFailure: Error {
    let response: SandboxResponse
    init(_ response: SandboxResponse) { self.response = response }
}
