/// A request that got no HTTP response: the transport failed, a limit was hit,
/// or the caller gave up. (A 4xx or 5xx is a response, not an error.)
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure; codes may be added, so `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Kind: String, Hashable {
            case timeout
            case connectTimeout
            case connectFailed
            case dnsFailed
            case tls
            case responseTooLarge
            case cancelled
            case invalidRequest
            case shutdown
            case transport
        }

        let kind: Kind

        /// The attempt (or the deadline) ran out of time after the connection was made.
        public static let timeout = Code(kind: .timeout)
        /// No connection within the connect timeout: the request was never sent.
        public static let connectTimeout = Code(kind: .connectTimeout)
        /// The connection was refused or could not be made: the request was never sent.
        public static let connectFailed = Code(kind: .connectFailed)
        /// The host name did not resolve: the request was never sent.
        public static let dnsFailed = Code(kind: .dnsFailed)
        /// The TLS handshake failed or the peer's certificate was not trusted.
        public static let tls = Code(kind: .tls)
        /// The response body grew past ``HTTPClientConfiguration/maxResponseBytes``; the transfer was aborted.
        public static let responseTooLarge = Code(kind: .responseTooLarge)
        /// The calling task was cancelled; the transfer was aborted.
        public static let cancelled = Code(kind: .cancelled)
        /// The request could not be built (bad URL, method or header).
        public static let invalidRequest = Code(kind: .invalidRequest)
        /// The client was shut down before or during the request.
        public static let shutdown = Code(kind: .shutdown)
        /// Any other transport failure (reset, empty reply, malformed response, ...).
        public static let transport = Code(kind: .transport)

        /// A short stable label, fit for a metric or a log field: `timeout`, `connectFailed`, ...
        public var description: String { kind.rawValue }
    }

    /// What kind of failure.
    public var code: Code
    /// What happened, in words: libcurl's `curl_easy_strerror` text, its detailed
    /// error buffer when it has one, and the request's method and URL (without query).
    public var message: String
    /// libcurl's `CURLcode` for the failure, when libcurl reported it (0 otherwise).
    public var curlCode: Int
    /// How many attempts were made before giving up.
    public var attempts: Int

    /// Creates an error.
    public init(code: Code, message: String, curlCode: Int = 0, attempts: Int = 1) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.attempts = attempts
    }

    /// True when the request certainly never reached the server (connect or DNS
    /// failure): repeating it is safe even when it is not idempotent.
    public var requestWasNotSent: Bool {
        code == .connectFailed || code == .connectTimeout || code == .dnsFailed
    }

    /// `HTTPClientError(timeout): message`.
    public var description: String { "HTTPClientError(\(code)): \(message)" }
}
