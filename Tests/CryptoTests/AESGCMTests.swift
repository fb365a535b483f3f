import Crypto
import Testing

/// AES-256-GCM against the published vectors and against tampering.
///
/// Vectors: McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", Appendix B,
/// Test Cases 13–16 (the 256-bit-key cases with 96-bit IVs), the vectors NIST's
/// SP 800-38D submission carries.
@Suite struct AESGCMTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let aad: String
        let ciphertext: String
        let tag: String
        var testDescription: String { name }
    }

    static let zeroKey = String(repeating: "00", count: 32)
    static let specKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let specNonce = "cafebabefacedbaddecaf888"
    static let specPlaintext = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let specCiphertext = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    static let vectors: [Vector] = [
        Vector(name: "Test Case 13 (empty)", key: zeroKey, nonce: String(repeating: "00", count: 12), plaintext: "", aad: "",
               ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "Test Case 14 (one zero block)", key: zeroKey, nonce: String(repeating: "00", count: 12),
               plaintext: String(repeating: "00", count: 16), aad: "",
               ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "Test Case 15 (four blocks)", key: specKey, nonce: specNonce, plaintext: specPlaintext, aad: "",
               ciphertext: specCiphertext, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "Test Case 16 (partial block, associated data)", key: specKey, nonce: specNonce,
               plaintext: String(specPlaintext.dropLast(8)), aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
               ciphertext: String(specCiphertext.dropLast(8)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    static func bytes(_ hex: String) throws -> [UInt8] { try #require(Encoding.bytes(hex: hex)) }

    @Test(arguments: vectors) func sealMatchesThePublishedVector(_ v: Vector) throws {
        let box = try AES256GCM.seal(try Self.bytes(v.plaintext), key: try Self.bytes(v.key), nonce: try Self.bytes(v.nonce),
                                     authenticating: try Self.bytes(v.aad))
        #expect(Encoding.hex(box.ciphertext) == v.ciphertext)
        #expect(Encoding.hex(box.tag) == v.tag)
        #expect(Encoding.hex(box.nonce) == v.nonce)
    }

    @Test(arguments: vectors) func openRecoversThePublishedPlaintext(_ v: Vector) throws {
        let box = try AES256GCM.SealedBox(nonce: try Self.bytes(v.nonce), ciphertext: try Self.bytes(v.ciphertext), tag: try Self.bytes(v.tag))
        let opened = try AES256GCM.open(box, key: try Self.bytes(v.key), authenticating: try Self.bytes(v.aad))
        #expect(Encoding.hex(opened) == v.plaintext)
    }

    /// Every single flipped bit — of the nonce, the ciphertext, the tag or the associated data — fails to open.
    @Test func anyFlippedBitFailsToOpen() throws {
        let v = Self.vectors[3]
        let key = try Self.bytes(v.key)
        let aad = try Self.bytes(v.aad)
        let combined = try Self.bytes(v.nonce) + (try Self.bytes(v.ciphertext)) + (try Self.bytes(v.tag))
        #expect(try AES256GCM.open(try AES256GCM.SealedBox(combined: combined), key: key, authenticating: aad) == (try Self.bytes(v.plaintext)))
        for bit in 0..<(combined.count * 8) {
            var tampered = combined
            tampered[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            #expect(throws: CryptoError.self, "bit \(bit) of the box") {
                try AES256GCM.open(try AES256GCM.SealedBox(combined: tampered), key: key, authenticating: aad)
            }
        }
        for bit in 0..<(aad.count * 8) {
            var tampered = aad
            tampered[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            #expect(throws: CryptoError.self, "bit \(bit) of the associated data") {
                try AES256GCM.open(try AES256GCM.SealedBox(combined: combined), key: key, authenticating: tampered)
            }
        }
    }

    @Test func theFailureSaysAuthenticationAndNothingElse() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let box = try AES256GCM.seal(Array("916010082985661".utf8), key: key, authenticating: Array("row-1".utf8))
        do {
            _ = try AES256GCM.open(box, key: key, authenticating: Array("row-2".utf8))
            Issue.record("opened with other associated data")
        } catch {
            #expect(error.code == .authenticationFailure)
            #expect(!error.description.contains("916010082985661"))
        }
        var otherKey = key
        otherKey[31] ^= 1
        #expect(throws: CryptoError.self) { try AES256GCM.open(box, key: otherKey, authenticating: Array("row-1".utf8)) }
        // A truncated tag is refused before any decryption.
        #expect(throws: CryptoError.self) { try AES256GCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: Array(box.tag.prefix(12))) }
    }

    @Test func sealDrawsAFreshNonceEachTime() throws {
        let key = try Crypto.randomBytes(32)
        let message = Array("the same message".utf8)
        let first = try AES256GCM.seal(message, key: key)
        let second = try AES256GCM.seal(message, key: key)
        #expect(first.nonce.count == 12)
        #expect(first.tag.count == 16)
        #expect(first.ciphertext.count == message.count)
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
        #expect(try AES256GCM.open(first, key: key) == message)
        #expect(try AES256GCM.open(try AES256GCM.SealedBox(combined: second.combined), key: key) == message)
    }

    @Test func wrongLengthsAreInvalidInput() throws {
        for length in [0, 16, 31, 33] {
            do {
                _ = try AES256GCM.seal([1, 2, 3], key: [UInt8](repeating: 0, count: length))
                Issue.record("a \(length)-byte key was accepted")
            } catch {
                #expect(error.code == .invalidInput)
            }
        }
        #expect(throws: CryptoError.self) { try AES256GCM.SealedBox(combined: [UInt8](repeating: 0, count: 27)) }
    }
}
