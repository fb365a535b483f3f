import Foundation
import GraphQLHTTP
import Metrics
import PaymentsCore
import Providers
import Support

/// Recent provider calls, for `providers { health }` and for routing: the last `window` calls
/// per provider within `horizon` (the contract's "last 5 minutes"; bounded memory), their
/// success rate and p99 latency. A provider whose recent calls all failed is DOWN; one with
/// failures is DEGRADED; none observed recently is UNKNOWN. Only failures that say the
/// provider is unwell count (5xx, timeouts, unreachable, throttling, unreadable answers) — a
/// refused request is the caller's mistake.
///
/// **Circuit breaker.** A DOWN provider gets no routed creates (its circuit is open) until
/// `cooldown` has passed since its last failure. Then the circuit is half-open: the next
/// routed `createOrder` that claims the trial (``routingHealth(_:claimingTrial:)``) may send
/// it there, and every other request still sees DOWN until that trial's call is recorded (a
/// success closes the circuit, a failure opens it for another `cooldown`) or, if the trial
/// never calls it, until another `cooldown` passes. So an outage costs one trial per
/// `cooldown`, and a provider that comes back is used again within about `cooldown` without
/// a restart. Reads (syncs, the reconciler) are never held back: they are recorded too, and
/// one that succeeds closes the circuit as well.
final class ProviderHealth: Sendable {
    private struct Sample {
        var at: ContinuousClock.Instant
        var milliseconds: Double
        var healthy: Bool
    }

    private struct Series {
        var samples: [Sample] = []
        var next = 0
        var lastError: String?
        /// When the last unwell call was recorded.
        var lastUnwellAt: ContinuousClock.Instant?
        /// When a routed create claimed the half-open circuit's one trial (cleared by the next recorded call).
        var trialClaimedAt: ContinuousClock.Instant?
    }

    /// Calls remembered per provider.
    let window: Int
    /// How far back calls count.
    let horizon: Duration
    /// How long a DOWN provider's circuit stays open after its last failure.
    let cooldown: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let series = Locked<[ProviderName: Series]>([:])
    /// Where every call is also counted for `/metrics`, once attached.
    private let metrics = Locked<(requests: Counter, latency: Histogram)?>(nil)

    init(window: Int = 200, horizon: Duration = .seconds(300), cooldown: Duration = .seconds(30),
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.window = max(1, window)
        self.horizon = horizon
        self.cooldown = cooldown
        self.now = now
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
        let at = now()
        let sample = Sample(at: at, milliseconds: milliseconds, healthy: !unwell)
        series.withLock { all in
            var entry = all[call.provider] ?? Series()
            if entry.samples.count < window { entry.samples.append(sample) } else { entry.samples[entry.next] = sample }
            entry.next = (entry.next + 1) % window
            if unwell, let failure = call.failure {
                entry.lastError = "\(call.operation): \(failure.label)"
                entry.lastUnwellAt = at
            }
            entry.trialClaimedAt = nil
            all[call.provider] = entry
        }
    }

    /// What `ProviderHealth` shows for `provider`.
    struct Snapshot: Sendable {
        var status: String
        var successRate: Double?
        var p99Milliseconds: Int?
        var lastError: String?
        /// Routed creates are held back from it now (DOWN, and no trial may start yet).
        var circuitOpen: Bool
    }

    func snapshot(_ provider: ProviderName) -> Snapshot {
        let at = now()
        return series.withLock { all in snapshot(all[provider], at: at) }
    }

    /// The health routing uses for `provider`: its status, except that a DOWN provider whose
    /// circuit is half-open reads DEGRADED once — for the request that claims the trial
    /// (`claimingTrial`, a routed `createOrder`) — and DOWN for everyone else until the trial ends.
    /// `routingExplain` does not claim: it reports what the next order would see.
    func routingHealth(_ provider: ProviderName, claimingTrial: Bool) -> String {
        let at = now()
        return series.withLock { all in
            // Every routed createOrder asks this of every provider: counts only, no latency sort.
            let current = standing(all[provider], at: at)
            guard current.status == "DOWN", !current.circuitOpen, claimingTrial else { return current.status }
            all[provider]?.trialClaimedAt = at
            return "DEGRADED"
        }
    }

    /// Status, circuit and success rate of `entry`'s calls within the horizon, at `at`.
    private func standing(_ entry: Series?, at: ContinuousClock.Instant) -> (status: String, circuitOpen: Bool, rate: Double?) {
        let since = at - horizon
        var recent = 0
        var healthy = 0
        for sample in entry?.samples ?? [] where sample.at >= since {
            recent += 1
            if sample.healthy { healthy += 1 }
        }
        guard let entry, recent > 0 else { return ("UNKNOWN", false, nil) }
        let rate = Double(healthy) / Double(recent)
        let status = healthy == 0 ? "DOWN" : rate < 0.95 ? "DEGRADED" : "UP"
        var open = false
        if status == "DOWN" {
            let coolingDown = entry.lastUnwellAt.map { at - $0 < cooldown } ?? false
            let trialRunning = entry.trialClaimedAt.map { at - $0 < cooldown } ?? false
            open = coolingDown || trialRunning
        }
        return (status, open, rate)
    }

    /// `entry`'s calls within the horizon, summarised at `at` (with the p99 latency).
    private func snapshot(_ entry: Series?, at: ContinuousClock.Instant) -> Snapshot {
        let current = standing(entry, at: at)
        guard let entry, let rate = current.rate else {
            return Snapshot(status: current.status, successRate: nil, p99Milliseconds: nil, lastError: nil, circuitOpen: false)
        }
        let since = at - horizon
        let sorted = entry.samples.filter { $0.at >= since }.map(\.milliseconds).sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)
        let p99 = sorted[max(0, index)]
        return Snapshot(status: current.status, successRate: (rate * 1000).rounded() / 1000, p99Milliseconds: Int(min(p99.rounded(.up), 1e9)),
                        lastError: entry.lastError, circuitOpen: current.circuitOpen)
    }
}
