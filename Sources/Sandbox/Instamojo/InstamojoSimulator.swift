import Crypto
import Support

/// Instamojo API v2 (`https://test.instamojo.com/v2/...` and `/oauth2/token/`), per docs/providers/instamojo.md.
///
/// OAuth2 client credentials → Bearer token; POST bodies as form data or JSON;
/// validation errors are field-keyed (`{"amount": ["..."]}`, samples/instamojo/error_example.json).
final class InstamojoSimulator: ProviderSimulator {
    struct State: Sendable {
        /// access token → expiry (seconds since the epoch).
        var tokens: [String: Int64] = [:]
        var paymentRequests: [String: Instamojo.PaymentRequest] = [:]
        var paymentRequestSequence: [String] = []
        var orders: [String: Instamojo.GatewayOrder] = [:]
        var orderSequence: [String] = []
        var ordersByTransaction: [String: String] = [:]
        var payments: [String: Instamojo.Payment] = [:]
        var cases: [String: Instamojo.RefundCase] = [:]

        /// A new pending payment of the pending gateway order `orderID` (UPI collect, bank or
        /// wallet redirect), recorded on the order; refused (404, or 400 for an order no longer
        /// pending) otherwise.
        mutating func startPayment(orderID: String, instrument: String, vpa: String?,
                                   context: SimulatorContext) -> Result<Instamojo.Payment, PaymentRefusal> {
            guard var order = orders[orderID] else { return .failure(PaymentRefusal(response: InstamojoSimulator.notFound())) }
            guard order.status == "pending" else {
                return .failure(PaymentRefusal(response: InstamojoSimulator.message("This order is already \(order.status).", status: 400)))
            }
            let payment = Instamojo.Payment(
                id: "MOJO" + Identifiers.base62(16).uppercased(), title: order.description ?? "Gateway order",
                paymentRequestID: order.paymentRequestID, orderID: orderID, status: nil, amount: order.amount,
                name: order.name, email: order.email, phone: order.phone, instrument: instrument, failure: nil,
                createdAt: context.nowMilliseconds, updatedAt: context.nowMilliseconds, vpa: vpa)
            payments[payment.id] = payment
            order.payments.append(payment.id)
            orders[orderID] = order
            return .success(payment)
        }
    }

    /// Why a payment could not start on an order: the answer to give.
    struct PaymentRefusal: Error {
        let response: SandboxResponse
    }

    let provider = SandboxProvider.instamojo
    let credentials: SandboxCredentials
    let state = Locked(State())
    /// Token lifetime, as in the reference's example.
    static let tokenLifetime: Int64 = 36_000

    init(credentials: SandboxCredentials) {
        self.credentials = credentials
    }

    func reset() { state.withLock { $0 = State() } }

    static func message(_ text: String, status: Int) -> SandboxResponse {
        .json(.object(["success": false, "message": .string(text)]), status: status)
    }

    /// Unsure: Instamojo documents no body for unknown ids; this is the v1.1-style shape.
    static func notFound() -> SandboxResponse { message("Not found.", status: 404) }

    func serverError(status: Int) -> SandboxResponse {
        Self.message("Something went wrong. Please try again later.", status: status)
    }

    func rateLimited(retryAfterSeconds: Int) -> SandboxResponse {
        // Rate limits are not documented by Instamojo; this is Django REST framework's throttle answer.
        var response = Self.message("Request was throttled. Expected available in \(retryAfterSeconds) seconds.", status: 429)
        response.headers.append(("Retry-After", String(retryAfterSeconds)))
        return response
    }

    // MARK: Routing

