import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the PostgreSQL command-line tools, as another user when PayQL runs as root.
///
/// `posix_spawn` + `waitpid` on a thread of its own rather than Foundation's
/// `Process`: `pg_ctl start` leaves a server running that inherits the
/// descriptors `Process` watches to notice termination, so `Process` would
/// wait for the server to exit. Here we wait for the child's pid itself, and
/// its output goes to a temporary file.
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
        let environmentStrings = environment.map { "\($0.key)=\($0.value)" }
        let outputPath = NSTemporaryDirectory() + "payql-pg-\(UUID().uuidString).out"
        defer { unlink(outputPath) }

        let spawned: Result<pid_t, PostgresError> = withMutableCStrings(argv) { argvPointer in
            withMutableCStrings(environmentStrings) { envPointer in
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                // Swift's and Dispatch's threads block signals, and a child inherits its spawning
                // thread's mask: reset the mask and the handlers, or a child waiting for SIGALRM
                // (pgbench -T) or SIGTERM never gets it.
                var attributes = posix_spawnattr_t()
                posix_spawnattr_init(&attributes)
                defer { posix_spawnattr_destroy(&attributes) }
                var emptySet = sigset_t()
                sigemptyset(&emptySet)
                var defaultSet = sigset_t()
                sigfillset(&defaultSet)
                sigdelset(&defaultSet, SIGKILL)
                sigdelset(&defaultSet, SIGSTOP)
                posix_spawnattr_setsigmask(&attributes, &emptySet)
                posix_spawnattr_setsigdefault(&attributes, &defaultSet)
                posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
                var pid: pid_t = 0
                let status = posix_spawn(&pid, path, &actions, &attributes, argvPointer, envPointer)
                guard status == 0 else {
                    return .failure(PostgresError(.embeddedClusterFailed, message: "cannot run \(executable): \(String(cString: strerror(status)))"))
                }
                return .success(pid)
            }
        }
        let pid = try spawned.get()
        let status: Int32 = await onDedicatedThread(name: "payql-postgres-wait") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED/WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
            return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Output(status: status, text: text)
    }
}

/// Calls `body` with a NULL-terminated array of mutable C strings (as `posix_spawn` takes them).
private func withMutableCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped) }
}
