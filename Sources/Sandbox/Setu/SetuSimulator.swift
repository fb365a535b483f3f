import Crypto
import Support

/// Setu BBPS BillPay, pre-built screens with the partner's own payment gateway
/// (`https://sandbox-coudc.setu.co/api/v2/...`), per docs/providers/setu.md.
///
/// Token from `POST /api/v2/auth/token`; calls carry `Authorization: Bearer`
/// and `X-PARTNER-ID`. Errors: `{"success":false,"traceId","error":{"code","message"}}`.
/// Setu signs nothing: its webhooks carry a static `X-BILL-WEBHOOK-API-KEY`.
final class SetuSimulator: ProviderSimulator {
    struct Link: Sendable {
        let sessionID: String
        let orgID: String
        let mobileNumber: String?
        let customerID: String?
        let categoryName: String?
        let billerID: String?
        let billParams: Wire
        let additionalInfo: Wire
        let createdAt: Int64
    }

    struct Order: Sendable {
        let orderID: String
        let sessionID: String
        let amount: Int64
        /// `paymentMode` values allowed (NETBANKING already mapped to INTERNET BANKING); empty = any.
        let allowedModes: [String]
        let allowedModesText: String?
        let postPaymentURL: String
        let mobileNumber: String
        let customerID: String?
        /// The partner's last payment-event: status, transaction id, mode, time.
        var paymentEvent: (status: String, transactionID: String, mode: String, dateTime: String)?
        var refundEvents: [String: String] = [:]
        var billStatus: String?
        let setuTransactionID: String
        let billID: String
        let refID: String
    }

    struct State: Sendable {
        var tokens: [String: Int64] = [:]
        var links: [String: Link] = [:]
        var orders: [String: Order] = [:]
        /// Armed payment-event refusals (control API), oldest first.
        var refusals: [PaymentEventRefusal] = []
        /// HTTP status of every payment-event delivery per order id, in arrival order.
        var paymentEventDeliveries: [String: [Int]] = [:]
    }

    let provider = SandboxProvider.setu
    let credentials: SandboxCredentials
    let state = Locked(State())
    static let tokenLifetime: Int64 = 600

    /// `paymentMode` values (docs/providers/setu.md §4.2); `Bharat QR` (docs sample spelling) is accepted too.
    static let paymentModes: Set<String> = ["INTERNET BANKING", "DEBIT CARD", "CREDIT CARD", "PREPAID CARD", "IMPS", "CASH", "UPI",
                                            "WALLET", "NEFT", "AEPS", "ACCOUNT TRANSFER", "BHARAT QR", "USSD"]

    init(credentials: SandboxCredentials) {
        self.credentials = credentials
    }

    func reset() { state.withLock { $0 = State() } }

    /// Invalidates every issued token (control API: `POST /_sandbox/setu/tokens/expire`).
    func expireAllTokens() { state.withLock { $0.tokens.removeAll() } }

    static func traceID() -> String { Identifiers.base62(18).uppercased() }

    static func error(_ code: String, _ message: String, status: Int = 400) -> SandboxResponse {
        .json(.object(["success": false, "traceId": .string(traceID()),
                       "error": .object(["code": .string(code), "message": .string(message)])]), status: status)
    }

    func serverError(status: Int) -> SandboxResponse {
        Self.error("internal-server-error", "Something went wrong on our side", status: status)
    }

    func rateLimited(retryAfterSeconds: Int) -> SandboxResponse {
        // Setu documents no rate limits; the error shape is its usual one.
        var response = Self.error("too-many-requests", "Rate limit exceeded", status: 429)
        response.headers.append(("Retry-After", String(retryAfterSeconds)))
        return response
    }

    // MARK: Routing

