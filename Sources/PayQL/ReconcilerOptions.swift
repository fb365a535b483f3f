#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Gateway
import HTTPServer
import JSON

/// `payql serve`'s reconciler flags, and the reconciler they start (docs/api.md, "Reconciliation").
enum ReconcilerOptions {
    static let usage = """
                           [--reconciler true|false] [--reconcile-interval-ms 5000] [--order-expiry-hours 24]
    """

    /// The reconciler's configuration from the flags; nil with `--reconciler false`. Throws usage errors.
    static func configuration(_ options: Options) throws -> ReconcilerConfiguration? {
        guard try options.bool("reconciler", default: true) else { return nil }
        var configuration = ReconcilerConfiguration()
        let interval = try options.int("reconcile-interval-ms", default: 5000)
        guard (10...3_600_000).contains(interval) else { throw UsageError("--reconcile-interval-ms must be in 10...3600000, got \(interval)") }
        configuration.interval = .milliseconds(interval)
        let hours = try options.int("order-expiry-hours", default: 24)
        guard (1...24 * 366).contains(hours) else { throw UsageError("--order-expiry-hours must be in 1...8784, got \(hours)") }
        configuration.defaultOrderLifetime = .seconds(hours * 3600)
        return configuration
    }

    /// Starts a reconciler; its failures and expiries are logged as JSON lines.
    static func start(gateway: Gateway, configuration: ReconcilerConfiguration, logLevel: LogLevel?) -> Reconciler {
        let reconciler = Reconciler(gateway: gateway, configuration: configuration) { event in
            switch event {
            case .failed(let order, let message):
                log(logLevel, .warning, "reconciler step failed", [("order", order.map { .string($0.uuidString.lowercased()) } ?? .null),
                                                                    ("error", .string(message))])
            case .expired(let order):
                log(logLevel, .info, "order expired unreconciled", [("order", .string(order.uuidString.lowercased()))])
            case .claimed, .synced:
                break
            }
        }
        reconciler.start()
        return reconciler
    }

    /// One JSON line on standard output (messages carry ids and error texts, never a secret).
    private static func log(_ minimum: LogLevel?, _ level: LogLevel, _ message: String, _ fields: [(String, JSONValue)]) {
        guard let minimum, level >= minimum else { return }
        var object = JSONObject()
        object.append("level", .string(level.name))
        object.append("msg", .string(message))
        object.append("component", "reconciler")
        for (key, value) in fields { object.append(key, value) }
        var line = JSONWriter.write(.object(object))
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}
