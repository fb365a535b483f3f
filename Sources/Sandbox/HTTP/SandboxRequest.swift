import Support
/// A request as the simulators see it: independent of the HTTP server's types
/// so the simulators are pure logic, testable without sockets.
struct SandboxRequest: Sendable {
    /// Upper-case method, e.g. `POST`.
    var method: String
    /// The path without the query string, percent-decoded per segment by the router.
    var path: String
    /// Query parameters in order (decoded).
    var query: [(name: String, value: String)]
    /// Header fields; names compared case-insensitively.
    var headers: [(name: String, value: String)]
    /// The raw body.
    var body: [UInt8]

    init(method: String, path: String, query: [(name: String, value: String)] = [],
         headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (any case).
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The last query parameter named `name`.
    func queryValue(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }

    /// Path segments without empty ones: `/v1/orders/` → `["v1", "orders"]`.
    var segments: [String] { path.split(separator: "/").map(String.init) }

    /// Whether the path ends with `/` (Instamojo's paths do).
    var hasTrailingSlash: Bool { path.count > 1 && path.hasSuffix("/") }

    /// The media type of the body, lower-cased, without parameters.
    var mediaType: String {
        let value = header("content-type") ?? ""
        return (value.split(separator: ";").first.map(String.init) ?? "").trimmingSpaces().lowercased()
    }

    /// The body as a JSON object, or nil if it is not one.
    func jsonObject() -> WireObject? {
        guard let value = try? Wire.parse(body) else { return nil }
        return value.objectValue
    }

    /// The body as JSON (by content type) or form fields, as an object whose
    /// form values are strings. Instamojo takes both encodings.
    func formOrJSON() -> WireObject? {
        if mediaType == "application/json" || body.first == UInt8(ascii: "{") {
            return jsonObject()
        }
        var object = WireObject()
        for (name, value) in URLEncodedForm.decode(body) { object[name] = .string(value) }
        return object
    }
}

/// A response from a simulator; `drop` closes the connection without answering.
struct SandboxResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// Close the connection without an answer (fault injection).
    var drop = false

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    static func json(_ value: Wire, status: Int = 200, headers: [(name: String, value: String)] = []) -> SandboxResponse {
        SandboxResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
                        body: value.jsonBytes)
    }

    /// A JSON object response.
    static func json(_ object: WireObject, status: Int = 200) -> SandboxResponse {
        json(.object(object), status: status)
    }

    /// Closes the connection without answering.
    static var dropped: SandboxResponse {
        var response = SandboxResponse(status: 0)
        response.drop = true
        return response
    }
}
