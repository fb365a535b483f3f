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
        switch value {
        case .null: appendASCII("null", to: &output)
        case .bool(let flag): appendASCII(flag ? "true" : "false", to: &output)
        case .int(let number): appendInteger(number, to: &output)
        case .double(let number): appendDouble(number, to: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for index in 0..<object.count {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(object.keys[index], into: &output)
                output.append(UInt8(ascii: ":"))
                write(object.values[index], into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a quoted, escaped JSON string.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: output.append(0x22)
                case 0x5C: output.append(0x5C)
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                default:
                    output.append(UInt8(ascii: "u"))
                    output.append(UInt8(ascii: "0"))
                    output.append(UInt8(ascii: "0"))
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0x0F))
                }
            }
            if runStart < utf8.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        output.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func appendASCII(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Decimal digits without going through `String`.
    private static func appendInteger(_ number: Int64, to output: inout [UInt8]) {
        if number == 0 {
            output.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = number.magnitude
        if number < 0 { output.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            while count > 0 {
                count -= 1
                output.append(buffer[count])
            }
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
