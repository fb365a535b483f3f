/// A JSON value that keeps object members in the order they were written.
///
/// GraphQL responses must list fields in selection order, and 64-bit integers
/// must survive exactly, so PayQL does not go through `Double` or through an
/// unordered dictionary: integers are `Int64`, other numbers `Double`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer that fits in 64 bits, kept exact.
    case int(Int64)
    /// A number with a fraction or exponent, or an integer too large for `Int64`.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// JSON object members in insertion order. Look-up is linear: objects in
/// requests and responses are small, and order matters more than speed here.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// Member names, in order; parallel to `values`.
    public private(set) var keys: [String]
    /// Member values, in order; parallel to `keys`.
    public private(set) var values: [JSONValue]

    /// An empty object with room for `capacity` members.
    public init(capacity: Int = 0) {
        keys = []
        values = []
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(capacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// An object made of parallel arrays of names and values (the executor shares
    /// one names array between every result object of a selection). The names must
    /// be distinct and as many as the values.
    package init(keys: [String], values: [JSONValue]) {
        precondition(keys.count == values.count, "JSONObject(keys:values:) needs one name per value")
        self.keys = keys
        self.values = values
    }

    /// Number of members.
    public var count: Int { keys.count }

    /// The position of the first member named `key`.
    ///
    /// Compares lengths before contents: most names differ in length, and a
    /// length check is much cheaper than the standard library's full comparison
    /// of two different strings.
    @inlinable
    public func index(forKey key: String) -> Int? {
        let length = key.utf8.count
        for position in keys.indices {
            let name = keys[position]
            if name.utf8.count == length && name == key { return position }
        }
        return nil
    }

    /// ``index(forKey:)`` trying position `hint` first (objects of one shape keep
    /// their members in the same places, so a remembered position usually hits).
    @inlinable
    public func index(forKey key: String, hint: Int) -> Int? {
        if hint >= 0, hint < keys.count, keys[hint] == key { return hint }
        return index(forKey: key)
    }

    /// The value of the first member named `key`; setting replaces it in place or appends.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return values[index]
        }
        set {
            if let index = index(forKey: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a member without checking for an existing one with that name
    /// (the caller guarantees uniqueness; used on hot paths such as execution).
    public mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    /// Replaces the value of the member at `index` (which must be valid), keeping its name and position.
    public mutating func replaceValue(at index: Int, with value: JSONValue) {
        values[index] = value
    }

    /// Members in order.
    public var members: Zip2Sequence<[String], [JSONValue]> { zip(keys, values) }
}
