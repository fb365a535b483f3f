import Crypto
import Foundation
import Testing
@testable import Providers
import PaymentsCore

/// Every vector in Fixtures/vectors.json (docs/providers/*.md), produced
/// by the providers' own SDKs: valid ones must pass, negative ones must fail.
@Suite struct SignatureVectorTests {
    struct VectorFile: Decodable {
        let vectors: [Vector]
    }

    enum Input: Decodable {
        case text(String)
        case fields([String: String])
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .text(text) } else { self = .fields(try container.decode([String: String].self)) }
        }
        var text: String? { if case .text(let value) = self { value } else { nil } }
        var fields: [String: String]? { if case .fields(let value) = self { value } else { nil } }
    }

    struct Vector: Decodable, CustomTestStringConvertible {
        let id: String
        let provider: String
        let kind: String
        let expected_valid: Bool
        let inputs: [String: Input]
        let header: [String: String?]?
        let razorpay_signature: String?
        var testDescription: String { id }

        func input(_ name: String) throws -> String { try #require(inputs[name]?.text, "\(id): no input \(name)") }
        func rawBody() throws -> [UInt8] { try #require(Encoding.bytes(base64: input("raw_body_base64")), "\(id): bad base64") }
        var headerList: [(name: String, value: String)] {
            (header ?? [:]).compactMap { name, value in value.map { (name, $0) } }
        }
    }

    static let vectors: [Vector] = {
        guard let data = try? Data(contentsOf: Fixture.url("vectors.json")),
              let file = try? JSONDecoder().decode(VectorFile.self, from: data) else { return [] }
        return file.vectors
    }()

    @Test func theVectorFileLoadsAndHasNegatives() {
        #expect(Self.vectors.count == 29)
        #expect(Self.vectors.contains { !$0.expected_valid })
        #expect(Set(Self.vectors.map(\.provider)) == ["razorpay", "cashfree", "instamojo", "setu"])
    }

    @Test(arguments: SignatureVectorTests.vectors)
    func vector(_ vector: Vector) throws {
        let verdict: WebhookVerdict
        switch (vector.provider, vector.kind) {
        case ("razorpay", "payment_signature"):
            let adapterless = RazorpayWebhook.paymentSignature(orderID: try vector.input("order_id"),
                                                               paymentID: try vector.input("razorpay_payment_id"),
                                                               signature: try #require(vector.razorpay_signature))
            verdict = WebhookVerifier.verify(adapterless, secret: Secret(try vector.input("key_secret")))
        case ("razorpay", "webhook_signature"):
            verdict = Webhooks.verify(provider: .razorpay, request: WebhookRequest(headers: vector.headerList, body: try vector.rawBody()),
                                      secret: Secret(try vector.input("webhook_secret")))
        case ("razorpay", "basic_auth_header"):
            let expected = try #require(vector.header?["Authorization"] ?? nil)
            let built = RazorpayAdapter.authorization(keyID: try vector.input("key_id"), keySecret: Secret(try vector.input("key_secret")))
            verdict = built == expected ? .valid : .invalid("header differs: \(built)")
        case ("cashfree", "webhook_signature"):
            verdict = Webhooks.verify(provider: .cashfree, request: WebhookRequest(headers: vector.headerList, body: try vector.rawBody()),
                                      secret: Secret(try vector.input("client_secret")))
        case ("instamojo", "webhook_mac"):
            let fields = try #require(vector.inputs["form_fields"]?.fields)
            // Posted as a form, in an arbitrary order: the MAC sorts by name.
            let body = WireCoding.formEncode(fields.sorted { $0.key > $1.key }.map { ($0.key, $0.value) })
            verdict = Webhooks.verify(provider: .instamojo, request: WebhookRequest(headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body),
                                      secret: Secret(try vector.input("private_salt")))
        case ("setu", "webhook_api_key"):
            verdict = Webhooks.verify(provider: .setu, request: WebhookRequest(headers: vector.headerList, body: Array("{}".utf8)),
                                      secret: Secret(try vector.input("configured_api_key")))
        default:
            Issue.record("\(vector.id): no check for \(vector.provider) \(vector.kind)")
            return
        }
        #expect(verdict.isValid == vector.expected_valid, "\(vector.id): \(verdict)")
    }

    @Test func razorpayVerifiesTheRawBytesNotReencodedJSON() throws {
        let vector = try #require(Self.vectors.first { $0.id == "rzp-wh-01" })
        var body = try vector.rawBody()
        let secret = Secret(try vector.input("webhook_secret"))
        #expect(Webhooks.verify(provider: .razorpay, request: WebhookRequest(headers: vector.headerList, body: body), secret: secret).isValid)
        // Dropping the trailing newline changes the signed bytes.
        body.removeLast()
        #expect(!Webhooks.verify(provider: .razorpay, request: WebhookRequest(headers: vector.headerList, body: body), secret: secret).isValid)
    }

    @Test func headerNamesAreCaseInsensitiveButMissingOrDuplicateHeadersFail() throws {
        let vector = try #require(Self.vectors.first { $0.id == "cf-wh-01" })
        let body = try vector.rawBody()
        let secret = Secret(try vector.input("client_secret"))
        let upper = vector.headerList.map { ($0.name.uppercased(), $0.value) }
        #expect(Webhooks.verify(provider: .cashfree, request: WebhookRequest(headers: upper, body: body), secret: secret) == .valid)
        let noTimestamp = vector.headerList.filter { $0.name != "x-webhook-timestamp" }
        #expect(Webhooks.verify(provider: .cashfree, request: WebhookRequest(headers: noTimestamp, body: body), secret: secret)
            == .invalid("missing x-webhook-timestamp header"))
        let doubled = vector.headerList + [("x-webhook-signature", "AAAA")]
        #expect(!Webhooks.verify(provider: .cashfree, request: WebhookRequest(headers: doubled, body: body), secret: secret).isValid)
        #expect(Webhooks.verify(provider: .cashfree, request: WebhookRequest(headers: vector.headerList, body: body), secret: Secret(""))
            == .invalid("no secret configured"))
    }

    @Test func instamojoRejectsMissingOrRepeatedMacAndBadForms() {
        let salt = Secret("salt")
        #expect(Webhooks.verify(provider: .instamojo, request: WebhookRequest(headers: [], body: Array("amount=1".utf8)), secret: salt)
            == .invalid("missing mac field"))
        #expect(Webhooks.verify(provider: .instamojo, request: WebhookRequest(headers: [], body: Array("mac=a&mac=b".utf8)), secret: salt)
            == .invalid("more than one mac field"))
        #expect(Webhooks.verify(provider: .instamojo, request: WebhookRequest(headers: [], body: Array("a=%zz&mac=b".utf8)), secret: salt)
            == .invalid("body is not valid form data"))
    }

    @Test func sha1MatchesRFC3174AndHMACMatchesRFC2202() {
        #expect(Encoding.hex(Crypto.hash(.sha1, Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Encoding.hex(Crypto.hash(.sha1, [UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Encoding.hex(Crypto.hash(.sha1, Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(Encoding.hex(Crypto.hash(.sha1, Array(repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        #expect(Encoding.hex(Crypto.hmac(.sha1, key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        // RFC 2202 case 6: a key longer than the block is hashed first.
        #expect(Encoding.hex(Crypto.hmac(.sha1, key: Array(repeating: UInt8(0xaa), count: 80),
                                       message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test func secretsNeverPrint() {
        let secret = Secret("super-secret-value")
        #expect("\(secret)" == "****")
        #expect(String(reflecting: secret) == "Secret(****)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("super-secret-value"))
        let configuration = RazorpayConfiguration(keyID: "rzp_test_x", keySecret: secret, webhookSecret: Secret("w"))
        var text = ""
        dump(configuration, to: &text)
        #expect(!text.contains("super-secret-value"))
    }
}
