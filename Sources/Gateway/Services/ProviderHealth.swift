import Foundation
import GraphQLHTTP
import Metrics
import PaymentsCore
import Providers
import Support

/// Recent provider calls, for `providers { health }`: the last `window` calls per provider
/// (bounded memory), their success rate and p99 latency. A provider whose last calls all
/// failed is DOWN; one with failures is DEGRADED; none observed is UNKNOWN.
/// Only failures that say the provider is unwell count (5xx, timeouts, unreachable,
/// throttling, unreadable answers) — a refused request is the caller's mistake.
final class ProviderHealth: Sendable {
    private struct Sample {
        var milliseconds: Double
        var healthy: Bool
    }

    private struct Series {
        var samples: [Sample] = []
        var next = 0
        var lastError: String?
    }

    /// Calls remembered per provider.
    let window: Int
    private let series = Locked<[ProviderName: Series]>([:])
    /// Where every call is also counted for `/metrics`, once attached.
    private let metrics = Locked<(requests: Counter, latency: Histogram)?>(nil)

    init(window: Int = 200) {
        self.window = max(1, window)
    }

    /// The observer to put in the adapters' transport settings.
    var observer: ProviderCallObserver {
        ProviderCallObserver { [self] call in record(call) }
    }

    /// Counts every call into `registry` from now on: `payql_provider_requests_total{provider, operation, outcome}`
    /// and `payql_provider_request_duration_seconds{provider, operation}` (docs/api.md, "Providers").
    func attach(_ registry: MetricsRegistry) {
        let requests = registry.counter("payql_provider_requests_total", help: "Provider HTTP requests by provider, operation and outcome.",
                                        labels: ["provider", "operation", "outcome"])
        let latency = registry.histogram("payql_provider_request_duration_seconds", help: "Provider HTTP request latency.",
                                         labels: ["provider", "operation"])
        metrics.withLock { $0 = (requests, latency) }
    }

    func record(_ call: ProviderCall) {
        let (seconds, attoseconds) = call.duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if let sinks = metrics.withLock({ $0 }) {
            sinks.requests.increment([call.provider.rawValue, call.operation, call.failure?.label ?? "ok"])
            sinks.latency.observe(milliseconds / 1000, [call.provider.rawValue, call.operation])
        }
        let unwell = call.failure.map { $0.isTransient || $0 == .malformedResponse } ?? false
        let sample = Sample(milliseconds: milliseconds, healthy: !unwell)
        series.withLock { all in
            var entry = all[call.provider] ?? Series()
            if entry.samples.count < window { entry.samples.append(sample) } else { entry.samples[entry.next] = sample }
            entry.next = (entry.next + 1) % window
            if unwell, let failure = call.failure { entry.lastError = "\(call.operation): \(failure.label)" }
            all[call.provider] = entry
        }
    }

    /// What `ProviderHealth` shows for `provider`.
    struct Snapshot: Sendable {
        var status: String
        var successRate: Double?
        var p99Milliseconds: Int?
        var lastError: String?
    }

    func snapshot(_ provider: ProviderName) -> Snapshot {
        guard let entry = series.withLock({ $0[provider] }), !entry.samples.isEmpty else {
            return Snapshot(status: "UNKNOWN", successRate: nil, p99Milliseconds: nil, lastError: nil)
        }
        let healthy = entry.samples.filter(\.healthy).count
        let rate = Double(healthy) / Double(entry.samples.count)
        let sorted = entry.samples.map(\.milliseconds).sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)
        let p99 = sorted[max(0, index)]
        let status = healthy == 0 ? "DOWN" : rate < 0.95 ? "DEGRADED" : "UP"
        return Snapshot(status: status, successRate: (rate * 1000).rounded() / 1000, p99Milliseconds: Int(min(p99.rounded(.up), 1e9)),
                        lastError: entry.lastError)
    }
}
