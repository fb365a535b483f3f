/// A Swift type that can be bound as a query parameter.
///
/// One conformance per Swift type; the library provides the integers,
/// `Bool`, `String`, `Double`, `PostgresNumeric`, `PostgresTimestamp`,
/// `PostgresDate`, `UUID`, `PostgresJSONB`, `Data` (bytea), arrays of strings
/// and integers, and `Optional` of any of them (nil binds SQL NULL).
public protocol PostgresEncodable: Sendable {
    /// The OID sent with the value (`.unspecified` lets the server infer it).
    static var postgresDataType: PostgresDataType { get }
    /// The wire format of `encode(into:)`'s bytes.
    static var postgresFormat: PostgresFormat { get }
    /// Appends the value's wire bytes to `buffer`; returns false (appending nothing) for SQL NULL.
    func encode(into buffer: inout [UInt8]) -> Bool
}

extension PostgresEncodable {
    /// Text, the default format.
    public static var postgresFormat: PostgresFormat { .text }
}

/// A Swift type a result column can be decoded as (columns arrive in text form).
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value from its text form. `type` is the column's type.
    /// Throw `PostgresDecodingFailure` (or any error) when the value does not fit.
    static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Self
    /// The value for SQL NULL; throws for non-optional types.
    static func decodeNull() throws -> Self
}

extension PostgresDecodable {
    /// Non-optional types refuse NULL.
    public static func decodeNull() throws -> Self {
        throw PostgresDecodingFailure("NULL where a non-optional \(Self.self) was expected")
    }
}

/// Why a single value could not be decoded; wrapped in a `PostgresError` with the column's name.
public struct PostgresDecodingFailure: Error, Sendable {
    /// What did not fit.
    public var reason: String
    /// Creates a failure.
    public init(_ reason: String) { self.reason = reason }

    static func typeMismatch(_ swiftType: Any.Type, _ type: PostgresDataType) -> PostgresDecodingFailure {
        PostgresDecodingFailure("a \(type) column cannot be decoded as \(swiftType)")
    }

    static func malformed(_ swiftType: Any.Type, _ text: UnsafeRawBufferPointer) -> PostgresDecodingFailure {
        PostgresDecodingFailure("'\(String(decoding: text.prefix(64), as: UTF8.self))' is not a valid \(swiftType)")
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// The wrapped type's OID, so a NULL is typed like its value would be.
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    /// The wrapped type's format.
    public static var postgresFormat: PostgresFormat { Wrapped.postgresFormat }
    /// `nil` binds SQL NULL.
    public func encode(into buffer: inout [UInt8]) -> Bool {
        switch self {
        case .none: false
        case .some(let value): value.encode(into: &buffer)
        }
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    /// The wrapped value.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Self {
        try Wrapped.decode(text: text, type: type)
    }
    /// NULL decodes as nil.
    public static func decodeNull() throws -> Self { nil }
}

// MARK: - Integers

/// Parses an optionally signed decimal integer from ASCII text without allocating.
@inline(__always)
func parseInteger<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as: T.Type) -> T? {
    var index = 0
    let count = text.count
    guard count > 0 else { return nil }
    var negative = false
    if text[0] == UInt8(ascii: "-") { negative = true; index = 1 } else if text[0] == UInt8(ascii: "+") { index = 1 }
    guard index < count else { return nil }
    var value: T = 0
    while index < count {
        let digit = text[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
        let (next, o2) = negative ? times10.subtractingReportingOverflow(T(digit)) : times10.addingReportingOverflow(T(digit))
        guard !o1, !o2 else { return nil }
        value = next
        index += 1
    }
    return value
}

/// Appends an integer's decimal text.
@inline(__always)
func appendInteger<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
    buffer.append(contentsOf: String(value).utf8)
}

