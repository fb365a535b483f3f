import HTTPClient
public import PaymentsCore
import Support

/// How an adapter uses the network: per-attempt timeout, overall deadline
/// and how often a request that is safe to repeat may be repeated.
public struct ProviderTransportSettings: Sendable {
    /// Longest one attempt may take. Default 15 s.
    public var attemptTimeout: Duration
    /// Longest one HTTP request may take across its attempts and back-off. Default 30 s.
    /// (An operation that first fetches a token, or repeats once after a 401, makes more than one request.)
    public var operationDeadline: Duration
    /// Attempts for requests that are safe to repeat (GETs, and POSTs carrying an
    /// idempotency key the provider honours). Others always get exactly one. Default 3.
    public var maxAttemptsWhenSafe: Int
    /// First back-off delay between attempts. Default 200 ms.
    public var retryBaseDelay: Duration
    /// Told of every HTTP request an adapter makes (health, metrics); nil: nobody listens.
    public var observer: ProviderCallObserver?

    /// Settings with the documented defaults.
    public init(attemptTimeout: Duration = .seconds(15), operationDeadline: Duration = .seconds(30),
                maxAttemptsWhenSafe: Int = 3, retryBaseDelay: Duration = .milliseconds(200)) {
        self.attemptTimeout = attemptTimeout
        self.operationDeadline = operationDeadline
        self.maxAttemptsWhenSafe = maxAttemptsWhenSafe
        self.retryBaseDelay = retryBaseDelay
    }
}

/// One HTTP request an adapter made: which provider and operation, how long it took, how it ended.
public struct ProviderCall: Sendable {
    public var provider: ProviderName
    /// The adapter operation (`"createOrder"`).
    public var operation: String
    public var duration: Duration
    /// nil for a 2xx answer; else the failure's code.
    public var failure: ProviderError.Code?

    /// A call to `provider`'s `operation` that took `duration` and ended in `failure` (nil: a 2xx answer).
    public init(provider: ProviderName, operation: String, duration: Duration, failure: ProviderError.Code?) {
        self.provider = provider
        self.operation = operation
        self.duration = duration
        self.failure = failure
    }
}

/// Receives every ``ProviderCall``; must return at once (it runs on the caller's task).
public struct ProviderCallObserver: Sendable {
    let observe: @Sendable (ProviderCall) -> Void

    /// An observer calling `observe`.
    public init(_ observe: @escaping @Sendable (ProviderCall) -> Void) { self.observe = observe }
}

/// What a provider's error body said, in common terms.
struct ParsedProviderError: Sendable {
    var code: String?
    var message: String?
    var reason: String?
    var field: String?
    var step: String?
    var source: String?
    var traceID: String?
    /// A more precise classification than the HTTP status gives, when the body tells.
    var override: ProviderError.Code?
}

/// The one funnel every adapter's requests go through: sends, maps transport
/// failures, 429 and 5xx to typed errors, and hands 2xx bodies to decoding.
struct ProviderHTTP: Sendable {
    let client: HTTPClient
    let provider: ProviderName
    let settings: ProviderTransportSettings
    /// Reads the provider's error body shape.
    let parseError: @Sendable (_ status: Int, _ body: [UInt8]) -> ParsedProviderError?

    /// `base` without its trailing slashes, then `path` (which starts with `/`).
    static func join(_ base: String, _ path: String) -> String {
        var root = Substring(base)
        while root.hasSuffix("/") { root.removeLast() }
        return root + path
    }

    /// `value` as a compact JSON request body; a value that cannot be encoded is
    /// `.invalidRequest` (nothing was sent).
    func jsonBody(_ value: some Encodable, operation: String) throws(ProviderError) -> [UInt8] {
        do { return try WireCoding.encode(value) } catch {
            throw ProviderError(.invalidRequest, provider: provider, operation: operation, message: "cannot encode request: \(error)")
        }
    }