    func handle(_ request: SandboxRequest, context: SimulatorContext) -> SimulatorResult {
        let p = request.segments
        switch (request.method, p) {
        case ("POST", ["api", "v2", "auth", "token"]), ("POST", ["api", "v1", "auth", "token"]):
            return SimulatorResult(token(request, context))
        case ("POST", ["api", "v2", "ethereal", "link"]), ("POST", ["api", "v1", "ethereal", "link"]):
            if let failure = authenticate(request, context) { return SimulatorResult(failure) }
            return SimulatorResult(createLink(request, context))
        case ("POST", ["api", "v2", "webhooks", "payment-event"]), ("POST", ["webhooks", "payment-event"]):
            if let failure = checkPartner(request) { return SimulatorResult(failure) }
            return SimulatorResult(paymentEvent(request))
        case ("POST", ["api", "v2", "webhooks", "refund-event"]), ("POST", ["webhooks", "refund-event"]):
            if let failure = checkPartner(request) { return SimulatorResult(failure) }
            return SimulatorResult(refundEvent(request))
        case ("GET", let path) where path.count == 2 && path[0] == "billpay":
            return SimulatorResult(session(path[1]))
        default:
            return SimulatorResult(Self.error("not-found", "No route for \(request.method) \(request.path)", status: 404))
        }
    }

    /// `POST /api/v2/auth/token` with `{"clientID","secret"}`.
    func token(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.jsonObject() else { return Self.error("invalid-request", "Body must be JSON") }
        guard let id = object["clientID"]?.stringValue, let secret = object["secret"]?.stringValue else {
            return Self.error("invalid-request", "clientID and secret are required")
        }
        // Unsure: Setu's code and status for wrong credentials.
        guard Crypto.constantTimeEquals(Array(id.utf8), Array(credentials.setuClientID.utf8)),
              Crypto.constantTimeEquals(Array(secret.utf8), Array(credentials.setuSecret.utf8)) else {
            return Self.error("invalid-credentials", "Invalid clientID or secret", status: 401)
        }
        // JWT-shaped (header.payload.signature); the sandbox only checks it is one it issued.
        let header = Encoding.base64url(Array("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".utf8))
        let payload = Encoding.base64url(Array("{\"sub\":\"\(credentials.setuClientID)\",\"exp\":\(context.now + Self.tokenLifetime),\"jti\":\"\(Identifiers.base62(12))\"}".utf8))
        let signature = Encoding.base64url((try? Crypto.randomBytes(32)) ?? Array(Identifiers.base62(32).utf8))
        let token = header + "." + payload + "." + signature
        state.withLock { state in
            state.tokens = state.tokens.filter { $0.value > context.now }
            state.tokens[token] = context.now + Self.tokenLifetime
        }
        return .json(.object(["expiresIn": .int(Self.tokenLifetime), "token": .string(token), "success": true,
                              "traceId": .string(Self.traceID())]))
    }

    /// Bearer token plus `X-PARTNER-ID`. Unsure: Setu's codes for these failures.
    private func authenticate(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse? {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else {
            return Self.error("unauthorized", "Missing bearer token", status: 401)
        }
        let token = String(header.dropFirst(7)).trimmingSpaces()
        guard let expiry = state.withLock({ $0.tokens[token] }), expiry > context.now else {
            return Self.error("unauthorized", "Invalid or expired token", status: 401)
        }
        return checkPartner(request)
    }

    private func checkPartner(_ request: SandboxRequest) -> SandboxResponse? {
        guard let partner = request.header("x-partner-id") else {
            return Self.error("missing-partner-id", "X-PARTNER-ID header is required", status: 401)
        }
        guard Crypto.constantTimeEquals(Array(partner.trimmingSpaces().utf8), Array(credentials.setuPartnerID.utf8)) else {
            return Self.error("invalid-partner-id", "Unknown X-PARTNER-ID", status: 401)
        }
        return nil
    }

    /// `GET /billpay/{sessionId}`: where a link points; the session as JSON.
    func session(_ sessionID: String) -> SandboxResponse {
        state.withLock { state in
            guard let link = state.links[sessionID] else { return Self.error("invalid-session", "Unknown session", status: 404) }
            return .json(.object(["sessionId": .string(link.sessionID), "mobileNumber": .string(link.mobileNumber),
                                  "custID": .string(link.customerID), "categoryName": .string(link.categoryName),
                                  "billerId": .string(link.billerID), "billParams": link.billParams]))
        }
    }
}

extension Encoding {
    /// Base64url without padding (RFC 4648 §5), for JWT-shaped tokens.
    static func base64url(_ bytes: [UInt8]) -> String {
        String(base64(bytes).compactMap { c -> Character? in
            switch c {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: c
            }
        })
    }
}
