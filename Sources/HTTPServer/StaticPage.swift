/// Browser files served from memory (pages carried inside the binary: the ops page,
/// the GraphQL explorer), each answered with the headers a page that holds an API
/// key in the browser needs: scripts and styles from this origin only, no framing,
/// no content sniffing, no referrer.
public struct StaticPage: Sendable {
    /// One file: its bytes and `Content-Type`.
    public struct File: Sendable {
        /// The `Content-Type` sent.
        public var contentType: String
        /// The body.
        public var body: [UInt8]

        /// A file of `text` (sent as UTF-8).
        public init(contentType: String, text: String) {
            self.contentType = contentType
            self.body = Array(text.utf8)
        }
    }

    /// The files by name (`index.html`, `ops.js`).
    public let files: [String: File]

    /// A page made of `files` (name, content type, text), as the generated `Embedded*` enums hold them.
    public init(files: [(name: String, contentType: String, text: String)]) {
        var byName: [String: File] = [:]
        for file in files { byName[file.name] = File(contentType: file.contentType, text: file.text) }
        self.files = byName
    }

    /// The `Content-Security-Policy` of every file: nothing inline, nothing from another
    /// origin (`connect-src 'self'` keeps the page's requests on this server), never framed.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The response carrying `name`, or 404 when the page has no such file. `GET` and `HEAD`
    /// only (405 otherwise; libmicrohttpd leaves a HEAD answer's body out itself).
    public func response(_ name: String, method: String) -> HTTPResponse {
        guard method == "GET" || method == "HEAD" else {
            var refused = HTTPResponse.text("Use GET.\n", status: 405)
            refused.headers["allow"] = "GET, HEAD"
            return refused
        }
        guard let file = files[name] else { return .text("Not found.\n", status: 404) }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: file.contentType)
        headers.add(name: "content-security-policy", value: Self.contentSecurityPolicy)
        headers.add(name: "x-content-type-options", value: "nosniff")
        headers.add(name: "x-frame-options", value: "DENY")
        headers.add(name: "referrer-policy", value: "no-referrer")
        headers.add(name: "cross-origin-opener-policy", value: "same-origin")
        // Small files that change with the binary: revalidated on every load, never stale after an upgrade.
        headers.add(name: "cache-control", value: "no-cache")
        return HTTPResponse(status: 200, headers: headers, body: file.body)
    }
}
