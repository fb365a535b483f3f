import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `/proc` says about the processes around an embedded cluster.
///
/// `pg_ctl status` only asks whether the pid in `postmaster.pid` is alive, and
/// a pid is reused: after a hard kill it may name a shell or a `sleep`. A
/// PostgreSQL server process always runs with the data directory as its
/// working directory (the postmaster changes into it, its children inherit
/// it), so "a `postgres` executable whose cwd is the data directory" is what
/// identifies the cluster's processes: the postmaster, or backends orphaned
/// when it was killed (they keep the shared memory attached, and a new
/// postmaster refuses to start while they live).
enum ServerProcesses {
    /// Whether `pid` names a live process (of any user).
    static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Whether `pid` is alive and not a zombie: an orphan that exited but that
    /// nobody reaped yet (a container's init may never reap) has released
    /// everything it held, yet `kill(pid, 0)` still succeeds on it.
    static func isRunning(_ pid: Int32) -> Bool {
        guard isAlive(pid) else { return false }
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.endIndex else { return true }
        // "pid (comm) S ...": the state letter follows the last parenthesis.
        return stat[close + 2] != UInt8(ascii: "Z")
    }

    /// The resolved working directory of `pid`; nil if it cannot be read (gone, or not ours to read).
    static func workingDirectory(of pid: Int32) -> String? {
        link("/proc/\(pid)/cwd")
    }

    /// The file name of the executable `pid` runs (`postgres`, `sleep`); nil if it cannot be read.
    static func executableName(of pid: Int32) -> String? {
        guard var path = link("/proc/\(pid)/exe") else { return nil }
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }  // the package was upgraded under it
        return path.split(separator: "/").last.map(String.init)
    }

    /// The arguments `pid` was started with; empty if they cannot be read.
    static func commandLine(of pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every process id in `/proc` (empty when `/proc` is not mounted).
    static func all() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    }

    /// Whether `/proc` can tell us anything (it is not mounted in every container).
    static var procfsAvailable: Bool { workingDirectory(of: getpid()) != nil }

    /// Whether `pid` is a PostgreSQL server process working in `directory` (a resolved path).
    static func isServerProcess(_ pid: Int32, in directory: String) -> Bool {
        guard workingDirectory(of: pid) == directory, let name = executableName(of: pid) else { return false }
        return name == "postgres" || name == "postmaster"
    }

    /// The PostgreSQL server processes working in `directory` (a resolved path).
    static func serverProcesses(in directory: String) -> [Int32] {
        all().filter { $0 != getpid() && isServerProcess($0, in: directory) }
    }

    /// Processes whose working directory is `directory` or below it, or whose
    /// arguments name a path there: what is left of an interrupted `initdb`
    /// (runuser, initdb, its bootstrap `postgres`).
    static func processes(using directory: String) -> [Int32] {
        all().filter { pid in
            guard pid != getpid() else { return false }
            if let cwd = workingDirectory(of: pid), cwd == directory || cwd.hasPrefix(directory + "/") { return true }
            return commandLine(of: pid).contains { $0 == directory || $0.hasPrefix(directory + "/") }
        }
    }

    /// Waits until none of `pids` is alive, polling with backoff; whether they all exited within `timeout`.
    static func waitForExit(_ pids: [Int32], timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(5)
        while pids.contains(where: isRunning) {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(250))
        }
        return true
    }

    /// `path` with every symbolic link resolved (`realpath`), or nil if it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `postmaster.pid`, the lock file a postmaster writes into its data directory
/// (PostgreSQL's `miscadmin.h` names the lines): pid, data directory, start
/// time, port, first socket directory, listen address, shared memory key, status.
struct PostmasterPIDFile: Equatable {
    /// The postmaster's pid (line 1).
    var pid: Int32
    /// The port (line 4), if written yet.
    var port: Int?
    /// The first unix socket directory (line 5), if any.
    var socketDirectory: String?

    /// Reads `<dataDirectory>/postmaster.pid`; nil if it is absent or its first line is not a pid.
    init?(dataDirectory: String) {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first, let pid = Int32(first), pid > 0 else { return nil }
        self.pid = pid
        port = lines.count > 3 ? Int(lines[3]) : nil
        socketDirectory = lines.count > 4 && !lines[4].isEmpty ? lines[4] : nil
    }
}
