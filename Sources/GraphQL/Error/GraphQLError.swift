public import JSON

/// An error of any GraphQL phase: syntax, validation or execution.
///
/// Rendered in a response as the specification's error shape (see
/// `jsonValue`): `message`, then `locations`, `path` and `extensions` when
/// they are not empty.
public struct GraphQLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A description of the error for the client.
    public var message: String
    /// Where in the document the error arose (line and UTF-16 column).
    public var locations: [SourceLocation]
    /// For execution errors: the response path of the field that failed.
    public var path: [PathElement]
    /// Additional fields for clients (`code`, ...), in order.
    public var extensions: JSONObject

    public init(_ message: String, locations: [SourceLocation] = [], path: [PathElement] = [], extensions: JSONObject = [:]) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    /// An error located at the start of each of `nodes` in `source`.
    public init(_ message: String, at nodes: [Location], in source: Source, path: [PathElement] = [], extensions: JSONObject = [:]) {
        self.init(message, locations: nodes.map { source.location(at: $0.start) }, path: path, extensions: extensions)
    }

    /// The error as it appears in a response's `errors` list.
    public var jsonValue: JSONValue {
        var object = JSONObject(capacity: 4)
        object.append("message", .string(message))
        if !locations.isEmpty {
            object.append("locations", .array(locations.map { location in
                var entry = JSONObject(capacity: 2)
                entry.append("line", .int(Int64(location.line)))
                entry.append("column", .int(Int64(location.column)))
                return .object(entry)
            }))
        }
        if !path.isEmpty {
            object.append("path", .array(path.map { element in
                switch element {
                case .key(let key): .string(key)
                case .index(let index): .int(Int64(index))
                }
            }))
        }
        if extensions.count > 0 {
            object.append("extensions", .object(extensions))
        }
        return .object(object)
    }

    /// `line:column message` (first location), or the message alone.
    public var description: String {
        guard let first = locations.first else { return message }
        return "\(first.line):\(first.column) \(message)"
    }
}

/// One step of a response path: an object key or a list index.
public enum PathElement: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case index(Int)

    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}
