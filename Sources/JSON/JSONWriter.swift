/// Writes `JSONValue`s as compact RFC 8259 JSON in UTF-8.
///
/// Members come out in their stored order. Strings escape `"`, `\` and the
/// control characters (as `\n`, `\t`, ... or `\u00XX`); everything else,
/// including non-ASCII text, is written as UTF-8. Integers are exact.
/// Non-finite doubles have no JSON form and are written as `null`.
public enum JSONWriter {
    /// The value as UTF-8 JSON bytes.
    public static func write(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    /// The value as a JSON string.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: write(value), as: UTF8.self)
    }

    /// Appends the value's JSON to `output` (lets callers build a body in one buffer).
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        writeValue(value, into: &output)
    }

    /// The recursive writer. Values are borrowed, and elements and members are
    /// read in place: a response shares its strings and arrays with resolver data
    /// that other threads use too, so every avoided retain spares a contended
    /// reference count.
    private static func writeValue(_ value: borrowing JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: appendASCII("null", to: &output)
        case .bool(let flag): appendASCII(flag ? "true" : "false", to: &output)
        case .int(let number): appendInteger(number, to: &output)
        case .double(let number): appendDouble(number, to: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            elements.withUnsafeBufferPointer { elements in
                for index in elements.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    writeValue(elements[index], into: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            object.keys.withUnsafeBufferPointer { keys in
                object.values.withUnsafeBufferPointer { values in
                    for index in keys.indices {
                        if index > 0 { output.append(UInt8(ascii: ",")) }
                        writeString(keys[index], into: &output)
                        output.append(UInt8(ascii: ":"))
                        writeValue(values[index], into: &output)
                    }
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a quoted, escaped JSON string. Runs that need no escape
    /// are found eight bytes at a time and appended in one piece.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Native strings lend their UTF-8 in place; others (bridged) are copied once.
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &output) }) == nil {
            var copy = text
            copy.withUTF8 { appendEscaped($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 text with JSON escapes, without quotes.
    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while true {
            while index + 8 <= count, !ByteScan.hasStringSpecial(ByteScan.word(utf8, at: index)) { index += 8 }
            while index < count, !ByteScan.isStringSpecial(utf8[index]) { index += 1 }
            guard index < count else { break }
            let byte = utf8[index]
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            index += 1
            runStart = index
            appendEscape(byte, to: &output)
        }
        if runStart < count { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
    }

    /// The escape of `"`, `\` or a control character.
    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case 0x22: appendASCII("\\\"", to: &output)
        case 0x5C: appendASCII("\\\\", to: &output)
        case 0x0A: appendASCII("\\n", to: &output)
        case 0x0D: appendASCII("\\r", to: &output)
        case 0x09: appendASCII("\\t", to: &output)
        case 0x08: appendASCII("\\b", to: &output)
        case 0x0C: appendASCII("\\f", to: &output)
        default:
            appendASCII("\\u00", to: &output)
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func appendASCII(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Decimal digits without going through `String`, appended in one piece.
    private static func appendInteger(_ number: Int64, to output: inout [UInt8]) {
        if number >= 0, number < 10 {
            output.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        var magnitude = number.magnitude
        // 20 digits and a sign fit in 24 bytes; digits are written from the end.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            while magnitude > 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if number < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Shortest representation that reads back as the same `Double`.
    private static func appendDouble(_ number: Double, to output: inout [UInt8]) {
        guard number.isFinite else {
            appendASCII("null", to: &output)
            return
        }
        // Swift's description is the shortest round-trip form and valid JSON
        // for finite values ("1.0", "1e-05", "5e+20", "-0.0").
        output.append(contentsOf: number.description.utf8)
    }
}
