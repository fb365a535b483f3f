import ChildProcess
import Foundation
import HTTPTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Processes for the hard-kill tests: the built `payql`, the cluster's
/// postmaster, and what `/proc` says, with every wait bounded (generously:
/// the machine may be busy) and none blocking a cooperative thread for long.
enum TestProcesses {
    /// The `payql` binary built alongside this test bundle.
    static var payql: String? { PayQLBinary.path }

    /// A clean environment for `payql` (no `DATABASE_URL`, no `PAYQL_*` from the caller).
    static let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C"]

    /// Starts `payql arguments` with its standard output on a non-blocking pipe.
    static func startPayQL(_ arguments: [String]) throws -> ChildProcess {
        let binary = try #require(payql, "payql is not built next to the tests (run swift build --build-tests)")
        let child = try ChildProcess(executable: binary, arguments: arguments, environment: environment, standardOutput: .pipe)
        if let output = child.output { _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK) }
        return child
    }

    /// Reads `child`'s standard output until it contains `text`; everything read, or nil at end of file or `timeout`.
    static func waitForOutput(_ child: ChildProcess, containing text: String, timeout: Duration = .seconds(60)) async -> String? {
        guard let descriptor = child.output else { return nil }
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[0..<count]
                let output = String(decoding: bytes, as: UTF8.self)
                if output.contains(text) { return output }
                continue
            }
            if count == 0 { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Sends SIGKILL to `child` and reaps it.
    static func kill9(_ child: ChildProcess) {
        child.terminate(signal: SIGKILL)
        _ = child.waitForExit()  // immediate: SIGKILL cannot be caught
    }

    /// The pid on the first line of `<dataDirectory>/postmaster.pid`.
    static func postmasterPID(_ dataDirectory: String) -> Int32? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether `pid` runs (a zombie, exited but not reaped yet, does not).
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// Polls `condition` until it holds or `timeout` passes; whether it held.
    static func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    /// Live processes running `executable` (by file name) whose arguments or working directory mention `path`.
    static func processes(named executables: Set<String>, mentioning path: String) -> [Int32] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        return pids.filter { pid in
            guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
                  executables.contains(exe.split(separator: "/").last.map(String.init) ?? "") else { return false }
            let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
            let arguments = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map { String(decoding: $0, as: UTF8.self) } ?? ""
            return cwd.hasPrefix(path) || arguments.contains(path)
        }
    }
}
