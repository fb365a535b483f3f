/// An element type of a one-dimensional PostgreSQL array (`text[]`, `int8[]`, ...).
public protocol PostgresArrayElement: PostgresEncodable, PostgresDecodable {
    /// The OID of the array type whose elements are `Self` (e.g. `text[]` for `String`).
    static var postgresArrayDataType: PostgresDataType { get }
    /// The element types this Swift type decodes from inside an array.
    static var postgresElementDataType: PostgresDataType { get }
}

extension String: PostgresArrayElement {
    /// `text[]`.
    public static var postgresArrayDataType: PostgresDataType { .textArray }
    /// `text`.
    public static var postgresElementDataType: PostgresDataType { .text }
}

extension Int64: PostgresArrayElement {
    /// `int8[]`.
    public static var postgresArrayDataType: PostgresDataType { .int8Array }
    /// `int8`.
    public static var postgresElementDataType: PostgresDataType { .int8 }
}

extension Int32: PostgresArrayElement {
    /// `int4[]`.
    public static var postgresArrayDataType: PostgresDataType { .int4Array }
    /// `int4`.
    public static var postgresElementDataType: PostgresDataType { .int4 }
}

extension Optional: PostgresArrayElement where Wrapped: PostgresArrayElement {
    /// The wrapped type's array type: `[String?]` binds a `text[]` whose nil elements are NULL.
    public static var postgresArrayDataType: PostgresDataType { Wrapped.postgresArrayDataType }
    /// The wrapped type's element type.
    public static var postgresElementDataType: PostgresDataType { Wrapped.postgresElementDataType }
}

extension Array: PostgresEncodable where Element: PostgresArrayElement {
    /// The element's array type.
    public static var postgresDataType: PostgresDataType { Element.postgresArrayDataType }

    /// Array literal text: `{"a","b \"c\"",NULL}`; every element is quoted, `"` and `\` escaped.
    ///
    /// This runs unspecialised (callers bind through the generic `PostgresEncodable`), so it avoids what
    /// costs there: `enumerated()` looked its tuple's metadata up on every call and the iterators went
    /// through witness tables (most of this function's samples in the webhook benchmark's profile, where
    /// it was ~5 % of PayQL's CPU). Elements are read by index, and each element's text is copied in runs
    /// between the bytes to escape rather than byte by byte.
    public func encode(into buffer: inout [UInt8]) -> Bool {
        buffer.append(UInt8(ascii: "{"))
        var element = [UInt8]()
        withUnsafeBufferPointer { values in
            for index in 0..<values.count {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                element.removeAll(keepingCapacity: true)
                guard values[index].encode(into: &element) else {
                    buffer.append(contentsOf: "NULL".utf8)
                    continue
                }
                buffer.append(UInt8(ascii: "\""))
                element.withUnsafeBufferPointer { bytes in
                    var start = 0
                    for position in 0..<bytes.count where bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "\\") {
                        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
                        buffer.append(UInt8(ascii: "\\"))
                        start = position
                    }
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
                }
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append(UInt8(ascii: "}"))
        return true
    }
}

extension Array: PostgresDecodable where Element: PostgresArrayElement {
    /// From a one-dimensional array's text form. A NULL element decodes through `Element.decodeNull()`.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> [Element] {
        guard type == Element.postgresArrayDataType || (Element.self == String.self && type == .varcharArray) else {
            throw PostgresDecodingFailure.typeMismatch([Element].self, type)
        }
        let elements = try parseArrayText(text)
        var result = [Element]()
        result.reserveCapacity(elements.count)
        for element in elements {
            if let element {
                result.append(try element.withUnsafeBytes { try Element.decode(text: $0, type: Element.postgresElementDataType) })
            } else {
                result.append(try Element.decodeNull())
            }
        }
        return result
    }
}

/// Splits a one-dimensional array literal (`{a,"b c",NULL}`) into its elements' text; nil for NULL.
func parseArrayText(_ text: UnsafeRawBufferPointer) throws -> [[UInt8]?] {
    let malformed = PostgresDecodingFailure("malformed array text '\(String(decoding: text.prefix(64), as: UTF8.self))'")
    var index = 0
    // Explicit bounds (`[0:2]={...}`) are not produced for ordinary one-based arrays.
    guard text.count >= 2, text[0] == UInt8(ascii: "{"), text[text.count - 1] == UInt8(ascii: "}") else { throw malformed }
    index = 1
    let end = text.count - 1
    var elements = [[UInt8]?]()
    if end == 1 { return elements }
    while index <= end {
        var element = [UInt8]()
        if index < end, text[index] == UInt8(ascii: "{") {
            throw PostgresDecodingFailure("multi-dimensional arrays are not supported")
        }
        if index < end, text[index] == UInt8(ascii: "\"") {
            index += 1
            var closed = false
            while index < end {
                let byte = text[index]
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < end else { throw malformed }
                    element.append(text[index])
                } else if byte == UInt8(ascii: "\"") {
                    closed = true
                    index += 1
                    break
                } else {
                    element.append(byte)
                }
                index += 1
            }
            guard closed else { throw malformed }
            elements.append(element)
        } else {
            while index < end, text[index] != UInt8(ascii: ",") {
                element.append(text[index])
                index += 1
            }
            elements.append(element.elementsEqual("NULL".utf8) ? nil : element)
        }
        guard index == end || text[index] == UInt8(ascii: ",") else { throw malformed }
        index += 1
    }
    return elements
}
