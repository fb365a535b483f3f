import Crypto
import Foundation
@testable import Gateway
import JSON
import Synchronization
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

/// The per-request pieces of authentication and `extensions.timing`, read and written in place.
@Suite struct RequestAuthPiecesTests {
    @Test func theBearerTokenIsReadInPlaceFromTheHeader() {
        #expect(APIKeys.bearerToken("Bearer pq_sk_abc") == "pq_sk_abc")
        #expect(APIKeys.bearerToken("bearer pq_sk_abc") == "pq_sk_abc")
        #expect(APIKeys.bearerToken("BEARER pq_sk_abc") == "pq_sk_abc")
        #expect(APIKeys.bearerToken("Bearer  pq_sk_abc") == " pq_sk_abc", "a second space is part of the token (then unknown)")
        for refused in ["Bearer", "Bearer ", "Basic abc", "Bearerx abc", "Bear abc", "", " ", "Bearer\tabc", "Béarer abc"] {
            #expect(APIKeys.bearerToken(refused) == nil, "\(refused)")
        }
        // In place: the token is a slice of the header's own storage.
        let header = "Bearer pq_sk_" + String(repeating: "x", count: 43)
        let token = APIKeys.bearerToken(header)
        #expect(token?.base == header)
    }

    @Test func timingIsWrittenAsTheObjectWouldBe() {
        let context = GatewayRequestContext(
            principal: Principal(apiKeyID: UUID(), scopes: [.secret], session: nil), idempotencyHeader: nil)
        context.providerNanoseconds.store(1_234_567, ordering: .relaxed)
        for total in [Duration.nanoseconds(5_678_901), .zero, .seconds(2), .nanoseconds(999)] {
            var body: [UInt8] = []
            context.writeTiming(total: total, into: &body)
            let expected = JSONWriter.write(["timing": .object(context.timing(total: total))])
            #expect(body == Array(expected.dropFirst().dropLast()))
        }
    }
}
