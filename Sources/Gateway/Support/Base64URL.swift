import Crypto

/// Base64url without padding (RFC 4648 §5), the form of every opaque token PayQL hands out:
/// global ids, list cursors, API keys and session tokens.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `input` as base64url without padding.
    static func encode(_ input: [UInt8]) -> String {
        input.withUnsafeBufferPointer { encode($0) }
    }

    /// `input` as base64url without padding, written straight into the string's storage (one
    /// allocation: global ids are written for every object a response holds).
    static func encode(_ input: UnsafeBufferPointer<UInt8>) -> String {
        let full = input.count / 3
        let rest = input.count - full * 3
        let length = full * 4 + (rest == 0 ? 0 : rest + 1)
        return String(unsafeUninitializedCapacity: length) { output in
            var index = 0
            var written = 0
            while index + 3 <= input.count {
                let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[written] = alphabet[Int(n >> 18 & 63)]
                output[written + 1] = alphabet[Int(n >> 12 & 63)]
                output[written + 2] = alphabet[Int(n >> 6 & 63)]
                output[written + 3] = alphabet[Int(n & 63)]
                index += 3
                written += 4
            }
            if rest > 0 {
                let n = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                output[written] = alphabet[Int(n >> 18 & 63)]
                output[written + 1] = alphabet[Int(n >> 12 & 63)]
                written += 2
                if rest == 2 {
                    output[written] = alphabet[Int(n >> 6 & 63)]
                    written += 1
                }
            }
            return written
        }
    }

    /// The bytes of base64url text (padding optional; the standard alphabet's `+` and `/` are read
    /// too); nil for anything else. Byte by byte: every global id argument comes through here.
    static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var bits: UInt32 = 0
        var pending = 0
        var sawPadding = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                sawPadding = true
                continue
            }
            let value = values[Int(byte)]
            guard !sawPadding, value != invalid else { return nil }
            bits = bits << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: bits >> 16))
                output.append(UInt8(truncatingIfNeeded: bits >> 8))
                output.append(UInt8(truncatingIfNeeded: bits))
                bits = 0
                pending = 0
            }
        }
        switch pending {
        case 1:
            return nil
        case 2:
            output.append(UInt8(truncatingIfNeeded: bits >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: bits >> 10))
            output.append(UInt8(truncatingIfNeeded: bits >> 2))
        default:
            break
        }
        return output
    }

    private static let invalid: UInt8 = 0xFF

    /// Each byte's 6-bit value (`invalid` outside both alphabets).
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()
}
