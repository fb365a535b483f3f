import Crypto

/// Instamojo's `mac` (vectors.json `imj-*`): hex(HMAC-SHA1(private salt, the
/// values of every field but `mac`, ordered by field name, joined by `|`)).
enum InstamojoMAC {
    static func compute(fields: [(String, String)], salt: String) -> String {
        let message = fields.filter { $0.0 != "mac" }.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "|")
        return Encoding.hex(Crypto.hmac(.sha1, key: salt, message: message))
    }
}
