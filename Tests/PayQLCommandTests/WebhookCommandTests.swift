import ChildProcess
import Crypto
import Foundation
import HTTPTestSupport
import Testing

/// `payql webhook verify` end to end: the built `payql` executable, next to the
/// test bundle, fed a vector's raw body on standard input.
@Suite struct WebhookCommandTests {
    /// The `payql` binary built alongside this test bundle.
    static var payql: URL? { PayQLBinary.path.map { URL(fileURLWithPath: $0) } }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: [UInt8]) throws -> Run {
        let binary = try #require(payql, "payql is not built next to the tests (run swift build --build-tests)")
        // Blocks this thread until the child exits: these tests are short and
        // few, and the child is a small command that answers at once.
        let completion = try ChildProcess.run(
            binary.path, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { current, _ in current },
            input: stdin)
        return Run(status: completion.status, output: completion.outputText, errors: completion.errorsText)
    }

    /// A Razorpay-style event signed as Razorpay signs it: hex HMAC-SHA256 of the raw body with the
    /// webhook secret (the algorithm itself is checked against the SDKs' vectors in ProvidersTests).
    static func razorpayVector() -> (body: [UInt8], signature: String) {
        let body = Array(#"{"event":"payment.captured","entity":"event","payload":{"payment":{"entity":{"id":"pay_A1","amount":1000,"currency":"INR","status":"captured","order_id":"order_B2"}}},"created_at":1700000000}"#.utf8)
        return (body, Encoding.hex(Crypto.hmac(.sha256, key: Array("key_secret".utf8), message: body)))
    }

    @Test func validWebhookExitsZero() throws {
        let (body, signature) = Self.razorpayVector()
        let run = try Self.run(["webhook", "verify", "--provider", "razorpay", "--secret-env", "TEST_RZP_SECRET",
                                "--header", "X-Razorpay-Signature: \(signature)"],
                               environment: ["TEST_RZP_SECRET": "key_secret"], stdin: body)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "valid\n")
    }

    @Test func wrongSecretOrMissingHeaderExitsOne() throws {
        let (body, signature) = Self.razorpayVector()
        let wrong = try Self.run(["webhook", "verify", "--provider", "razorpay", "--secret-env", "TEST_RZP_SECRET",
                                  "--header", "X-Razorpay-Signature: \(signature)"],
                                 environment: ["TEST_RZP_SECRET": "another"], stdin: body)
        #expect(wrong.status == 1)
        #expect(wrong.output == "invalid: signature mismatch\n")
        let missing = try Self.run(["webhook", "verify", "--provider", "razorpay", "--secret-env", "TEST_RZP_SECRET"],
                                   environment: ["TEST_RZP_SECRET": "key_secret"], stdin: body)
        #expect(missing.status == 1)
        #expect(missing.output == "invalid: missing X-Razorpay-Signature header\n")
    }

    @Test func instamojoFormBodyFromStandardInput() throws {
        // Instamojo's MAC: hex HMAC-SHA1 with the private salt over the field values, ordered by
        // field name and joined with "|" (docs/providers.md); the form is percent-encoded on the wire.
        let salt = "imj_test_private_salt_1"
        let fields = [("amount", "2500.00"), ("buyer", "jon+snow@example.com"), ("currency", "INR"),
                      ("payment_id", "MOJO5a06005J21512197"), ("status", "Credit")]
        let mac = Encoding.hex(Crypto.hmac(.sha1, key: salt, message: fields.map(\.1).joined(separator: "|")))
        let body = Array((fields + [("mac", mac)]).map { "\($0.0)=\(Self.formEscape($0.1))" }.joined(separator: "&").utf8)
        let run = try Self.run(["webhook", "verify", "--provider", "instamojo", "--secret-env", "TEST_SALT"],
                               environment: ["TEST_SALT": salt], stdin: body)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "valid\n")
        let tampered = try Self.run(["webhook", "verify", "--provider", "instamojo", "--secret-env", "TEST_SALT"],
                                    environment: ["TEST_SALT": salt], stdin: Array(String(decoding: body, as: UTF8.self)
                                        .replacingOccurrences(of: "2500.00", with: "2.00").utf8))
        #expect(tampered.status == 1)
    }

    /// `application/x-www-form-urlencoded` escaping of one value (letters, digits and `-._*` stay).
    static func formEscape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    @Test func theSecretNeverComesFromTheCommandLine() throws {
        let run = try Self.run(["webhook", "verify", "--provider", "setu", "--secret", "abc"], stdin: [])
        #expect(run.status == 2)
        #expect(run.errors.contains("--secret-env"))
        let unset = try Self.run(["webhook", "verify", "--provider", "setu", "--secret-env", "TEST_NOT_SET"], stdin: [])
        #expect(unset.status == 2)
        let provider = try Self.run(["webhook", "verify", "--provider", "paypal", "--secret-env", "X"], environment: ["X": "k"], stdin: [])
        #expect(provider.status == 2)
    }
}
