import ChildProcess
import Foundation
@testable import Gateway
import Testing

/// How `payql serve` reads its data key: a bad `PAYQL_DATA_KEY` or an unreadable development key
/// file stops the start before anything runs, and the file is never replaced.
@Suite struct DataKeyConfigurationTests {
    static func serve(_ directory: String, environment extra: [String: String] = [:]) throws -> ChildProcess.Completion {
        let binary = try #require(ServeCommandTests.payql, "payql is not built next to the tests (run swift build --build-tests)")
        let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C"].merging(extra) { _, new in new }
        return try ChildProcess.run(binary, ["serve", "--port", "0", "--sandbox", "false", "--data-dir", directory + "/pg",
                                             "--dev-keys-dir", directory], environment: environment, mergeErrors: true)
    }

    static func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "payql-datakey-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func anUnreadableDevelopmentKeyFileStopsTheStartAndIsKept() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbled = "PAYQL_DATA_KEY=not base64 at all\n"
        try garbled.write(toFile: directory + "/data-key", atomically: true, encoding: .utf8)
        let run = try Self.serve(directory)
        #expect(run.status != 0)
        #expect(run.outputText.contains("data-key"), "\(run.outputText)")
        #expect(try String(contentsOfFile: directory + "/data-key", encoding: .utf8) == garbled)
        // Nothing ran: no database was created.
        #expect(!FileManager.default.fileExists(atPath: directory + "/pg"))

        try "# no key line\n".write(toFile: directory + "/data-key", atomically: true, encoding: .utf8)
        #expect(try Self.serve(directory).status != 0)
        #expect(try String(contentsOfFile: directory + "/data-key", encoding: .utf8) == "# no key line\n")
    }

    @Test func aMalformedDataKeyIsAUsageErrorThatShowsNoKey() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let short = "c2hvcnQta2V5LW9mLTE2Yg=="   // 16 bytes
        let run = try Self.serve(directory, environment: ["PAYQL_DATA_KEY": short])
        #expect(run.status != 0)
        #expect(run.outputText.contains("PAYQL_DATA_KEY"), "\(run.outputText)")
        #expect(run.outputText.contains("32 bytes"))
        #expect(!run.outputText.contains(short))
        #expect(!FileManager.default.fileExists(atPath: directory + "/data-key"), "a configured (if wrong) key never falls back to a file")
        let previous = try Self.serve(directory, environment: ["PAYQL_DATA_KEY": try DataKey.generate().base64Encoded(),
                                                               "PAYQL_DATA_KEYS_PREVIOUS": "AAAA"])
        #expect(previous.status != 0)
        #expect(previous.outputText.contains("PAYQL_DATA_KEYS_PREVIOUS"))
    }

    @Test func theKeyIsASecretNeverAFlag() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binary = try #require(ServeCommandTests.payql)
        let run = try ChildProcess.run(binary, ["serve", "--port", "0", "--data-key", "x", "--dev-keys-dir", directory],
                                       environment: ["PATH": "/usr/bin:/bin"], mergeErrors: true)
        #expect(run.status != 0)
        #expect(run.outputText.contains("PAYQL_DATA_KEY"), "\(run.outputText)")
    }
}
