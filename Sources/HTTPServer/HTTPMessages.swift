public import JSON
import Support

/// One HTTP request, fully read (headers and body) before the handler sees it.
public struct HTTPRequest: Sendable {
    /// The method as sent (`GET`, `POST`, ...).
    public var method: String
    /// The path, percent-decoded, without the query (`/graphql`).
    public var path: String
    /// The raw query string after `?`, not decoded; `""` if none.
    public var query: String
    /// The query's `name=value` pairs, percent-decoded with `+` as space.
    public var queryItems: [(name: String, value: String)]
    /// Request header fields in the order received.
    public var headers: HTTPHeaders
    /// The body bytes (empty for none).
    public var body: [UInt8]
    /// The client's numeric IP address.
    public var remoteAddress: String
    /// The request id: the client's `x-request-id` when it is short and safe, else generated.
    /// The server returns it as the `x-request-id` response header and logs it.
    public var id: String
    /// When the server received the request line (handlers measure latency from here).
    public var received: ContinuousClock.Instant
    /// Work the handler's fast path (`respondImmediately(to:)`) prepared and left
    /// for `handle(_:)` when it could not finish synchronously; `nil` otherwise.
    public var handoff: (any Sendable)? = nil

    /// Makes a request (handlers under test can be called without a server).
    public init(
        method: String, path: String, query: String = "", headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1", id: String = "", received: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.queryItems = URLEncodedForm.decode(Array(query.utf8))
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.id = id
        self.received = received
    }

    /// The first query item named `name`.
    public func queryItem(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

/// What a handler answers.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response header fields; `Content-Length` and `Date` are added by the server.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// Extra fields for this request's log line (e.g. the GraphQL operation name).
    /// Never put bodies or secrets here.
    public var logFields: [(name: String, value: String)] = []
    /// Set by `dropConnection`.
    package var dropsConnection = false
    /// A body written over time instead of `body` (Server-Sent Events): sent with
    /// chunked transfer encoding, no `Content-Length`. See `HTTPResponseStream`.
    public var stream: HTTPResponseStream?

    /// A response with the given parts.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body with `content-type: application/json`.
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: JSONWriter.write(value))
    }

    /// A text body (UTF-8).
    public static func text(_ s: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": contentType], body: Array(s.utf8))
    }

    /// A streamed response: the headers now, the body as `stream` is written.
    public static func streaming(status: Int = 200, headers: HTTPHeaders, stream: HTTPResponseStream) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.stream = stream
        return response
    }

    /// Closes the connection without any response (fault injection, abuse).
    public static var dropConnection: HTTPResponse {
        var response = HTTPResponse(status: 0)
        response.dropsConnection = true
        return response
    }
}

/// Answers requests. Runs as ordinary Swift `async` code: the connection is
/// suspended while it works, so a slow handler never holds a server thread.
public protocol HTTPHandler: Sendable {
    /// Produces the response for `request`.
    func handle(_ request: HTTPRequest) async -> HTTPResponse

    /// The fast path: a response computed without waiting, or `nil` to go through
    /// `handle(_:)`. It runs on a server thread, so it must never block; it saves
    /// the suspend → task → resume round trip. Work done here that `handle(_:)`
    /// can reuse may be left in `request.handoff`. The default returns `nil`.
    func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse?
}

extension HTTPHandler {
    public func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse? { nil }
}

/// A handler made of closures.
public struct ClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) async -> HTTPResponse
    private let immediate: (@Sendable (HTTPRequest) -> HTTPResponse?)?

    /// An async handler.
    public init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.body = body
        self.immediate = nil
    }

    /// A handler that answers synchronously on the server thread (must not block).
    public init(immediate: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.immediate = immediate
        self.body = { immediate($0) }
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse { await body(request) }

    public func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse? { immediate?(request) }
}
