/// `application/x-www-form-urlencoded` (and URL query) decoding.
public enum URLEncodedForm {
    /// Splits on `&`, then on the first `=`; `+` is a space and `%XX` a byte.
    /// Malformed escapes are kept literally; invalid UTF-8 is repaired (U+FFFD).
    public static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        var start = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == UInt8(ascii: "&") {
                if index > start {
                    let pair = bytes[start..<index]
                    if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                        items.append((percentDecode(pair[start..<equals], plusAsSpace: true),
                                      percentDecode(pair[(equals + 1)...], plusAsSpace: true)))
                    } else {
                        items.append((percentDecode(pair, plusAsSpace: true), ""))
                    }
                }
                start = index + 1
            }
            index += 1
        }
        return items
    }

    /// Decodes `%XX` escapes (and `+` as space when asked) into a string.
    public static func percentDecode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        // Nothing to decode (the usual path): the bytes are the text.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusAsSpace) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var iterator = Array(bytes)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+"), plusAsSpace {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                      let high = hexValue(iterator[iterator.startIndex]),
                      let low = hexValue(iterator[iterator.startIndex + 1]) {
                output.append(high << 4 | low)
                iterator.removeFirst(2)
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
