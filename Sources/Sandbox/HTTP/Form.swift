/// `application/x-www-form-urlencoded` and percent-encoding (WHATWG URL rules).
enum Form {
    /// Name/value pairs in order; `+` is a space, bad escapes are kept literally.
    static func decode(_ body: [UInt8]) -> [(String, String)] {
        guard !body.isEmpty else { return [] }
        return body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                return (percentDecode(pair[pair.startIndex..<equals], plusIsSpace: true),
                        percentDecode(pair[(equals + 1)...], plusIsSpace: true))
            }
            return (percentDecode(pair, plusIsSpace: true), "")
        }
    }

    /// Encodes pairs in the given order.
    static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (offset, pair) in pairs.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: percentEncode(pair.0))
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: percentEncode(pair.1))
        }
        return out
    }

    static func percentDecode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") && plusIsSpace {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                      let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Form-encodes a value: unreserved characters stay, space becomes `+`.
    static func percentEncode(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.append(byte)
            case 0x20:
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// Splits `a=1&b=2` query text into decoded pairs.
    static func parseQuery(_ query: String) -> [(name: String, value: String)] {
        decode(Array(query.utf8)).map { (name: $0.0, value: $0.1) }
    }
}
