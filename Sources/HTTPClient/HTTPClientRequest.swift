/// One HTTP request for ``HTTPClient/execute(_:)``.
///
/// The body is sent as is, with a `Content-Length`; libcurl adds no
/// `Content-Type` of its own (set one in ``headers`` when there is a body).
/// Redirects are not followed: a provider API that redirects is answered with
/// its 3xx response.
public struct HTTPClientRequest: Sendable {
    /// The method, upper case: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`, ...
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields in order; names are sent as given. `Host`, `Content-Length`
    /// and `Accept-Encoding` are managed by the client.
    public var headers: [(name: String, value: String)]
    /// The request body (empty: none for GET/HEAD/DELETE, `Content-Length: 0` otherwise).
    public var body: [UInt8]
    /// The most one attempt may take, from handing it over to the last body byte
    /// (includes the connect). Default 30 s.
    public var timeout: Duration
    /// The most establishing a new connection (TCP + TLS) may take. Default 10 s.
    /// A reused connection skips it.
    public var connectTimeout: Duration
    /// Whether and how to repeat the request after a failure. Default ``RetryPolicy/never``:
    /// only the caller knows when a request is safe to repeat (idempotent, or
    /// carrying an idempotency key).
    public var retry: RetryPolicy
    /// The caller's deadline across all attempts and back-off sleeps; each attempt's
    /// timeout is shortened to end by it, and no retry starts after it.
    public var deadline: ContinuousClock.Instant?
    /// Send on a new connection, never a kept-alive one. Default false. libcurl silently sends a
    /// request again when a reused connection closes before any answer (it takes it for a stale
    /// keep-alive connection), whatever ``retry`` says. For a write that may not be repeated this
    /// is a duplicate whenever the server did the work and then lost the answer (a second order
    /// created); on a connection of its own the loss is reported as an error instead.
    public var freshConnection: Bool

    /// Creates a request; the connect timeout is 10 s, retries are off and there is no deadline.
    public init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = .seconds(10)
        self.retry = .never
        self.deadline = nil
        self.freshConnection = false
    }
}

/// When ``HTTPClient`` repeats a request.
///
/// With ``idempotent(maxAttempts:baseDelay:maxDelay:)``, an attempt is repeated
/// after a transport failure (connect failure, DNS failure, reset, timeout),
/// after a `429 Too Many Requests` and after any `5xx`. The wait before attempt
/// `n + 1` is drawn uniformly from `[d/2, d]` with `d = min(maxDelay, baseDelay · 2^(n-1))`
/// ("equal jitter"); a `Retry-After` header (seconds or HTTP date) on a 429 or 503
/// replaces it when longer. No retry starts when its wait would end past the
/// request's deadline, or when `Retry-After` asks for more than `maxDelay`:
/// the last response is returned (or the last error thrown) instead.
public struct RetryPolicy: Sendable, Hashable {
    enum Kind: Hashable {
        case never
        case idempotent(maxAttempts: Int, baseDelay: Duration, maxDelay: Duration)
    }

    let kind: Kind

    /// Never repeat: one attempt. The default.
    public static let never = RetryPolicy(kind: .never)

    /// Repeat up to `maxAttempts` attempts in total (at least 1), with exponential
    /// back-off from `baseDelay` capped at `maxDelay`. Use only when repeating the
    /// request is safe: idempotent methods, or a request that carries an idempotency key.
    public static func idempotent(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(100),
        maxDelay: Duration = .seconds(2)
    ) -> RetryPolicy {
        RetryPolicy(kind: .idempotent(
            maxAttempts: max(1, maxAttempts),
            baseDelay: max(.zero, baseDelay),
            maxDelay: max(.zero, maxDelay)
        ))
    }

    /// The most attempts this policy allows (1 for ``never``).
    public var maxAttempts: Int {
        switch kind {
        case .never: 1
        case .idempotent(let maxAttempts, _, _): maxAttempts
        }
    }
}
