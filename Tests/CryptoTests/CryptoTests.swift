import Crypto
import Testing

@Suite struct CryptoTests {
    @Test func sha256OfEmptyStringMatchesFIPS180Vector() {
        #expect(Encoding.hex(Crypto.sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func sha256OfAbcMatchesFIPS180Vector() {
        #expect(Encoding.hex(Crypto.sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// RFC 4231 test case 2.
    @Test func hmacSHA256MatchesRFC4231() {
        let mac = Crypto.hmac(.sha256, key: "Jefe", message: "what do ya want for nothing?")
        #expect(Encoding.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let mac512 = Crypto.hmac(.sha512, key: "Jefe", message: "what do ya want for nothing?")
        #expect(Encoding.hex(mac512).hasPrefix("164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"))
    }

    @Test func hmacWithEmptyKeyIsDefined() {
        #expect(Encoding.hex(Crypto.hmac(.sha256, key: "", message: "")) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeEqualsComparesContentAndLength() {
        #expect(Crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(Crypto.constantTimeEquals([UInt8](), [UInt8]()))
    }

    @Test func randomBytesAreFreshEachCall() throws {
        let a = try Crypto.randomBytes(32)
        let b = try Crypto.randomBytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test func hexRoundTripsAndRejectsGarbage() {
        #expect(Encoding.bytes(hex: "00ff10Ab") == [0x00, 0xff, 0x10, 0xab])
        #expect(Encoding.bytes(hex: "abc") == nil)
        #expect(Encoding.bytes(hex: "zz") == nil)
    }

    /// RFC 4648 §10 vectors.
    @Test func base64MatchesRFC4648() {
        let cases = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in cases {
            #expect(Encoding.base64(Array(plain.utf8)) == encoded)
            #expect(Encoding.bytes(base64: encoded) == Array(plain.utf8))
        }
        #expect(Encoding.bytes(base64: "Zm9v!") == nil)
    }

    /// FIPS 180 / RFC 3174 examples and RFC 2202 (HMAC-SHA1), for Instamojo's `mac`.
    @Test func sha1AndHMACSHA1MatchTheirRFCs() {
        #expect(Encoding.hex(Crypto.hash(.sha1, Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Encoding.hex(Crypto.hash(.sha1, [UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Encoding.hex(Crypto.hash(.sha1, Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(Encoding.hex(Crypto.hash(.sha1, Array(repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        #expect(Encoding.hex(Crypto.hmac(.sha1, key: "Jefe", message: "what do ya want for nothing?"))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        // RFC 2202 case 6: a key longer than the block is hashed first.
        #expect(Encoding.hex(Crypto.hmac(.sha1, key: Array(repeating: UInt8(0xaa), count: 80),
                                         message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }
}
