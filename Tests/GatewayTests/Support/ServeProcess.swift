import ChildProcess
import Foundation
import HTTPTestSupport
import JSON
import Sandbox
#if canImport(Glibc)
import Glibc
#endif

/// A real `payql serve` (the binary built next to the tests) on a given database, its providers
/// pointed at a sandbox with the sandbox's test credentials; stopped with SIGTERM.
struct ServeProcess: Sendable {
    let process: ChildProcess
    /// `http://127.0.0.1:PORT`
    let baseURL: String
    /// Where its standard output (JSON log lines) goes.
    let logPath: String

    /// The `payql` binary built alongside this test bundle.
    static var binary: String? { PayQLBinary.path }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `payql serve --port 0` on `databaseURL` (already migrated) and waits for its "listening" line.
    static func start(databaseURL: String, sandbox: SandboxServer, extra: [String] = [],
                      environment more: [String: String] = [:]) async throws -> ServeProcess {
        guard let binary else { throw Failure(description: "payql is not built next to the tests (run swift build --build-tests)") }
        let logPath = NSTemporaryDirectory() + "payql-serve-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        let credentials = sandbox.credentials
        let arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--threads", "2", "--database-url", databaseURL, "--migrate", "false",
            "--shutdown-grace", "2", "--log-level", "info",
            "--razorpay-key-id", credentials.razorpayKeyID, "--razorpay-base-url", sandbox.baseURL(for: .razorpay),
            "--cashfree-client-id", credentials.cashfreeClientID, "--cashfree-base-url", sandbox.baseURL(for: .cashfree),
        ] + extra
        var environment = [
            "PATH": "/usr/bin:/bin",
            "PAYQL_RAZORPAY_KEY_SECRET": credentials.razorpayKeySecret,
            "PAYQL_RAZORPAY_WEBHOOK_SECRET": credentials.razorpayWebhookSecret,
            "PAYQL_CASHFREE_CLIENT_SECRET": credentials.cashfreeClientSecret,
            // Used only when `extra` configures Setu (`setuArguments`).
            "PAYQL_SETU_CLIENT_SECRET": credentials.setuSecret,
            "PAYQL_SETU_WEBHOOK_KEY": credentials.setuWebhookKey,
        ]
        environment.merge(more) { _, given in given }
        let process = try ChildProcess(executable: binary, arguments: arguments, environment: environment,
                                       standardOutput: .file(logPath), standardError: .standardOutput)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                guard let json = try? JSONParser.parse(Array(line.utf8)), json["msg"]?.stringValue == "listening",
                      let port = json["port"]?.intValue else { continue }
                return ServeProcess(process: process, baseURL: "http://127.0.0.1:\(port)", logPath: logPath)
            }
            if kill(process.pid, 0) != 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate(signal: SIGKILL)
        _ = process.waitForExit()
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        throw Failure(description: "payql serve did not start: \(log.suffix(2000))")
    }

    /// `extra` arguments wiring Setu to `sandbox` (its secrets come from the environment `start` sets).
    static func setuArguments(_ sandbox: SandboxServer) -> [String] {
        ["--setu-client-id", sandbox.credentials.setuClientID, "--setu-partner-id", sandbox.credentials.setuPartnerID,
         "--setu-base-url", sandbox.baseURL(for: .setu)]
    }

    /// SIGTERM, then waits for the exit (off the cooperative pool); the exit status.
    func stop() async -> Int32 {
        process.terminate()
        let process = self.process
        let status = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: process.waitForExit()) }
        }
        try? FileManager.default.removeItem(atPath: logPath)
        return status
    }

    /// What the process logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
