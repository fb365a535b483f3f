public import Foundation
import Support

/// An exact `numeric` value kept as its decimal text (`-12.340`), never a binary float.
public struct PostgresNumeric: Hashable, Sendable, CustomStringConvertible, PostgresEncodable, PostgresDecodable {
    /// The decimal text: optional `-`, digits, optional `.` and digits; or `NaN`.
    public let text: String

    /// Validates a decimal string (`123`, `-0.50`, `NaN`); nil if it is not one.
    public init?(_ text: String) {
        guard PostgresNumeric.isValid(text.utf8) else { return nil }
        self.text = text
    }

    /// An integer count of minor units with `scale` decimal places (`12345, 2` → `123.45`).
    public init(minorUnits: Int64, scale: Int) {
        precondition(scale >= 0 && scale <= 18, "scale must be 0...18")
        let magnitude = String(minorUnits.magnitude)
        let padded = String(repeating: "0", count: max(0, scale + 1 - magnitude.count)) + magnitude
        let sign = minorUnits < 0 ? "-" : ""
        if scale == 0 {
            text = sign + padded
        } else {
            text = sign + padded.dropLast(scale) + "." + padded.suffix(scale)
        }
    }

    private static func isValid(_ bytes: String.UTF8View) -> Bool {
        if bytes.elementsEqual("NaN".utf8) { return true }
        var iterator = bytes.makeIterator()
        var digits = 0, dots = 0, first = true
        while let byte = iterator.next() {
            defer { first = false }
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "+"): if !first { return false }
            case UInt8(ascii: "."): dots += 1; if dots > 1 { return false }
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            default: return false
            }
        }
        return digits > 0
    }

    /// The decimal text.
    public var description: String { text }
    /// `numeric`.
    public static var postgresDataType: PostgresDataType { .numeric }
    /// The decimal text.
    public func encode(into buffer: inout [UInt8]) -> Bool { buffer.append(contentsOf: text.utf8); return true }
    /// From `numeric` or any integer type.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> PostgresNumeric {
        guard type == .numeric || type == .int2 || type == .int4 || type == .int8 else {
            throw PostgresDecodingFailure.typeMismatch(PostgresNumeric.self, type)
        }
        guard let value = PostgresNumeric(String(decoding: text, as: UTF8.self)) else {
            throw PostgresDecodingFailure.malformed(PostgresNumeric.self, text)
        }
        return value
    }
}

/// A `jsonb` (or `json`) value as its JSON text; parsing is the caller's choice.
public struct PostgresJSONB: Hashable, Sendable, PostgresEncodable, PostgresDecodable {
    /// The JSON text.
    public var text: String
    /// Wraps JSON text (validated by the server when bound).
    public init(text: String) { self.text = text }
    /// `jsonb`.
    public static var postgresDataType: PostgresDataType { .jsonb }
    /// The JSON text.
    public func encode(into buffer: inout [UInt8]) -> Bool { buffer.append(contentsOf: text.utf8); return true }
    /// From `jsonb` or `json`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> PostgresJSONB {
        guard type == .jsonb || type == .json else { throw PostgresDecodingFailure.typeMismatch(PostgresJSONB.self, type) }
        return PostgresJSONB(text: String(decoding: text, as: UTF8.self))
    }
}

extension UUID: PostgresEncodable, PostgresDecodable {
    /// `uuid`.
    public static var postgresDataType: PostgresDataType { .uuid }
    /// The canonical text form (lower-case hex with dashes), written byte by byte.
    public func encode(into buffer: inout [UInt8]) -> Bool {
        let digits: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: uuid) { bytes in
            digits.withUTF8Buffer { hex in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 { buffer.append(UInt8(ascii: "-")) }
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0x0F)])
                }
            }
        }
        return true
    }

    /// From `uuid`: PostgreSQL's output is always 36 characters, lower-case hex with dashes
    /// at 8, 13, 18 and 23 (read directly: Foundation's parser goes through `sscanf`).
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> UUID {
        guard type == .uuid else { throw PostgresDecodingFailure.typeMismatch(UUID.self, type) }
        guard let value = parseCanonical(text) else { throw PostgresDecodingFailure.malformed(UUID.self, text) }
        return value
    }

    /// The UUID in `text` if it is the 8-4-4-4-12 hex form (either case); nil otherwise.
    static func parseCanonical(_ text: UnsafeRawBufferPointer) -> UUID? {
        Hex.uuidBytes(text).map { UUID(uuid: $0) }
    }

}

extension Data: PostgresEncodable, PostgresDecodable {
    /// `bytea`, bound in binary form (any bytes, NUL included).
    public static var postgresDataType: PostgresDataType { .bytea }
    /// Binary: the bytes themselves.
    public static var postgresFormat: PostgresFormat { .binary }
    /// The bytes.
    public func encode(into buffer: inout [UInt8]) -> Bool { buffer.append(contentsOf: self); return true }
    /// From `bytea` in hex output form (`\x0aff`).
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> Data {
        guard type == .bytea else { throw PostgresDecodingFailure.typeMismatch(Data.self, type) }
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"), text.count % 2 == 0 else {
            throw PostgresDecodingFailure("bytea is not in hex output form (bytea_output must be 'hex')")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index < text.count {
            guard let high = Hex.digitValue(text[index]), let low = Hex.digitValue(text[index + 1]) else {
                throw PostgresDecodingFailure.malformed(Data.self, text)
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return Data(bytes)
    }

}
