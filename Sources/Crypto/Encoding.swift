import Support
/// Hex and Base64 encodings used by provider signatures.
public enum Encoding {
    /// Lower-case hexadecimal.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(Hex.lowerDigits[Int(byte >> 4)])
            out.append(Hex.lowerDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from hexadecimal (either case); nil if the text is not hex of even length.
    public static func bytes(hex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = Hex.digitValue(utf8[index]), let low = Hex.digitValue(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }


    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard Base64 with padding (RFC 4648 §4).
    public static func base64(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { out.append(base64Alphabet[Int((n >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let n = UInt32(input[index]) << 16
            out.append(base64Alphabet[Int((n >> 18) & 63)])
            out.append(base64Alphabet[Int((n >> 12) & 63)])
            out.append(contentsOf: Array("==".utf8))
        } else if rest == 2 {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(base64Alphabet[Int((n >> 18) & 63)])
            out.append(base64Alphabet[Int((n >> 12) & 63)])
            out.append(base64Alphabet[Int((n >> 6) & 63)])
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from standard Base64 (padding optional); nil on any other character.
    public static func bytes(base64 text: String) -> [UInt8]? {
        var values = [UInt8]()
        values.reserveCapacity(text.utf8.count)
        var sawPadding = false
        for c in text.utf8 {
            if c == UInt8(ascii: "=") { sawPadding = true; continue }
            if sawPadding { return nil }
            guard let index = base64Alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(index))
        }
        if values.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            var n: UInt32 = 0
            for (offset, v) in chunk.enumerated() { n |= UInt32(v) << UInt32(18 - 6 * offset) }
            let produced = chunk.count - 1
            for k in 0..<produced { out.append(UInt8((n >> UInt32(16 - 8 * k)) & 0xff)) }
            index += 4
        }
        return out
    }
}
