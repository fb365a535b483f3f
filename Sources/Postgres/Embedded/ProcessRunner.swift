import Foundation
internal import ChildProcess
#if canImport(Glibc)
import Glibc
#endif

/// Runs the PostgreSQL command-line tools, as another user when PayQL runs as root.
///
/// `ChildProcess` (posix_spawn) + `waitpid` on a thread of its own rather than
/// Foundation's `Process`: `pg_ctl start` leaves a server running that would
/// inherit the descriptors `Process` watches to notice termination, so
/// `Process` would wait for the server to exit. Here we wait for the child's
/// pid itself, its output goes to a temporary file, and the server inherits no
/// descriptor of ours (no listening socket, no client connection).
package struct ProcessRunner: Sendable {
    /// The account that runs initdb/pg_ctl when we are root (PostgreSQL refuses root).
    package let runAs: String?

    /// A runner that runs tools as `runAs` (via runuser) or as ourselves (nil).
    package init(runAs: String?) { self.runAs = runAs }

    /// Exit status (128 + signal when killed) and combined output.
    package struct Output {
        /// The exit status, or 128 + the signal number.
        package var status: Int32
        /// Standard output and error, interleaved.
        package var text: String
    }

    /// Runs `executable arguments` to completion without blocking a cooperative thread.
    package func run(_ executable: String, _ arguments: [String]) async throws -> Output {
        // `sh -c 'cd / && exec "$0" "$@"'`: start in `/`, which the other user can always enter
        // (the arguments are passed as positional parameters, never parsed by the shell).
        var argv = ["/bin/sh", "-c", "cd / && exec \"$0\" \"$@\""]
        let path = "/bin/sh"
        if let runAs {
            guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw PostgresError(.embeddedClusterFailed, message: "running as root needs runuser(1) to start PostgreSQL as '\(runAs)'; it was not found")
            }
            argv += [runuser, "-u", runAs, "--", executable] + arguments
        } else {
            argv += [executable] + arguments
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["LC_ALL"] = "C"
        environment["LANG"] = "C"
        let outputPath = NSTemporaryDirectory() + "payql-pg-\(UUID().uuidString).out"
        defer { unlink(outputPath) }

        let child: ChildProcess
        do {
            child = try ChildProcess(
                executable: path, arguments: Array(argv.dropFirst()), environment: environment,
                standardOutput: .file(outputPath), standardError: .standardOutput)
        } catch {
            throw PostgresError(.embeddedClusterFailed, message: "cannot run \(executable): \(error)")
        }
        let status: Int32 = await onDedicatedThread(name: "payql-postgres-wait") { child.waitForExit() }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Output(status: status, text: text)
    }
}
