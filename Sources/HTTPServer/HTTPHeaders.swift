import Support
/// Ordered HTTP header fields; names compare case-insensitively (ASCII).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    /// The fields in order, names as given.
    public private(set) var fields: [(name: String, value: String)]

    /// No headers.
    public init() { fields = [] }

    /// Headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Number of fields.
    public var count: Int { fields.count }

    /// The first value of the field named `name`; setting replaces every field of that name.
    public subscript(name: String) -> String? {
        get {
            for field in fields where ASCII.caseInsensitiveEquals(field.name, name) { return field.value }
            return nil
        }
        set {
            fields.removeAll { ASCII.caseInsensitiveEquals($0.name, name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Every value of the field named `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { ASCII.caseInsensitiveEquals($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Reserves room for `count` fields (one allocation instead of growing field by field).
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field (keeps existing ones of the same name).
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { ASCII.caseInsensitiveEquals($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { ASCII.caseInsensitiveEquals($0.name, $1.name) && $0.value == $1.value }
    }
}
