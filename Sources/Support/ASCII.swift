/// ASCII case folding byte by byte, in place: HTTP field names, `Bearer`, the keys of webhook bodies.
/// No lower-cased copies (each was a string allocation per look-up on the request paths).
public enum ASCII {
    /// `byte` with an ASCII capital letter lower-cased; every other byte unchanged.
    @inlinable @inline(__always)
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// Whether `a` and `b` are equal but for the case of ASCII letters.
    @inlinable
    public static func caseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for index in 0..<x.count where x[index] != y[index] {
                    guard lowercased(x[index]) == lowercased(y[index]) else { return false }
                }
                return true
            }
        }
    }
}
