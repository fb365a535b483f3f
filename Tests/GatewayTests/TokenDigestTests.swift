import Crypto
import Foundation
@testable import Gateway
import Testing

/// The principal cache's key: a token's SHA-256 held in four words.
@Suite struct TokenDigestTests {
    @Test func theDigestKeepsEveryByteOfTheHash() {
        let token = "pq_sk_" + String(repeating: "A", count: 43)
        let digest = TokenDigest(Crypto.sha256(token))
        #expect(digest.data == APIKeys.hash(token), "the bytes given to the database must be the token's SHA-256")
        #expect(digest == TokenDigest(Crypto.sha256(token)))
        #expect(digest.hashValue == TokenDigest(Crypto.sha256(token)).hashValue)
        // Tokens differing in one character (so in every word of the hash) are different keys.
        let other = TokenDigest(Crypto.sha256("pq_sk_" + String(repeating: "A", count: 42) + "B"))
        #expect(digest != other)
        // Each of the four words counts.
        var bytes = [UInt8](repeating: 0, count: 32)
        let zero = TokenDigest(bytes)
        for word in 0..<4 {
            bytes = [UInt8](repeating: 0, count: 32)
            bytes[word * 8 + 7] = 1
            #expect(TokenDigest(bytes) != zero)
            #expect(TokenDigest(bytes).data == Data(bytes))
        }
    }
}
