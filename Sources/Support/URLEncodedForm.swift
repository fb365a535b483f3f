/// `application/x-www-form-urlencoded` bodies, URL queries and percent-encoding:
/// the one implementation the server, the provider adapters and the sandbox share.
public enum URLEncodedForm {
    /// Splits on `&`, then on the first `=`; `+` is a space and `%XX` a byte.
    /// Lenient, as a server reading a query must be: malformed escapes are kept
    /// literally, invalid UTF-8 is repaired (U+FFFD), empty pairs are skipped.
    public static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                items.append((percentDecode(pair[pair.startIndex..<equals], plusAsSpace: true),
                              percentDecode(pair[(equals + 1)...], plusAsSpace: true)))
            } else {
                items.append((percentDecode(pair, plusAsSpace: true), ""))
            }
        }
        return items
    }

    /// Like ``decode(_:)`` but exact, as a signed body must be read: nil when an
    /// escape is malformed or a name or value is not UTF-8.
    public static func decodeStrictly(_ bytes: [UInt8]) -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pieces = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = strictPercentDecode(pieces[0]) else { return nil }
            guard let value = pieces.count > 1 ? strictPercentDecode(pieces[1]) : "" else { return nil }
            items.append((name, value))
        }
        return items
    }

    /// A form body from ordered pairs (the WHATWG serializer: letters, digits and
    /// `*-._` stay, a space is `+`, every other byte is `%XX`).
    public static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (offset, pair) in pairs.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: "&")) }
            appendEscaped(pair.0, to: &out, form: true)
            out.append(UInt8(ascii: "="))
            appendEscaped(pair.1, to: &out, form: true)
        }
        return out
    }

    /// Percent-encodes every byte but RFC 3986's unreserved characters
    /// (`A-Za-z0-9-._~`): a path segment or query value that cannot change the URL.
    public static func percentEncode(_ text: String) -> String {
        var out: [UInt8] = []
        appendEscaped(text, to: &out, form: false)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes (and `+` as a space when asked) into a string;
    /// malformed escapes are kept literally, invalid UTF-8 is repaired.
    public static func percentDecode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        // Nothing to decode (the usual path): the bytes are the text.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusAsSpace) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+"), plusAsSpace {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                      let high = Hex.digitValue(input[index + 1]), let low = Hex.digitValue(input[index + 2]) {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `+` is a space, `%XX` a byte; nil for a malformed escape or bytes that are not UTF-8.
    private static func strictPercentDecode(_ bytes: some Collection<UInt8>) -> String? {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = Hex.digitValue(input[index + 1]),
                      let low = Hex.digitValue(input[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self)
    }

    /// Appends `text` escaped: `form` keeps the WHATWG form set and writes a space
    /// as `+`; otherwise RFC 3986's unreserved set stays and a space is `%20`.
    private static func appendEscaped(_ text: String, to out: inout [UInt8], form: Bool) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: "*") where form, UInt8(ascii: "~") where !form:
                out.append(byte)
            case UInt8(ascii: " ") where form:
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(Hex.upperDigits[Int(byte >> 4)])
                out.append(Hex.upperDigits[Int(byte & 0x0F)])
            }
        }
    }
}
