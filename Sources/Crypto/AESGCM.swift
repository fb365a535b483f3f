internal import COpenSSL

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) over libcrypto's EVP cipher
/// interface: authenticated encryption with associated data.
///
/// `seal` draws a fresh 96-bit nonce from OpenSSL's CSPRNG for every message, so one
/// key may seal about 2^32 messages before the chance of a repeated nonce matters
/// (SP 800-38D §8.3); PayQL's data keys seal far fewer. The tag is always the full
/// 16 bytes. `open` returns nothing but an error unless the tag verifies: no
/// unauthenticated plaintext ever leaves this type.
public enum AES256GCM {
    /// Key length in bytes.
    public static let keyByteCount = 32
    /// Nonce (IV) length in bytes: 96 bits, the length GCM is designed around.
    public static let nonceByteCount = 12
    /// Tag length in bytes.
    public static let tagByteCount = 16

    /// A sealed message: the nonce it was sealed under, the ciphertext (as long as
    /// the plaintext) and the authentication tag.
    public struct SealedBox: Sendable, Hashable {
        /// 12 bytes.
        public let nonce: [UInt8]
        /// As long as the plaintext.
        public let ciphertext: [UInt8]
        /// 16 bytes.
        public let tag: [UInt8]

        /// The parts; throws ``CryptoError/Code/invalidInput`` for a nonce or tag of the wrong length.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws(CryptoError) {
            guard nonce.count == AES256GCM.nonceByteCount else { throw CryptoError(.invalidInput, "AES-256-GCM nonce must be 12 bytes, got \(nonce.count)") }
            guard tag.count == AES256GCM.tagByteCount else { throw CryptoError(.invalidInput, "AES-256-GCM tag must be 16 bytes, got \(tag.count)") }
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        /// `nonce ‖ ciphertext ‖ tag`, the usual single-blob layout.
        public var combined: [UInt8] { nonce + ciphertext + tag }

