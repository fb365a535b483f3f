#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Gateway
import HTTPClient
import HTTPServer
import JSON
import PaymentsCore

/// `payql serve`'s outbox flags, and the worker they start (docs/api.md, "The outbox").
enum OutboxOptions {
    static let usage = """
                           [--outbox true|false] [--outbox-interval-ms 1000] [--outbox-give-up-hours 24] [--outbox-lease-ms 60000]
                           [--outbox-retention-days 30]  (finished messages older than this are deleted; 0 keeps them)
                           [--merchant-webhook-url URL] [--merchant-webhook-timeout-ms 10000]
    """

    /// Merchant notifications: the URL (flag or `PAYQL_MERCHANT_WEBHOOK_URL`) and the signing secret
    /// (`PAYQL_MERCHANT_WEBHOOK_SECRET`, environment only; required with a URL). Throws usage errors.
    static func merchantWebhooks(_ options: Options) throws -> MerchantWebhookConfiguration {
        let secret = try options.secret("merchant-webhook-secret")
        guard let url = options.string("merchant-webhook-url"), !url.isEmpty else { return MerchantWebhookConfiguration() }
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count <= 2048, !url.contains(where: \.isWhitespace) else {
            throw UsageError("--merchant-webhook-url must be an http:// or https:// URL")
        }
        guard let secret else {
            throw UsageError("--merchant-webhook-url needs PAYQL_MERCHANT_WEBHOOK_SECRET in the environment (the PayQL-Signature key)")
        }
        var configuration = MerchantWebhookConfiguration(url: url, secret: Secret(secret))
        let timeout = try options.int("merchant-webhook-timeout-ms", default: 10_000)
        guard (100...60_000).contains(timeout) else { throw UsageError("--merchant-webhook-timeout-ms must be in 100...60000, got \(timeout)") }
        configuration.timeout = .milliseconds(timeout)
        return configuration
    }

    /// The worker's configuration from the flags; nil with `--outbox false`. Throws usage errors.
    static func configuration(_ options: Options) throws -> OutboxConfiguration? {
        guard try options.bool("outbox", default: true) else { return nil }
        var configuration = OutboxConfiguration()
        let interval = try options.int("outbox-interval-ms", default: 1000)
        guard (10...3_600_000).contains(interval) else { throw UsageError("--outbox-interval-ms must be in 10...3600000, got \(interval)") }
        configuration.interval = .milliseconds(interval)
        let hours = try options.int("outbox-give-up-hours", default: 24)
        guard (1...24 * 30).contains(hours) else { throw UsageError("--outbox-give-up-hours must be in 1...720, got \(hours)") }
        configuration.giveUpAfter = .seconds(hours * 3600)
        // An attempt must end well inside its lease, or a live worker's message could be taken by another.
        let lease = try options.int("outbox-lease-ms", default: 60_000)
        guard (1000...3_600_000).contains(lease) else { throw UsageError("--outbox-lease-ms must be in 1000...3600000, got \(lease)") }
        configuration.lease = .milliseconds(lease)
        configuration.attemptTimeout = min(configuration.attemptTimeout, .milliseconds(lease / 2))
        let days = try options.int("outbox-retention-days", default: 30)
        guard (0...3650).contains(days) else { throw UsageError("--outbox-retention-days must be in 0...3650, got \(days)") }
        // Kept at least as long as a message may still be retried.
        guard days == 0 || days * 24 > hours else {
            throw UsageError("--outbox-retention-days must be longer than --outbox-give-up-hours (or 0 to keep messages)")
        }
        configuration.retention = days == 0 ? nil : .seconds(days * 86_400)
        return configuration
    }

    /// Starts a worker for every kind the gateway handles; retries, give-ups and failures are logged as JSON lines.
    static func start(gateway: Gateway, client: HTTPClient, configuration: OutboxConfiguration, logLevel: LogLevel?) -> OutboxWorker {
        let worker = OutboxWorker(gateway: gateway, client: client, configuration: configuration) { event in
            switch event {
            case .delivered(let id, let kind, let attempts):
                log(logLevel, .debug, "outbox message delivered", [("id", .string(id.uuidString.lowercased())), ("kind", .string(kind.rawValue)),
                                                                   ("attempts", .int(Int64(attempts)))])
            case .retrying(let id, let kind, let attempts, let error, _):
                log(logLevel, .info, "outbox message not delivered; retrying", [
                    ("id", .string(id.uuidString.lowercased())), ("kind", .string(kind.rawValue)), ("attempts", .int(Int64(attempts))),
                    ("error", .string(error)),
                ])
            case .gaveUp(let id, let kind, let attempts, let error):
                log(logLevel, .warning, "outbox message given up", [
                    ("id", .string(id.uuidString.lowercased())), ("kind", .string(kind.rawValue)), ("attempts", .int(Int64(attempts))),
                    ("error", .string(error)),
                ])
            case .failed(let message):
                log(logLevel, .warning, "outbox step failed", [("error", .string(message))])
            case .purged(let count):
                log(logLevel, .info, "outbox messages past the retention deleted", [("count", .int(Int64(count)))])
            case .claimed:
                break
            }
        }
        worker.start()
        return worker
    }

    /// One JSON line on standard output (ids, kinds and error texts; never a secret).
    private static func log(_ minimum: LogLevel?, _ level: LogLevel, _ message: String, _ fields: [(String, JSONValue)]) {
        guard let minimum, level >= minimum else { return }
        var object = JSONObject()
        object.append("level", .string(level.name))
        object.append("msg", .string(message))
        object.append("component", "outbox")
        for (key, value) in fields { object.append(key, value) }
        var line = JSONWriter.write(.object(object))
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}
