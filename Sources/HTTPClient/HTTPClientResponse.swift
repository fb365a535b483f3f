import Support
/// The answer to an ``HTTPClientRequest``: any status, including 4xx and 5xx
/// (those are answers, not errors; only transport failures throw).
public struct HTTPClientResponse: Sendable {
    /// The HTTP status code, e.g. 200.
    public var status: Int
    /// Header fields of the final response in the order received (names as sent by the server).
    public var headers: [(name: String, value: String)]
    /// The response body, decoded from any content encoding the client offered.
    public var body: [UInt8]
    /// The HTTP version the response came over.
    public var httpVersion: HTTPVersion
    /// How many attempts it took (1 without retries).
    public var attempts: Int

    /// Creates a response (for tests and fakes; ``HTTPClient`` builds its own).
    public init(
        status: Int,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        httpVersion: HTTPVersion = .http1_1,
        attempts: Int = 1
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.attempts = attempts
    }

    /// The value of the first header field named `name`, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        headers.first { ASCII.caseInsensitiveEquals($0.name, name) }?.value
    }

    /// The values of every header field named `name`, case-insensitively, in order.
    public func headers(named name: String) -> [String] {
        headers.filter { ASCII.caseInsensitiveEquals($0.name, name) }.map(\.value)
    }

    /// The body read as UTF-8 (invalid sequences repaired with U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// An HTTP protocol version.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version (1, 2 or 3).
    public var major: Int
    /// The minor version (0 or 1 for HTTP/1).
    public var minor: Int

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    /// Creates a version from its numbers.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.1`, `HTTP/2`.
    public var description: String { major >= 2 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)" }
}
