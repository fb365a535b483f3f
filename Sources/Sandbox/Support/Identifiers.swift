import Crypto

/// Random identifiers shaped like each provider's.
enum Identifiers {
    private static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    private static let hexDigits = Array("0123456789abcdef")

    /// `count` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias).
    static func random(_ count: Int, from alphabet: [Character]) -> String {
        var out = ""
        out.reserveCapacity(count)
        let limit = 256 - 256 % alphabet.count
        while out.count < count {
            // The CSPRNG failing is not something a request can cause; fall back
            // to the system generator rather than crash a simulator.
            let bytes = (try? Crypto.randomBytes(count * 2)) ?? (0..<count * 2).map { _ in UInt8.random(in: 0...255) }
            for byte in bytes where Int(byte) < limit && out.count < count {
                out.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return out
    }

    /// Razorpay style: `prefix_` + 14 base62 characters (`order_EKwxwAgItmmXdp`).
    static func razorpay(_ prefix: String) -> String { prefix + "_" + random(14, from: base62) }

    /// Base62 characters.
    static func base62(_ count: Int) -> String { random(count, from: base62) }

    /// Lower-case hex characters (Instamojo's 32-hex ids).
    static func hex(_ count: Int) -> String { random(count, from: hexDigits) }

    /// Decimal digits, not starting with 0.
    static func digits(_ count: Int) -> String {
        random(1, from: Array("123456789")) + random(count - 1, from: Array("0123456789"))
    }

    /// A version-4 UUID in lower case.
    static func uuid() -> String {
        let h = Array(hex(32))
        let variant = Array("89ab")[Int(h[16].hexDigitValue ?? 0) % 4]
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-4" + String(h[13..<16]) + "-"
            + String(variant) + String(h[17..<20]) + "-" + String(h[20..<32])
    }
}