    /// Sends a request and returns the 2xx response; anything else throws.
    /// `safeToRepeat` enables retries (with back-off, within the deadline).
    func send(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8] = [],
              operation: String, safeToRepeat: Bool) async throws(ProviderError) -> HTTPClientResponse {
        var request = HTTPClientRequest(method: method, url: url, headers: headers, body: body, timeout: settings.attemptTimeout)
        request.deadline = ContinuousClock.now + settings.operationDeadline
        if safeToRepeat, settings.maxAttemptsWhenSafe > 1 {
            request.retry = .idempotent(maxAttempts: settings.maxAttemptsWhenSafe, baseDelay: settings.retryBaseDelay,
                                        maxDelay: .seconds(5))
        }
        // A write that may not be repeated (Razorpay's order create has no idempotency key) goes on a
        // connection of its own: on a kept-alive one, libcurl would resend it if the answer were lost.
        request.freshConnection = !safeToRepeat && method != "GET" && method != "HEAD"
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request)
        } catch {
            let failure = transportError(error, operation: operation)
            report(operation, since: started, failure: failure.code)
            throw failure
        }
        if (200..<300).contains(response.status) {
            report(operation, since: started, failure: nil)
            return response
        }
        let failure = classify(response, operation: operation)
        report(operation, since: started, failure: failure.code)
        throw failure
    }

    private func report(_ operation: String, since started: ContinuousClock.Instant, failure: ProviderError.Code?) {
        guard let observer = settings.observer else { return }
        observer.observe(ProviderCall(provider: provider, operation: operation, duration: ContinuousClock.now - started, failure: failure))
    }

    /// Sends and decodes a 2xx JSON body as `T`. `secretBearing` answers (tokens)
    /// are never quoted in an error message.
    func json<T: Decodable>(_ type: T.Type, method: String, url: String, headers: [(name: String, value: String)],
                            body: [UInt8] = [], operation: String, safeToRepeat: Bool,
                            secretBearing: Bool = false) async throws(ProviderError) -> T {
        let response = try await send(method: method, url: url, headers: headers, body: body,
                                      operation: operation, safeToRepeat: safeToRepeat)
        return try decode(type, from: response, operation: operation, secretBearing: secretBearing)
    }

    /// Decodes a 2xx body, or throws `.malformedResponse` naming what was wrong
    /// (quoting the start of the body unless it may hold a secret).
    func decode<T: Decodable>(_ type: T.Type, from response: HTTPClientResponse, operation: String,
                              secretBearing: Bool = false) throws(ProviderError) -> T {
        switch WireCoding.decodeOrExplain(type, from: response.body) {
        case .success(let value): return value
        case .failure(let failure):
            let quoted = secretBearing ? "(body withheld: it may carry a credential)" : Self.excerpt(response.body)
            throw ProviderError(.malformedResponse, provider: provider, operation: operation,
                                message: "undocumented response body (\(failure.message)): \(quoted)",
                                httpStatus: response.status)
        }
    }

    /// Maps a transport failure: timeouts apart from everything else.
    func transportError(_ error: HTTPClientError, operation: String) -> ProviderError {
        let code: ProviderError.Code
        switch error.code {
        case .timeout: code = .timeout
        case .connectTimeout, .connectFailed, .dnsFailed: code = .unreachable
        case .cancelled: code = .cancelled
        case .responseTooLarge: code = .malformedResponse
        case .invalidRequest: code = .invalidRequest
        default: code = .network
        }
        return ProviderError(code, provider: provider, operation: operation, message: error.message)
    }

    /// Maps a non-2xx response to a typed error, keeping what the provider said.
    func classify(_ response: HTTPClientResponse, operation: String) -> ProviderError {
        let parsed = parseError(response.status, response.body)
        let code: ProviderError.Code
        switch response.status {
        case 429: code = .rateLimited
        case 500...599: code = .providerUnavailable
        case 401, 403: code = parsed?.override ?? .authenticationFailed
        case 404: code = parsed?.override ?? .notFound
        case 409: code = parsed?.override ?? .conflict
        default: code = parsed?.override ?? .rejected
        }
        var error = ProviderError(code, provider: provider, operation: operation,
                                  message: parsed?.message ?? "HTTP \(response.status): \(Self.excerpt(response.body))",
                                  httpStatus: response.status, providerCode: parsed?.code, reason: parsed?.reason,
                                  field: parsed?.field, step: parsed?.step, source: parsed?.source, traceID: parsed?.traceID)
        if response.status == 429 || response.status == 503 {
            error.retryAfterSeconds = Self.retryAfter(response)
        }
        return error
    }

    /// Seconds from `Retry-After` (delta-seconds form) or Cashfree's `x-ratelimit-retry`.
    static func retryAfter(_ response: HTTPClientResponse) -> Int? {
        for name in ["Retry-After", "x-ratelimit-retry"] {
            if let value = response.header(name)?.trimmingSpaces(), let seconds = Int(value), seconds >= 0 { return seconds }
        }
        return nil
    }

    /// At most 200 bytes of a body, for an error message.
    static func excerpt(_ body: [UInt8]) -> String {
        if body.isEmpty { return "(empty body)" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return body.count > 200 ? text + "…" : text
    }
}