private func decodeInteger<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, _ type: PostgresDataType, widest: PostgresDataType) throws -> T {
    let allowed: Bool
    switch type {
    case .int2: allowed = true
    case .int4: allowed = widest != .int2
    case .int8: allowed = widest == .int8
    case .oidType: allowed = widest != .int2
    default: allowed = false
    }
    guard allowed else { throw PostgresDecodingFailure.typeMismatch(T.self, type) }
    guard let value = parseInteger(text, as: T.self) else { throw PostgresDecodingFailure.malformed(T.self, text) }
    return value
}

extension Int16: PostgresEncodable, PostgresDecodable {
    /// `int2`.
    public static var postgresDataType: PostgresDataType { .int2 }
    /// Decimal text.
    public func encode(into buffer: inout [UInt8]) -> Bool { appendInteger(self, to: &buffer); return true }
    /// From `int2`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Int16 {
        try decodeInteger(text, type, widest: .int2)
    }
}

extension Int32: PostgresEncodable, PostgresDecodable {
    /// `int4`.
    public static var postgresDataType: PostgresDataType { .int4 }
    /// Decimal text.
    public func encode(into buffer: inout [UInt8]) -> Bool { appendInteger(self, to: &buffer); return true }
    /// From `int2` or `int4`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Int32 {
        try decodeInteger(text, type, widest: .int4)
    }
}

extension Int64: PostgresEncodable, PostgresDecodable {
    /// `int8`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Decimal text.
    public func encode(into buffer: inout [UInt8]) -> Bool { appendInteger(self, to: &buffer); return true }
    /// From `int2`, `int4` or `int8`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Int64 {
        try decodeInteger(text, type, widest: .int8)
    }
}

extension Int: PostgresEncodable, PostgresDecodable {
    /// `int8`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Decimal text.
    public func encode(into buffer: inout [UInt8]) -> Bool { appendInteger(self, to: &buffer); return true }
    /// From `int2`, `int4` or `int8`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Int {
        try decodeInteger(text, type, widest: .int8)
    }
}

// MARK: - Bool, String, Double

extension Bool: PostgresEncodable, PostgresDecodable {
    /// `bool`.
    public static var postgresDataType: PostgresDataType { .bool }
    /// `t` or `f`.
    public func encode(into buffer: inout [UInt8]) -> Bool {
        buffer.append(self ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        return true
    }
    /// From `bool` (`t`/`f`).
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Bool {
        guard type == .bool else { throw PostgresDecodingFailure.typeMismatch(Bool.self, type) }
        guard text.count == 1 else { throw PostgresDecodingFailure.malformed(Bool.self, text) }
        switch text[0] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw PostgresDecodingFailure.malformed(Bool.self, text)
        }
    }
}

extension String: PostgresEncodable, PostgresDecodable {
    /// Unspecified: the server infers the type (text, varchar, jsonb, ...) from the statement.
    public static var postgresDataType: PostgresDataType { .unspecified }
    /// UTF-8 text. A NUL byte makes the query fail with `.invalidInput` before anything is sent.
    public func encode(into buffer: inout [UInt8]) -> Bool {
        buffer.append(contentsOf: utf8)
        return true
    }
    /// Any column's text form (PostgreSQL sends UTF-8; `client_encoding` is set to UTF8).
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> String {
        String(decoding: text, as: UTF8.self)
    }
}

extension Double: PostgresEncodable, PostgresDecodable {
    /// `float8`.
    public static var postgresDataType: PostgresDataType { .float8 }
    /// Shortest round-tripping text (`Infinity`, `-Infinity`, `NaN` as PostgreSQL spells them).
    public func encode(into buffer: inout [UInt8]) -> Bool {
        let text: String
        if isNaN { text = "NaN" } else if self == .infinity { text = "Infinity" } else if self == -.infinity { text = "-Infinity" } else { text = description }
        buffer.append(contentsOf: text.utf8)
        return true
    }
    /// From `float4` or `float8`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Double {
        guard type == .float8 || type == .float4 else { throw PostgresDecodingFailure.typeMismatch(Double.self, type) }
        let string = String(decoding: text, as: UTF8.self)
        switch string {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default:
            guard let value = Double(string) else { throw PostgresDecodingFailure.malformed(Double.self, text) }
            return value
        }
    }
}
