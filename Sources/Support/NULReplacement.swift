#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// PostgreSQL keeps no NUL character: neither `text` nor `jsonb` (which refuses the escape
/// `\u0000`) can hold one, and the driver refuses such a value rather than cut it short. What
/// PayQL is told from outside without being asked to check it — an authentic webhook (once its
/// signature is checked over the bytes as they came), a provider's answer — is read with each
/// NUL it encodes as U+FFFD, the replacement character: stored, and used as far as its values
/// still mean something (an id with U+FFFD in it matches no order, and is no provider's id).
/// Otherwise a provider's bug would fail the same delivery or answer at every retry.
/// `SignedWebhookFuzzTests` and `HostileProviderAnswerTests` send such bodies.
public enum NULReplacement {
    /// `body` with every NUL it encodes replaced by U+FFFD, or nil when it encodes none (the usual
    /// case, found with one `memchr` scan per pattern). Encodings of a NUL: the raw byte, JSON's
    /// `\u0000` escape (when its backslash is not itself escaped), and for a form (`form`,
    /// Instamojo) the percent escape `%00`.
    public static func replaced(in body: [UInt8], form: Bool) -> [UInt8]? {
        var replaced: [UInt8]?
        if contains(0, in: body) {
            replaced = []
            for byte in body { if byte == 0 { replaced?.append(contentsOf: Self.replacementUTF8) } else { replaced?.append(byte) } }
        }
        var text = replaced ?? body
        if contains(UInt8(ascii: "\\"), in: text), replaceJSONEscapes(in: &text) { replaced = text }
        if form, contains(UInt8(ascii: "%"), in: text), let percentReplaced = replacePercentEscapes(in: text) { replaced = percentReplaced }
        return replaced
    }

    /// U+FFFD in UTF-8.
    public static let replacementUTF8: [UInt8] = [0xEF, 0xBF, 0xBD]

    private static func contains(_ byte: UInt8, in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            return memchr(base, Int32(byte), raw.count) != nil
        }
    }

    /// Rewrites each `\u0000` escape whose backslash is not escaped as `\ufffd` (same length, in
    /// place); true when it rewrote one.
    private static func replaceJSONEscapes(in text: inout [UInt8]) -> Bool {
        let escape = Array("u0000".utf8)
        var changed = false
        var index = 0
        while index < text.count {
            guard text[index] == UInt8(ascii: "\\") else { index += 1; continue }
            // A backslash starts an escape of the next byte: `\\` is one escaped backslash.
            let next = index + 1
            if next + escape.count <= text.count, text[next..<(next + escape.count)].elementsEqual(escape) {
                text.replaceSubrange((next + 1)..<(next + escape.count), with: Array("fffd".utf8))
                changed = true
            }
            index += 2
        }
        return changed
    }

    /// `text` with each `%00` replaced by `%EF%BF%BD`, or nil when there is none.
    private static func replacePercentEscapes(in text: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var found = false
        var index = 0
        while index < text.count {
            if text[index] == UInt8(ascii: "%"), index + 2 < text.count, text[index + 1] == UInt8(ascii: "0"), text[index + 2] == UInt8(ascii: "0") {
                if !found { output.reserveCapacity(text.count + 6); output.append(contentsOf: text[..<index]); found = true }
                output.append(contentsOf: Array("%EF%BF%BD".utf8))
                index += 3
                continue
            }
            if found { output.append(text[index]) }
            index += 1
        }
        return found ? output : nil
    }
}
