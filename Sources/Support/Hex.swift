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
}