        /// Splits a blob written by ``combined``; throws ``CryptoError/Code/invalidInput`` if it is too short.
        public init(combined: some Collection<UInt8>) throws(CryptoError) {
            let bytes = Array(combined)
            guard bytes.count >= AES256GCM.nonceByteCount + AES256GCM.tagByteCount else {
                throw CryptoError(.invalidInput, "an AES-256-GCM box is at least 28 bytes, got \(bytes.count)")
            }
            try self.init(nonce: Array(bytes.prefix(AES256GCM.nonceByteCount)),
                          ciphertext: Array(bytes.dropFirst(AES256GCM.nonceByteCount).dropLast(AES256GCM.tagByteCount)),
                          tag: Array(bytes.suffix(AES256GCM.tagByteCount)))
        }
    }

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData` (not
    /// encrypted, not stored: the opener must supply the same bytes), under a fresh random nonce.
    public static func seal(_ plaintext: some Collection<UInt8>, key: some Collection<UInt8>,
                            authenticating associatedData: some Collection<UInt8> = [UInt8]()) throws(CryptoError) -> SealedBox {
        try seal(plaintext, key: key, nonce: try Crypto.randomBytes(nonceByteCount), authenticating: associatedData)
    }

    /// `seal` under a caller-chosen nonce: only for published test vectors. Reusing a nonce
    /// under one key reveals the XOR of two plaintexts and lets tags be forged.
    package static func seal(_ plaintext: some Collection<UInt8>, key: some Collection<UInt8>, nonce: [UInt8],
                             authenticating associatedData: some Collection<UInt8> = [UInt8]()) throws(CryptoError) -> SealedBox {
        let keyBytes = try checkedKey(key)
        guard nonce.count == nonceByteCount else { throw CryptoError(.invalidInput, "AES-256-GCM nonce must be 12 bytes, got \(nonce.count)") }
        let input = Array(plaintext)
        let aad = Array(associatedData)
        let context = try CipherContext()
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        try context.withUnsafeHandle { ctx throws(CryptoError) in
            try check(EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil), "EVP_EncryptInit_ex(aes-256-gcm)")
            try check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceByteCount), nil), "EVP_CTRL_GCM_SET_IVLEN")
            try check(EVP_EncryptInit_ex(ctx, nil, nil, keyBytes, nonce), "EVP_EncryptInit_ex(key, nonce)")
            var length: Int32 = 0
            if !aad.isEmpty {
                try check(EVP_EncryptUpdate(ctx, nil, &length, aad, try int32(aad.count)), "EVP_EncryptUpdate(aad)")
            }
            var written = 0
            if !input.isEmpty {
                let count = try int32(input.count)
                let updated = output.withUnsafeMutableBufferPointer { out in EVP_EncryptUpdate(ctx, out.baseAddress, &length, input, count) }
                try check(updated, "EVP_EncryptUpdate")
                written = Int(length)
            }
            let finished = output.withUnsafeMutableBufferPointer { out in EVP_EncryptFinal_ex(ctx, out.baseAddress.map { $0 + written }, &length) }
            try check(finished, "EVP_EncryptFinal_ex")
            written += Int(length)
            // GCM is a stream mode: exactly as many bytes out as in.
            precondition(written == input.count, "AES-256-GCM wrote \(written) bytes for \(input.count)")
            let gotTag = tag.withUnsafeMutableBytes { out in
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), out.baseAddress)
            }
            try check(gotTag, "EVP_CTRL_GCM_GET_TAG")
        }
        return try SealedBox(nonce: nonce, ciphertext: Array(output.prefix(input.count)), tag: tag)
    }

    /// Verifies and decrypts `box`. Throws ``CryptoError/Code/authenticationFailure`` when the
    /// key, the nonce, the ciphertext, the tag or `associatedData` differ from what was sealed.
    public static func open(_ box: SealedBox, key: some Collection<UInt8>,
                            authenticating associatedData: some Collection<UInt8> = [UInt8]()) throws(CryptoError) -> [UInt8] {
        let keyBytes = try checkedKey(key)
        let aad = Array(associatedData)
        let context = try CipherContext()
        var output = [UInt8](repeating: 0, count: box.ciphertext.count + 16)
        var tag = box.tag
        let written: Int = try context.withUnsafeHandle { ctx throws(CryptoError) in
            try check(EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil), "EVP_DecryptInit_ex(aes-256-gcm)")
            try check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceByteCount), nil), "EVP_CTRL_GCM_SET_IVLEN")
            try check(EVP_DecryptInit_ex(ctx, nil, nil, keyBytes, box.nonce), "EVP_DecryptInit_ex(key, nonce)")
            var length: Int32 = 0
            if !aad.isEmpty {
                try check(EVP_DecryptUpdate(ctx, nil, &length, aad, try int32(aad.count)), "EVP_DecryptUpdate(aad)")
            }
            var written = 0
            if !box.ciphertext.isEmpty {
                let count = try int32(box.ciphertext.count)
                let updated = output.withUnsafeMutableBufferPointer { out in EVP_DecryptUpdate(ctx, out.baseAddress, &length, box.ciphertext, count) }
                try check(updated, "EVP_DecryptUpdate")
                written = Int(length)
            }
            let setTag = tag.withUnsafeMutableBytes { raw in
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), raw.baseAddress)
            }
            try check(setTag, "EVP_CTRL_GCM_SET_TAG")
            let final = output.withUnsafeMutableBufferPointer { out in
                EVP_DecryptFinal_ex(ctx, out.baseAddress.map { $0 + written }, &length)
            }
            guard final == 1 else {
                // A tag mismatch leaves nothing on OpenSSL's error queue; clear whatever might be there.
                ERR_clear_error()
                // The partial plaintext must not outlive the failure.
                output.withUnsafeMutableBytes { raw in
                    if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) }
                }
                throw CryptoError(.authenticationFailure, "AES-256-GCM: the message is not authentic (wrong key, nonce, data or tag)")
            }
            return written + Int(length)
        }
        return Array(output.prefix(written))
    }

    private static func checkedKey(_ key: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw CryptoError(.invalidInput, "AES-256-GCM key must be 32 bytes, got \(key.count)") }
        return Array(key)
    }

    private static func int32(_ count: Int) throws(CryptoError) -> Int32 {
        guard let value = Int32(exactly: count) else { throw CryptoError(.invalidInput, "AES-256-GCM input of \(count) bytes is too long") }
        return value
    }

    /// The funnel: a libcrypto return other than 1 becomes a thrown error with OpenSSL's reason.
    private static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        guard result == 1 else { throw CryptoError.fromOpenSSL(operation) }
    }
}

/// The one owner of an `EVP_CIPHER_CTX`: freed (and cleansed by OpenSSL) in `deinit`.
/// Used by one call on one thread, never shared, so it need not be `Sendable`.
private final class CipherContext {
    private let handle: OpaquePointer

    init() throws(CryptoError) {
        guard let handle = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        self.handle = handle
    }

    deinit { EVP_CIPHER_CTX_free(handle) }

    /// The raw context, valid only inside `body`.
    func withUnsafeHandle<T>(_ body: (OpaquePointer) throws(CryptoError) -> T) throws(CryptoError) -> T {
        try body(handle)
    }
}