    func handle(_ request: SandboxRequest, context: SimulatorContext) -> SimulatorResult {
        let p = request.segments
        // Instamojo's paths end with '/', and the trailing slash is part of the URL.
        guard request.hasTrailingSlash else {
            return SimulatorResult(Self.message("Not found. Instamojo paths end with '/'.", status: 404))
        }
        if request.method == "POST", p == ["oauth2", "token"] { return SimulatorResult(token(request, context)) }
        guard p.first == "v2" else { return SimulatorResult(Self.notFound()) }
        let v = Array(p.dropFirst())
        // The mobile SDK's checkout endpoints are called from the device without the merchant's token
        // (the netbanking / wallet forms check one only when it is sent).
        if v.count >= 4, v[0] == "gateway", v[1] == "orders" {
            switch (request.method, v.count) {
            case ("GET", 4) where v[3] == "checkout-options": return SimulatorResult(checkoutOptions(v[2], context))
            case ("POST", 4) where v[3] == "upi": return SimulatorResult(upiCollect(v[2], request, context))
            case ("GET", 6) where v[3] == "upi" && v[5] == "status": return SimulatorResult(upiStatus(v[2], paymentID: v[4]))
            case ("POST", 4) where v[3] == "netbanking" || v[3] == "wallet":
                return SimulatorResult(redirectSubmission(v[2], kind: v[3], request, context))
            default: break
            }
        }
        if let failure = authenticate(request, context) { return SimulatorResult(failure) }
        switch (request.method, v.count) {
        case ("POST", 1) where v[0] == "payment_requests": return SimulatorResult(createPaymentRequest(request, context))
        case ("GET", 1) where v[0] == "payment_requests": return SimulatorResult(listPaymentRequests(context))
        case ("GET", 2) where v[0] == "payment_requests": return SimulatorResult(fetchPaymentRequest(v[1], context))
        case ("POST", 3) where v[0] == "payment_requests" && (v[2] == "enable" || v[2] == "disable"):
            return SimulatorResult(toggle(v[1], enabled: v[2] == "enable"))
        case ("POST", 2) where v == ["gateway", "orders"]: return SimulatorResult(createOrder(request, context))
        case ("GET", 2) where v == ["gateway", "orders"]: return SimulatorResult(listOrders(request, context))
        case ("POST", 3) where v == ["gateway", "orders", "payment-request"]:
            return SimulatorResult(orderFromPaymentRequest(request, context))
        case ("GET", 3) where v[0] == "gateway" && v[1] == "orders": return SimulatorResult(fetchOrder(v[2], context))
        case ("GET", 2) where v[0] == "payments": return SimulatorResult(fetchPayment(v[1], context))
        case ("POST", 3) where v[0] == "payments" && v[2] == "refund": return SimulatorResult(createRefund(v[1], request, context))
        case ("GET", 3) where v[0] == "resolutioncenter" && v[1] == "cases": return SimulatorResult(fetchCase(v[2], context))
        default: return SimulatorResult(Self.notFound())
        }
    }

    // MARK: OAuth2

    /// `POST /oauth2/token/`: `grant_type=client_credentials`, `client_id`, `client_secret`.
    /// Other grants (password, refresh_token) are not simulated: `unsupported_grant_type`.
    func token(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        let form = request.formOrJSON() ?? WireObject()
        guard form["grant_type"]?.stringValue == "client_credentials" else {
            return .json(.object(["error": "unsupported_grant_type"]), status: 400)
        }
        let id = Array((form["client_id"]?.stringValue ?? "").utf8)
        let secret = Array((form["client_secret"]?.stringValue ?? "").utf8)
        guard Crypto.constantTimeEquals(id, Array(credentials.instamojoClientID.utf8)),
              Crypto.constantTimeEquals(secret, Array(credentials.instamojoClientSecret.utf8)) else {
            return .json(.object(["error": "invalid_client"]), status: 401)
        }
        let token = Identifiers.hex(32)
        state.withLock { state in
            state.tokens = state.tokens.filter { $0.value > context.now }
            state.tokens[token] = context.now + Self.tokenLifetime
        }
        return .json(.object(["access_token": .string(token), "token_type": "Bearer",
                              "expires_in": .int(Self.tokenLifetime), "scope": "read write"]))
    }

    /// `Authorization: Bearer <token>` with a live token.
    private func authenticate(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse? {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else {
            // samples/instamojo/error_401.json
            return Self.message("Authentication credentials were not provided.", status: 401)
        }
        let token = String(header.dropFirst(7)).trimmingSpaces()
        let expiry = state.withLock { $0.tokens[token] }
        // Unsure: the live text for an unknown or expired token.
        guard let expiry, expiry > context.now else { return Self.message("Invalid token.", status: 401) }
        return nil
    }

    /// Invalidates every issued token (control API: `POST /_sandbox/instamojo/tokens/expire`).
    func expireAllTokens() { state.withLock { $0.tokens.removeAll() } }
}

/// Django-REST-style field errors: `{"field": ["message", ...]}`.
struct FieldErrors {
    private(set) var object = WireObject()

    var isEmpty: Bool { object.isEmpty }

    mutating func add(_ field: String, _ message: String) {
        var list = object[field]?.arrayValue ?? []
        list.append(.string(message))
        object[field] = .array(list)
    }

