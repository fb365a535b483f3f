/// A SQL statement with its bound values, built by string interpolation:
/// every `\(value)` becomes a `$n` placeholder and travels separately from the
/// SQL text, so a value can never become SQL.
///
/// ```swift
/// let rows = try await pool.query("SELECT name FROM customers WHERE id = \(id)")
/// ```
///
/// Raw, uninterpolated SQL must be asked for by name: `PostgresQuery(unsafeSQL:)`.
/// The description shows the SQL with each bound value as `****`.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL text, with `$1`, `$2`, ... where values were interpolated.
    public private(set) var sql: String
    /// The bound values, in placeholder order.
    public private(set) var bindings: PostgresBindings

    /// SQL text used as is, with explicit binds. Never build `sql` from input.
    public init(unsafeSQL sql: String, bindings: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.bindings = bindings
    }

    /// A literal query without values.
    public init(stringLiteral value: String) {
        self.sql = value
        self.bindings = PostgresBindings()
    }

    /// An interpolated query: literals are SQL, interpolations are binds.
    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.bindings = stringInterpolation.bindings
    }

    /// The SQL with binds shown as `****` (e.g. `SELECT ... WHERE id = $1 [****]`).
    public var description: String {
        bindings.count == 0 ? sql : sql + " [" + Array(repeating: "****", count: bindings.count).joined(separator: ", ") + "]"
    }

    /// Builds the SQL and binds of an interpolated query.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings = PostgresBindings()

        /// Reserves room for the literal parts.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        /// SQL text, verbatim.
        public mutating func appendLiteral(_ literal: String) { sql += literal }

        /// A value, bound as the next `$n`.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// An optional value, bound as the next `$n` (nil binds SQL NULL). Spelled out so
        /// that binding an optional is not mistaken for printing one.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// SQL text written in the program (a column list, an ORDER BY chosen from an
        /// enum): `StaticString` cannot be built from input, so this stays safe.
        public mutating func appendInterpolation(sql text: StaticString) {
            sql += text.description
        }

        /// Another query built the same way, embedded: its `$n` placeholders are
        /// renumbered after this one's and its values appended. For composing
        /// WHERE clauses from optional filters; the fragment's SQL must come from
        /// interpolation (a `$` followed by digits anywhere in it is a placeholder).
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = bindings.count
            var rewritten = ""
            var characters = fragment.sql.unicodeScalars.makeIterator()
            var pending: Unicode.Scalar? = characters.next()
            while let character = pending {
                pending = characters.next()
                guard character == "$", let next = pending, ("0"..."9").contains(next) else {
                    rewritten.unicodeScalars.append(character)
                    continue
                }
                var digits = ""
                while let digit = pending, ("0"..."9").contains(digit) {
                    digits.unicodeScalars.append(digit)
                    pending = characters.next()
                }
                rewritten += "$\((Int(digits) ?? 0) + offset)"
            }
            sql += rewritten
            bindings.append(contentsOf: fragment.bindings)
        }

        /// An identifier (schema, table or column name), double-quoted with
        /// embedded quotes doubled, so it can never end the identifier early.
        public mutating func appendInterpolation(identifier: String) {
            sql += "\"" + identifier.replacing("\"", with: "\"\"") + "\""
        }
    }
}

/// The bound values of a query, stored contiguously in their wire form.
///
/// Two arrays whatever the number of values (one describing them, one holding
/// their bytes): a query costs few allocations.
public struct PostgresBindings: Sendable {
    /// One bound value: its type, wire format and bytes in `storage`.
    struct Parameter: Sendable {
        var oid: UInt32
        var format: Int32
        /// Where its bytes start in `storage`; -1 for SQL NULL.
        var offset: Int
        var length: Int
    }

    /// The values' descriptions, in placeholder order.
    private(set) var parameters: [Parameter] = []
    /// All values' bytes, back to back. Each is followed by a NUL terminator.
    private(set) var storage: [UInt8] = []
    /// The first value PostgreSQL could not take (a NUL byte inside text), reported when the query is sent.
    private(set) var invalidValue: String?

    /// No values.
    public init() {}

    /// The number of values.
    public var count: Int { parameters.count }

    /// Type OIDs, one per value (for preparing; the prepared-statement cache keys on `parameters`).
    var types: [UInt32] { parameters.map(\.oid) }

    /// Appends another list's values after these.
    public mutating func append(contentsOf other: PostgresBindings) {
        let base = storage.count
        storage.append(contentsOf: other.storage)
        for parameter in other.parameters {
            var moved = parameter
            if moved.offset >= 0 { moved.offset += base }
            parameters.append(moved)
        }
        if invalidValue == nil, let invalid = other.invalidValue { invalidValue = invalid }
    }

    /// Appends a value as the next parameter.
    public mutating func append<Value: PostgresEncodable>(_ value: Value) {
        let format = Value.postgresFormat
        let start = storage.count
        guard value.encode(into: &storage) else {
            storage.removeSubrange(start...)
            parameters.append(Parameter(oid: Value.postgresDataType.oid, format: format.rawValue, offset: -1, length: 0))
            return
        }
        let end = storage.count
        // libpq reads text parameters as C strings: a NUL would silently cut the value.
        if format == .text, invalidValue == nil, storage[start..<end].contains(0) {
            invalidValue = "parameter $\(parameters.count + 1) contains a NUL byte, which PostgreSQL text cannot hold"
        }
        // Every value is followed by a NUL: the C-string terminator for text, and a
        // non-nil address for an empty binary value (a nil pointer would mean NULL).
        storage.append(0)
        parameters.append(Parameter(oid: Value.postgresDataType.oid, format: format.rawValue, offset: start, length: end - start))
    }
}
