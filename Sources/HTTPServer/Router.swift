/// Matches a request's method and path against route patterns such as
/// `POST /webhooks/{provider}`, `GET /ops/**` or `/graphql` (any method).
///
/// A pattern is an optional method, then a path of literal segments,
/// `{name}` parameters (one whole segment each, never empty) and an optional
/// final `**` (the rest of the path, possibly empty). Routes are tried in the
/// order they were added; the first whose path and method match wins. A path
/// that matches some route but not its method is reported as such, so the
/// caller can answer 405 with an `Allow` header instead of 404.
public struct Router<Destination: Sendable>: Sendable {
    /// Why a pattern could not be read.
    public struct PatternError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest
    }

    private struct Route: Sendable {
        var method: String?
        var segments: [Segment]
        var destination: Destination
    }

    /// The outcome of ``match(method:path:)``.
    public enum Match: Sendable {
        /// A route matched: its destination and the path's parameters (`{provider}` → `"razorpay"`; `**` → `"**"`).
        case found(Destination, parameters: [String: String])
        /// The path matches routes, none for this method; `allowed` lists theirs.
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    private var routes: [Route] = []

    /// An empty router.
    public init() {}

    /// Adds a route; throws for a malformed pattern (empty parameter name, `**` not last, no leading `/`).
    public mutating func add(_ pattern: String, _ destination: Destination) throws(PatternError) {
        let parts = pattern.split(separator: " ", maxSplits: 1)
        let method = parts.count == 2 ? String(parts[0]).uppercased() : nil
        let path = String(parts.count == 2 ? parts[1] : parts[0])
        guard path.hasPrefix("/") else { throw PatternError(description: "route '\(pattern)' must start with '/'") }
        var segments: [Segment] = []
        let pieces = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, piece) in pieces.enumerated() {
            if piece == "**" {
                guard index == pieces.count - 1 else { throw PatternError(description: "'**' must be last in '\(pattern)'") }
                segments.append(.rest)
            } else if piece.hasPrefix("{"), piece.hasSuffix("}") {
                let name = piece.dropFirst().dropLast()
                guard !name.isEmpty else { throw PatternError(description: "empty parameter name in '\(pattern)'") }
                segments.append(.parameter(String(name)))
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        routes.append(Route(method: method, segments: segments, destination: destination))
    }

    /// The route for `method` and `path` (the path without its query; a trailing slash is ignored).
    public func match(method: String, path: String) -> Match {
        let pieces = path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: [String] = []
        for route in routes {
            guard let parameters = Self.parameters(route.segments, pieces) else { continue }
            if route.method == nil || route.method == method { return .found(route.destination, parameters: parameters) }
            if let method = route.method, !allowed.contains(method) { allowed.append(method) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func parameters(_ segments: [Segment], _ pieces: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .rest:
                parameters["**"] = pieces[index...].joined(separator: "/")
                return parameters
            case .literal(let literal):
                guard index < pieces.count, pieces[index] == literal else { return nil }
            case .parameter(let name):
                guard index < pieces.count else { return nil }
                parameters[name] = String(pieces[index])
            }
            index += 1
        }
        return index == pieces.count ? parameters : nil
    }
}
