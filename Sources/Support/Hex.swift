/// Hexadecimal digits: one reading of `0-9a-fA-F` for every target (percent
/// escapes, `bytea`, UUIDs, signatures).
public enum Hex {
    /// The value of one hex digit (either case), or nil for any other byte.
    @inlinable
    public static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `0-9A-F`, indexed by value (percent-encoding writes upper case, RFC 3986 §2.1).
    public static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `0-9a-f`, indexed by value.
    public static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A UUID's 16 bytes (the layout of Foundation's `uuid_t`).
    public typealias UUIDBytes = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// The bytes of a UUID written 8-4-4-4-12 in hex digits of either case (exactly 36 bytes); nil
    /// for anything else. Parsed into the tuple itself, no array: the driver reads every uuid
    /// column of every row through it.
    @inlinable
    public static func uuidBytes<Text: RandomAccessCollection>(_ text: Text) -> UUIDBytes? where Text.Element == UInt8, Text.Index == Int {
        guard text.count == 36 else { return nil }
        var value: UUIDBytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &value) { bytes -> Bool in
            var position = text.startIndex
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard text[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = digitValue(text[position]), let low = digitValue(text[position + 1]) else { return false }
                bytes[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return parsed ? value : nil
    }
}
