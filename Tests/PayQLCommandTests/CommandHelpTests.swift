import ChildProcess
import Foundation
import Testing

/// Every `payql` command answers `--help` and `-h` with its usage and exit 0
/// (none of them may take `--help` for an option waiting for a value, nor
/// start anything), and a command that reads standard input says in words when
/// there is none. Runs the built executable, as `WebhookCommandTests` does.
@Suite struct CommandHelpTests {
    /// The commands `payql --help` lists ("graphql format", "webhook verify", ...), plus their
    /// parents alone: a command added to the list is tested without touching this file.
    static func listedCommands() throws -> [[String]] {
        let run = try WebhookCommandTests.run(["--help"], stdin: [])
        try #require(run.status == 0, "payql --help: \(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "commands:"))
        var commands: [[String]] = []
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("  ") else { break }
            // "  graphql format     print ..." → ["graphql", "format"]; "[command]" is an argument.
            let name = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            let words = name.split(separator: " ").map(String.init).filter { !$0.hasPrefix("[") }
            if let first = words.first, !commands.contains([first]) { commands.append([first]) }
            if words.count > 1 { commands.append(words) }
        }
        return commands
    }

    @Test func everyCommandPrintsItsUsageOnHelpAndExitsZero() throws {
        let commands = try Self.listedCommands()
        // The list really was read (the parse cannot silently find nothing).
        for expected in [["serve"], ["migrate"], ["keys"], ["sandbox"], ["graphql", "format"], ["graphql", "bench"], ["webhook", "verify"]] {
            #expect(commands.contains(expected))
        }
        for command in commands {
            for flag in ["--help", "-h"] {
                let run = try WebhookCommandTests.run(command + [flag], stdin: [])
                let shown = (command + [flag]).joined(separator: " ")
                #expect(run.status == 0, "payql \(shown): status \(run.status), \(run.errors)")
                #expect(run.errors.isEmpty, "payql \(shown): \(run.errors)")
                let usagePrefix = command.first == "help" ? "usage: payql <command>" : "usage: payql \(command[0])"
                #expect(run.output.hasPrefix(usagePrefix), "payql \(shown): \(run.output)")
            }
        }
    }

    @Test func helpAfterOtherOptionsAndHelpCommandTopic() throws {
        // --help wins wherever it stands, even where an option would take it as its value.
        let verify = try WebhookCommandTests.run(["webhook", "verify", "--provider", "--help"], stdin: [])
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output.hasPrefix("usage: payql webhook verify"))
        let topic = try WebhookCommandTests.run(["help", "migrate"], stdin: [])
        #expect(topic.status == 0, "\(topic.errors)")
        #expect(topic.output.hasPrefix("usage: payql migrate"))
        let unknown = try WebhookCommandTests.run(["help", "nonsense"], stdin: [])
        #expect(unknown.status == 2)
    }

    /// `payql ARGS <&-`: standard input closed, not merely empty.
    static func runWithStandardInputClosed(_ arguments: [String], environment: [String: String] = [:]) throws -> WebhookCommandTests.Run {
        let binary = try #require(WebhookCommandTests.payql, "payql is not built next to the tests")
        let completion = try ChildProcess.run(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" <&-", binary.path] + arguments,
            environment: environment.merging(["PATH": "/usr/bin:/bin"]) { current, _ in current })
        return WebhookCommandTests.Run(status: completion.status, output: completion.outputText, errors: completion.errorsText)
    }

    @Test func webhookVerifySaysWhatIsWrongWithStandardInput() throws {
        let arguments = ["webhook", "verify", "--provider", "razorpay", "--secret-env", "TEST_RZP_SECRET",
                         "--header", "X-Razorpay-Signature: 00"]
        let closed = try Self.runWithStandardInputClosed(arguments, environment: ["TEST_RZP_SECRET": "key_secret"])
        #expect(closed.status == 2)
        #expect(closed.errors.contains("standard input is closed"), "\(closed.errors)")
        #expect(!closed.errors.contains("errno"))
        let empty = try WebhookCommandTests.run(arguments, environment: ["TEST_RZP_SECRET": "key_secret"], stdin: [])
        #expect(empty.status == 2)
        #expect(empty.errors.contains("standard input is empty"), "\(empty.errors)")
    }

    @Test func graphqlFormatSaysStandardInputIsClosed() throws {
        let closed = try Self.runWithStandardInputClosed(["graphql", "format"])
        #expect(closed.status == 2)
        #expect(closed.errors.contains("standard input is closed"), "\(closed.errors)")
    }
}
