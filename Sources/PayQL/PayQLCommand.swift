#if canImport(Glibc)
import Glibc
#endif

/// Top-level dispatch of `payql SUBCOMMAND ...`.
enum PayQLCommand {
    static let usage = """
    usage: payql <command> [options]

    commands:
      serve              run the GraphQL server (see README: Configuration)
      migrate            apply the migrations (embedded; --migrations DIR to override)
      keys               create, list and revoke API keys
      sandbox            run the provider simulators on loopback
      graphql format     print a GraphQL document in canonical form
      graphql validate   validate a document against a schema
      graphql bench      benchmark the GraphQL engine
      webhook verify     check a provider webhook signature
      help [command]     this text, or the command's
    Every command prints its usage with --help (or -h) and exits 0.
    """

    /// Runs the subcommand named by `arguments[0]`; returns the exit status.
    static func run(_ arguments: [String], streams: StandardStreams) async -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "serve": return try await ServeCommand.run(rest)
            case "migrate": return try await MigrateCommand.run(rest)
            case "keys": return try await KeysCommand.run(rest)
            case "sandbox": return try await SandboxCommand.run(rest)
            case "graphql": return try await GraphQLCommand.run(rest, streams: streams)
            case "webhook": return try await WebhookCommand.run(rest, streams: streams)
            case "help", "--help", "-h":
                // `payql help serve` is `payql serve --help`.
                if let topic = rest.first, topic != "help", !topic.hasPrefix("-") {
                    return await run(rest + ["--help"], streams: streams)
                }
                print(usage)
                return 0
            default:
                printError("payql: unknown command '\(command)'\n\n\(usage)")
                return 2
            }
        } catch let error as UsageError {
            printError("payql \(command): \(error.message)")
            return 2
        } catch {
            printError("payql \(command): \(error)")
            return 1
        }
    }
}

/// A mistake in how a command was called; exits with status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
