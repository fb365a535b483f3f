import Crypto
import Foundation

/// A 32-byte AES-256 key for data at rest (`PAYQL_DATA_KEY`), with its public id.
///
/// The id is the first 8 hex digits of SHA-256 of the key: stored beside every
/// ciphertext so that, after a rotation, each row is opened with the key that sealed it.
/// 32 bits of a hash of a 256-bit random key reveal nothing useful about the key.
public struct DataKey: Sendable, CustomStringConvertible {
    /// The key bytes; never printed.
    let bytes: [UInt8]
    /// First 8 hex digits of SHA-256(key).
    public let id: String
    /// HMAC-SHA256(key, "payql/blind-index/v1"): the key of the blind index, so the data key itself
    /// is used for one purpose only.
    let blindIndexKey: [UInt8]

    /// A key from its 32 bytes.
    public init(bytes: [UInt8]) throws(DataKeyError) {
        guard bytes.count == AES256GCM.keyByteCount else { throw DataKeyError("a data key is 32 bytes, got \(bytes.count)") }
        self.bytes = bytes
        id = String(Encoding.hex(Crypto.hash(.sha256, bytes)).prefix(8))
        blindIndexKey = Crypto.hmac(.sha256, key: bytes, message: Array("payql/blind-index/v1".utf8))
    }

    /// A key from standard Base64 of 32 bytes (the `PAYQL_DATA_KEY` form); surrounding whitespace is ignored.
    public init(base64 text: String) throws(DataKeyError) {
        guard let bytes = Encoding.bytes(base64: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw DataKeyError("a data key is standard Base64 of 32 bytes (e.g. `openssl rand -base64 32`)")
        }
        try self.init(bytes: bytes)
    }

    /// 32 bytes from the CSPRNG.
    public static func generate() throws -> DataKey { try DataKey(bytes: try Crypto.randomBytes(AES256GCM.keyByteCount)) }

    /// The key as Base64: only for writing the development key file.
    public func base64Encoded() -> String { Encoding.base64(bytes) }

    /// Shows the id only.
    public var description: String { "DataKey(id: \(id), ****)" }
}

/// A data key that cannot be used: wrong length or encoding. Never contains key bytes.
public struct DataKeyError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The data keys of one PayQL: the current key seals, every key opens what it sealed.
///
/// Sealed form (stored in `bank_accounts.account_ciphertext`, key id also in
/// `account_key_id`): `0x01 ‖ key id (4 bytes) ‖ nonce (12) ‖ ciphertext ‖ tag (16)`.
/// The associated data is `payql/v1/<key id>/<purpose>`, where the purpose names the
/// column and row, so a ciphertext copied to another row or column does not open.
public struct DataKeyring: Sendable {
    /// Seals new values.
    public let current: DataKey
    /// Keys rotated out: they still open (and find, through the blind index) what they sealed.
    public let previous: [DataKey]

    /// A keyring; throws if two keys share an id.
    public init(current: DataKey, previous: [DataKey] = []) throws(DataKeyError) {
        let ids = [current.id] + previous.map(\.id)
        guard Set(ids).count == ids.count else { throw DataKeyError("two data keys have the same id (the same key given twice?)") }
        self.current = current
        self.previous = previous
    }

    static let version: UInt8 = 1

    /// The key with this id.
    func key(id: String) -> DataKey? { ([current] + previous).first { $0.id == id } }

    /// `plaintext` sealed under the current key for `purpose` (e.g. `bank_accounts.account_number/<row id>`).
    func seal(_ plaintext: String, purpose: String) throws -> (sealed: [UInt8], keyID: String) {
        let key = current
        guard let idBytes = Encoding.bytes(hex: key.id) else { throw DataKeyError("data key id is not hex") }
        let box = try AES256GCM.seal(Array(plaintext.utf8), key: key.bytes, authenticating: Self.associatedData(keyID: key.id, purpose: purpose))
        return ([Self.version] + idBytes + box.combined, key.id)
    }

    /// Opens a value sealed by ``seal(_:purpose:)`` under any key of this ring. Throws a
    /// ``DataKeyError`` for an unknown key id and `CryptoError` (authentication failure)
    /// for a tampered value or another purpose.
    func open(_ sealed: [UInt8], purpose: String) throws -> String {
        guard sealed.count > 5, sealed[0] == Self.version else { throw DataKeyError("not a PayQL v1 sealed value") }
        let keyID = Encoding.hex(sealed[1..<5])
        guard let key = key(id: keyID) else {
            throw DataKeyError("the value was sealed with data key \(keyID), which is not configured (PAYQL_DATA_KEY / PAYQL_DATA_KEYS_PREVIOUS)")
        }
        let box = try AES256GCM.SealedBox(combined: sealed.dropFirst(5))
        let plain = try AES256GCM.open(box, key: key.bytes, authenticating: Self.associatedData(keyID: keyID, purpose: purpose))
        return String(decoding: plain, as: UTF8.self)
    }

    /// The blind index of `value` under the current key: HMAC-SHA256 with the derived index key.
    func blindIndex(_ value: String) -> [UInt8] { Crypto.hmac(.sha256, key: current.blindIndexKey, message: Array(value.utf8)) }

    /// The blind index of `value` under every key (to find rows written before a rotation).
    func blindIndexes(_ value: String) -> [[UInt8]] {
        ([current] + previous).map { Crypto.hmac(.sha256, key: $0.blindIndexKey, message: Array(value.utf8)) }
    }

    private static func associatedData(keyID: String, purpose: String) -> [UInt8] { Array("payql/v1/\(keyID)/\(purpose)".utf8) }
}
