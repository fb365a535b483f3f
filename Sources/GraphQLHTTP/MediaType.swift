import HTTPServer

/// The two response media types of GraphQL over HTTP.
public enum GraphQLMediaType: Sendable, Equatable {
    /// `application/graphql-response+json`: request errors get 4xx.
    case graphQLResponseJSON
    /// `application/json`, the legacy type: request errors still get 200.
    case json

    /// The `Content-Type` value sent.
    public var contentType: String {
        switch self {
        case .graphQLResponseJSON: "application/graphql-response+json; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        }
    }

    /// The response header fields for this type (its `Content-Type`), built once:
    /// a response shares them instead of building its own.
    var responseHeaders: HTTPHeaders {
        switch self {
        case .graphQLResponseJSON: Self.graphQLResponseJSONHeaders
        case .json: Self.jsonHeaders
        }
    }

    private static let graphQLResponseJSONHeaders: HTTPHeaders = ["content-type": GraphQLMediaType.graphQLResponseJSON.contentType]
    private static let jsonHeaders: HTTPHeaders = ["content-type": GraphQLMediaType.json.contentType]

    /// Picks the response type from an `Accept` header (RFC 9110 §12.5.1): the
    /// acceptable type with the highest q-value, `graphql-response+json` winning
    /// ties; `*/*`, `application/*` and an absent header mean `application/json`.
    /// `nil` when the header accepts neither (answer 406).
    public static func negotiate(accept: String?) -> GraphQLMediaType? {
        guard let accept else { return .json }
        // The common exact values skip the general parse.
        switch accept {
        case "application/json", "*/*": return .json
        case "application/graphql-response+json": return .graphQLResponseJSON
        default: break
        }
        if accept.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .json }
        var best: (type: GraphQLMediaType, q: Double, specific: Bool)? = nil
        for range in accept.split(separator: ",") {
            let parsed = MediaRange(String(range))
            guard parsed.q > 0 else { continue }
            let candidate: (GraphQLMediaType, Bool)?
            switch (parsed.type, parsed.subtype) {
            case ("application", "graphql-response+json"): candidate = (.graphQLResponseJSON, true)
            case ("application", "json"): candidate = (.json, true)
            case ("application", "*"), ("*", "*"): candidate = (.json, false)
            default: candidate = nil
            }
            guard let (type, specific) = candidate else { continue }
            if let current = best {
                if parsed.q > current.q || (parsed.q == current.q && type == .graphQLResponseJSON && current.type == .json) {
                    best = (type, parsed.q, specific)
                }
            } else {
                best = (type, parsed.q, specific)
            }
        }
        return best?.type
    }
}

/// A parsed media type or media range: lower-cased type/subtype plus parameters.
struct MediaRange: Equatable {
    var type: String
    var subtype: String
    var parameters: [(name: String, value: String)]
    var q: Double

    init(_ text: String) {
        let pieces = text.split(separator: ";", omittingEmptySubsequences: false)
        let essence = (pieces.first.map(String.init) ?? "").trimmedWhitespace.lowercased()
        if let slash = essence.firstIndex(of: "/") {
            type = String(essence[..<slash])
            subtype = String(essence[essence.index(after: slash)...])
        } else {
            type = essence
            subtype = ""
        }
        parameters = []
        q = 1
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { String($0).trimmedWhitespace }
            guard pair.count == 2 else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            let name = pair[0].lowercased()
            if name == "q" {
                q = Double(value).flatMap { $0.isNaN ? nil : min(max($0, 0), 1) } ?? 0
            } else {
                parameters.append((name, value))
            }
        }
    }

    static func == (lhs: MediaRange, rhs: MediaRange) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype && lhs.q == rhs.q
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name) && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// The `charset` parameter, lower-cased, if present.
    var charset: String? { parameters.first { $0.name == "charset" }?.value.lowercased() }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmedWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        guard let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[start...end])
    }
}
