/// How an ``HTTPClient`` connects; fixed for the client's lifetime.
public struct HTTPClientConfiguration: Sendable {
    /// The most connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`);
    /// further requests to it wait in libcurl's queue (their timeout runs). Default 32.
    public var maxConnectionsPerHost: Int
    /// The most connections open at once in total (`CURLMOPT_MAX_TOTAL_CONNECTIONS`), and
    /// the size of the idle-connection cache (`CURLMOPT_MAXCONNECTS`): keep it at least
    /// the expected concurrency, or connections are closed and reopened. Default 128.
    public var maxTotalConnections: Int
    /// The largest response body accepted, in bytes (after content decoding); a larger
    /// one aborts the transfer with ``HTTPClientError/Code/responseTooLarge``. Default 16 MiB.
    public var maxResponseBytes: Int
    /// The `User-Agent` sent when a request sets none. Default `PayQL-HTTPClient`.
    public var userAgent: String
    /// Whether TLS peers are verified (certificate chain and host name). Default `true`.
    /// Turn it off only in a test against a self-signed loopback server, never in production.
    public var verifyTLS: Bool
    /// A PEM file of trusted CA certificates, instead of the system store. Default `nil`.
    public var caBundlePath: String?
    /// Whether to offer HTTP/2 on TLS connections (ALPN; plain `http://` stays HTTP/1.1).
    /// Default `true`.
    public var allowHTTP2: Bool
    /// Whether to ask for compressed responses (`Accept-Encoding` with what libcurl can
    /// decode); the body is handed back decoded. Default `true`.
    public var acceptCompressedResponses: Bool
    /// Idle connections older than this are not reused (`CURLOPT_MAXAGE_CONN`). Default 60 s.
    public var maxIdleConnectionAge: Duration

    /// Creates a configuration with the documented defaults.
    public init(
        maxConnectionsPerHost: Int = 32,
        maxTotalConnections: Int = 128,
        maxResponseBytes: Int = 16 << 20,
        userAgent: String = "PayQL-HTTPClient",
        verifyTLS: Bool = true,
        caBundlePath: String? = nil,
        allowHTTP2: Bool = true,
        acceptCompressedResponses: Bool = true,
        maxIdleConnectionAge: Duration = .seconds(60)
    ) {
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
        self.verifyTLS = verifyTLS
        self.caBundlePath = caBundlePath
        self.allowHTTP2 = allowHTTP2
        self.acceptCompressedResponses = acceptCompressedResponses
        self.maxIdleConnectionAge = maxIdleConnectionAge
    }
}
