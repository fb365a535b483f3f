public import HTTPServer
public import JSON

/// The parameters of one GraphQL-over-HTTP request, from a POST body or a GET query.
public struct GraphQLRequestParameters: Sendable, Equatable {
    /// The document text; `nil` when only a persisted-query hash was sent.
    public var query: String?
    /// Which operation of the document to run.
    public var operationName: String?
    /// Variable values (empty when absent or null).
    public var variables: JSONObject
    /// Request extensions (e.g. `persistedQuery`).
    public var extensions: JSONObject

    /// Parameters given directly.
    public init(query: String?, operationName: String? = nil, variables: JSONObject = [:], extensions: JSONObject = [:]) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.extensions = extensions
    }

    /// Decodes a POST body: a JSON object with `query` (string), `operationName`
    /// (string or null), `variables` and `extensions` (objects or null).
    public static func decode(jsonBody body: [UInt8], limits: JSONLimits = .init()) throws(GraphQLHTTPError) -> GraphQLRequestParameters {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "The request body is empty; expected a JSON object with a \"query\".")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body, limits: limits)
        } catch {
            throw GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "The request body is not valid JSON: \(error.message) at byte \(error.offset).")
        }
        guard case .object(let object) = value else {
            if case .array = value {
                throw GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "Batched requests (a JSON array) are not supported; send one operation per request.")
            }
            throw GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "The request body must be a JSON object.")
        }
        return try fromJSON(object)
    }

    /// Decodes GET query items: `query`, `operationName`, and `variables`/`extensions` as JSON text.
    public static func decode(queryItems: [(name: String, value: String)]) throws(GraphQLHTTPError) -> GraphQLRequestParameters {
        func item(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
        var object = JSONObject()
        if let query = item("query") { object["query"] = .string(query) }
        if let name = item("operationName") { object["operationName"] = name.isEmpty ? .null : .string(name) }
        for name in ["variables", "extensions"] {
            guard let text = item(name), !text.isEmpty else { continue }
            do {
                object[name] = try JSONParser.parse(text)
            } catch {
                throw GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "The \"\(name)\" parameter is not valid JSON: \(error.message).")
            }
        }
        return try fromJSON(object)
    }

    private static func fromJSON(_ object: JSONObject) throws(GraphQLHTTPError) -> GraphQLRequestParameters {
        var parameters = GraphQLRequestParameters(query: nil)
        switch object["query"] {
        case .string(let text)?: parameters.query = text
        case nil, .null?: parameters.query = nil
        default: throw invalid("query", "a string")
        }
        switch object["operationName"] {
        case .string(let text)?: parameters.operationName = text
        case nil, .null?: break
        default: throw invalid("operationName", "a string or null")
        }
        switch object["variables"] {
        case .object(let map)?: parameters.variables = map
        case nil, .null?: break
        default: throw invalid("variables", "an object or null")
        }
        switch object["extensions"] {
        case .object(let map)?: parameters.extensions = map
        case nil, .null?: break
        default: throw invalid("extensions", "an object or null")
        }
        return parameters
    }

    private static func invalid(_ name: String, _ expected: String) -> GraphQLHTTPError {
        GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "The \"\(name)\" parameter must be \(expected).")
    }
}

/// A request refused at the HTTP level, before any GraphQL work: status, code and message.
public struct GraphQLHTTPError: Error, Sendable, Equatable {
    /// HTTP status to send.
    public var status: Int
    /// The `extensions.code` of the single error.
    public var code: String
    /// A message fit for the client.
    public var message: String
    /// Extra response headers (e.g. `Allow` on 405).
    public var headers: HTTPHeaders
    /// Extra `extensions` members (e.g. which limit was exceeded).
    public var extensions: JSONObject

    /// An error with the given parts.
    public init(status: Int, code: String, message: String, headers: HTTPHeaders = [:], extensions: JSONObject = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.extensions = extensions
    }

    /// The error entry in the GraphQL response shape.
    public var errorJSON: JSONValue {
        var ext = JSONObject()
        ext.append("code", .string(code))
        for (key, value) in extensions.members where key != "code" { ext.append(key, value) }
        var entry = JSONObject()
        entry.append("message", .string(message))
        entry.append("extensions", .object(ext))
        return .object(entry)
    }
}