    var response: SandboxResponse { .json(.object(object), status: 400) }
}

/// Reading Instamojo's form-or-JSON fields.
struct InstamojoFields {
    let object: WireObject
    var errors = FieldErrors()

    init(_ object: WireObject) { self.object = object }

    /// A string field (numbers and booleans as written); empty strings count as absent.
    func text(_ key: String) -> String? {
        switch object[key] {
        case .string(let s)?: s.isEmpty ? nil : s
        case .number(let n)?: n
        case .bool(let b)?: b ? "true" : "false"
        default: nil
        }
    }

    mutating func required(_ key: String, max: Int? = nil) -> String? {
        guard let value = text(key) else {
            errors.add(key, "This field is required.")
            return nil
        }
        return check(key, value, max: max)
    }

    mutating func optional(_ key: String, max: Int? = nil) -> String? {
        guard let value = text(key) else { return nil }
        return check(key, value, max: max)
    }

    private mutating func check(_ key: String, _ value: String, max: Int?) -> String? {
        if let max, value.count > max {
            errors.add(key, "Ensure this field has no more than \(max) characters.")
            return nil
        }
        return value
    }

    mutating func bool(_ key: String, default fallback: Bool) -> Bool {
        guard let value = text(key) else { return fallback }
        switch value.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default:
            errors.add(key, "Must be a valid boolean.")
            return fallback
        }
    }

    /// A rupee amount with at most two decimals, within `range` (in paise).
    mutating func amount(_ key: String, required: Bool, range: ClosedRange<Int64>?) -> Int64? {
        guard let text = text(key) else {
            if required { errors.add(key, "This field is required.") }
            return nil
        }
        guard text.first != "-", text.contains(where: \.isASCIIDigit),
              text.allSatisfy({ $0.isASCIIDigit || $0 == "." }) else {
            errors.add(key, text.first == "-" ? "Ensure this value is greater than or equal to \(range.map { Money.shortest($0.lowerBound) } ?? "0")." : "A valid number is required.")
            return nil
        }
        guard let paise = Money.paise(fromDecimal: text) else {
            // Money refuses a malformed text, a third decimal and an amount above its ceiling; say which.
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count > 2 || parts.contains(where: \.isEmpty) {
                errors.add(key, "A valid number is required.")
            } else if parts.count == 2, parts[1].reversed().drop(while: { $0 == "0" }).count > 2 {
                errors.add(key, "Ensure that there are no more than 2 decimal places.")
            } else {
                errors.add(key, "Ensure this value is less than or equal to \(Money.shortest(range?.upperBound ?? Money.maximumPaise)).")
            }
            return nil
        }
        if let range {
            if paise < range.lowerBound {
                errors.add(key, "Ensure this value is greater than or equal to \(Money.shortest(range.lowerBound)).")
                return nil
            }
            if paise > range.upperBound {
                errors.add(key, "Ensure this value is less than or equal to \(Money.shortest(range.upperBound)).")
                return nil
            }
        }
        return paise
    }

    mutating func email(_ key: String, required: Bool) -> String? {
        let value = required ? self.required(key, max: 75) : optional(key, max: 75)
        if let value, !isPlausibleEmail(value) {
            errors.add(key, "Enter a valid email address.")
            return nil
        }
        return value
    }

    /// Indian numbers are normalised to `+91XXXXXXXXXX`, as Instamojo echoes them.
    mutating func phone(_ key: String, required: Bool) -> String? {
        guard let value = required ? self.required(key, max: 20) : optional(key, max: 20) else { return nil }
        let digits = value.filter(\.isASCIIDigit)
        let plain = value.allSatisfy { $0.isASCIIDigit || $0 == "+" || $0 == " " || $0 == "-" }
        guard plain else {
            errors.add(key, "Enter a valid phone number.")
            return nil
        }
        if value.hasPrefix("+"), (8...15).contains(digits.count) { return "+" + digits }
        if digits.count == 10 { return "+91" + digits }
        if digits.count == 12, digits.hasPrefix("91") { return "+" + digits }
        errors.add(key, "Enter a valid phone number.")
        return nil
    }

    mutating func url(_ key: String, required: Bool) -> String? {
        guard let value = required ? self.required(key, max: 255) : optional(key, max: 255) else { return nil }
        guard value.hasPrefix("http://") || value.hasPrefix("https://"), !value.contains(" ") else {
            errors.add(key, "Enter a valid URL.")
            return nil
        }
        return value
    }
}
