import ChildProcess
import Crypto
import Foundation
import Testing
@testable import Providers

/// `payql webhook verify` end to end: the built `payql` executable, next to the
/// test bundle, fed a vector's raw body on standard input.
@Suite struct WebhookCommandTests {
    /// The `payql` binary built alongside this test bundle (`swift build --build-tests` builds it).
    static var payql: URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("payql")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

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

    /// rzp-wh-01: razorpay-python's own webhook fixture and signature.
    static func razorpayVector() throws -> (body: [UInt8], signature: String) {
        let vector = try #require(SignatureVectorTests.vectors.first { $0.id == "rzp-wh-01" })
        return (try vector.rawBody(), try #require(vector.header?["X-Razorpay-Signature"] ?? nil))
    }

    @Test func validWebhookExitsZero() throws {
        let (body, signature) = try Self.razorpayVector()
        let run = try Self.run(["webhook", "verify", "--provider", "razorpay", "--secret-env", "TEST_RZP_SECRET",
                                "--header", "X-Razorpay-Signature: \(signature)"],
                               environment: ["TEST_RZP_SECRET": "key_secret"], stdin: body)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "valid\n")
    }

    @Test func wrongSecretOrMissingHeaderExitsOne() throws {
        let (body, signature) = try Self.razorpayVector()
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
        let vector = try #require(SignatureVectorTests.vectors.first { $0.id == "imj-wh-01" })
        let fields = try #require(vector.inputs["form_fields"]?.fields)
        let body = WireCoding.formEncode(fields.map { ($0.key, $0.value) })
        let run = try Self.run(["webhook", "verify", "--provider", "instamojo", "--secret-env", "TEST_SALT"],
                               environment: ["TEST_SALT": try vector.input("private_salt")], stdin: body)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "valid\n")
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
