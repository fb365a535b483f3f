/// Writes `JSONValue`s as compact RFC 8259 JSON in UTF-8.
///
/// Members come out in their stored order. Strings escape `"`, `\` and the
/// control characters (as `\n`, `\t`, ... or `\u00XX`); everything else,
/// including non-ASCII text, is written as UTF-8. Integers are exact.
/// Non-finite doubles have no JSON form and are written as `null`.
public enum JSONWriter {
    /// The value as UTF-8 JSON bytes.
    public static func write(_ value: JSONValue) -> [UInt8] {
        var sink = ByteSink()
        writeValue(value, into: &sink)
        sink.recordSize()
        let bytes = sink.bytes
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            if let target = buffer.baseAddress, let source = bytes.baseAddress {
                target.initialize(from: source, count: bytes.count)
            }
            count = bytes.count
        }
    }

    /// The value as a JSON string.
    public static func string(_ value: JSONValue) -> String {
        var sink = ByteSink()
        writeValue(value, into: &sink)
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// Appends the value's JSON to `output` (lets callers build a body in one buffer).
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        var sink = ByteSink()
        writeValue(value, into: &sink)
        sink.recordSize()
        output.append(contentsOf: sink.bytes)
    }

    /// Appends `text` as a quoted, escaped JSON string.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        var sink = ByteSink()
        writeString(text, into: &sink)
        output.append(contentsOf: sink.bytes)
    }

    /// The recursive writer. Values are borrowed, and elements and members are
    /// read in place: a response shares its strings and arrays with resolver data
    /// that other threads use too, so every avoided retain spares a contended
    /// reference count.
    public static func writeValue(_ value: borrowing JSONValue, into output: inout ByteSink) {
        switch value {
        case .null: output.append("null")
        case .bool(let flag): output.append(flag ? "true" : "false")
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
    /// are found eight bytes at a time and copied in one piece.
    public static func writeString(_ text: String, into output: inout ByteSink) {
        // Native strings lend their UTF-8 in place; others (bridged) are copied once.
        if text.utf8.withContiguousStorageIfAvailable({ appendQuoted($0, to: &output) }) == nil {
            var copy = text
            copy.withUTF8 { appendQuoted($0, to: &output) }
        }
    }

    /// Appends UTF-8 text quoted and with JSON escapes. Room for the text without
    /// escapes is reserved up front; each escape reserves its own.
    private static func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout ByteSink) {
        let count = utf8.count
        output.reserve(count + 2)
        output.appendReserved(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            output.appendReserved(UInt8(ascii: "\""))
            return
        }
        var runStart = 0
        var index = 0
        while true {
            while index + 8 <= count, !ByteScan.hasStringSpecial(ByteScan.word(utf8, at: index)) { index += 8 }
            while index < count, !ByteScan.isStringSpecial(utf8[index]) { index += 1 }
            guard index < count else { break }
            let byte = utf8[index]
            output.appendReserved(base + runStart, count: index - runStart)
            index += 1
            runStart = index
            appendEscape(byte, to: &output)
            // The escape used room reserved for the rest: reserve it again.
            output.reserve(count - runStart + 1)
        }
        output.appendReserved(base + runStart, count: count - runStart)
        output.appendReserved(UInt8(ascii: "\""))
    }

    /// The escape of `"`, `\` or a control character.
    private static func appendEscape(_ byte: UInt8, to output: inout ByteSink) {
        switch byte {
        case 0x22: output.append("\\\"")
        case 0x5C: output.append("\\\\")
        case 0x0A: output.append("\\n")
        case 0x0D: output.append("\\r")
        case 0x09: output.append("\\t")
        case 0x08: output.append("\\b")
        case 0x0C: output.append("\\f")
        default:
            output.append("\\u00")
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Decimal digits without going through `String`, appended in one piece.
    private static func appendInteger(_ number: Int64, to output: inout ByteSink) {
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
            output.append(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Shortest representation that reads back as the same `Double`.
    private static func appendDouble(_ number: Double, to output: inout ByteSink) {
        guard number.isFinite else {
            output.append("null")
            return
        }
        // Swift's description is the shortest round-trip form and valid JSON
        // for finite values ("1.0", "1e-05", "5e+20", "-0.0").
        var text = number.description
        text.withUTF8 { output.append($0) }
    }
}
