public import Foundation
public import Postgres

/// When the reconciler asks a provider again about an order: a list of delays, the
/// n-th used after the n-th attempt, the last repeated (seconds at first, then minutes).
public struct ReconcileSchedule: Sendable, Equatable {
    /// Delay after attempt 1, 2, …; the last one repeats. Never empty.
    public var delays: [Duration]

    /// A schedule from `delays` (an empty list means every 5 minutes).
    public init(delays: [Duration]) {
        self.delays = delays.isEmpty ? [.seconds(300)] : delays
    }

    /// 5 s, 15 s, 30 s, 1 min, 2 min, 5 min, 10 min, then every 30 min.
    public static let standard = ReconcileSchedule(delays: [
        .seconds(5), .seconds(15), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600), .seconds(1800),
    ])

    /// The wait after attempt `attempt` (1-based; 0 and below read as 1).
    public func delay(afterAttempt attempt: Int) -> Duration {
        delays[min(max(attempt, 1), delays.count) - 1]
    }
}

/// How the reconciler works; every value has a documented default (docs/api.md, "Reconciliation").
public struct ReconcilerConfiguration: Sendable {
    /// How often an idle worker looks for due orders. Default 5 s.
    public var interval: Duration = .seconds(5)
    /// Orders claimed per query. Default 50.
    public var batchSize: Int = 50
    /// Orders of one batch re-read at the same time. Default 4.
    public var concurrency: Int = 4
    /// How long a claim holds an order away from other workers (longer than one re-read takes). Default 2 min.
    public var lease: Duration = .seconds(120)
    /// When to ask again after each attempt.
    public var schedule: ReconcileSchedule = .standard
    /// The expiry of an order the provider gives none (Razorpay). Default 24 h.
    public var defaultOrderLifetime: Duration = .seconds(24 * 3600)
    /// How long after its expiry an order is still asked about (late payments). Default 24 h.
    public var graceAfterExpiry: Duration = .seconds(24 * 3600)
    /// An order with no provider order and no reconciliation flag is still being created for this long
    /// (the createOrder call is at the provider); afterwards it is looked up by receipt. Default 60 s.
    public var creationGrace: Duration = .seconds(60)
    /// Now; tests pass a clock they move.
    public var now: @Sendable () -> PostgresTimestamp = { PostgresTimestamp(Date()) }

    /// The defaults.
    public init() {}
}

/// What the reconciler knows about a claimed order before asking anyone.
struct ReconcileCandidate: Sendable, Equatable {
    var status: OrderStatusName
    var needsReconciliation: Bool
    var hasProviderOrder: Bool
    var createdAt: PostgresTimestamp
    var expiresAt: PostgresTimestamp?
    /// Claims so far, this one included.
    var attempts: Int
    /// A refund of the order is PENDING (re-read with the order, whatever the order's status).
    var pendingRefunds: Bool = false
}

/// The reconciler's decisions as pure functions (the I/O is the caller's): whether to ask
/// the provider about a claimed order (and its PENDING refunds), and what to do after its answer.
enum ReconcilePolicy {
    /// Before the re-read.
    enum Before: Sendable, Equatable {
        /// Final and confirmed: never ask again.
        case done
        /// The createOrder call may still be at the provider: look again at this instant.
        case wait(until: PostgresTimestamp)
        /// Ask the provider; `last` when the order is past expiry + grace (this is the final look).
        case sync(last: Bool)
    }

    /// After the re-read.
    enum After: Sendable, Equatable {
        /// Final and confirmed: stop.
        case done
        /// Still open: ask again at this instant.
        case again(at: PostgresTimestamp)
        /// Past expiry + grace and still not final: the order becomes EXPIRED and is not asked about again.
        case expire
    }

    /// The instant after which an order is not asked about any more: its expiry (or creation +
    /// the default lifetime) plus the grace.
    static func deadline(_ order: ReconcileCandidate, _ configuration: ReconcilerConfiguration) -> PostgresTimestamp {
        let expiry = order.expiresAt ?? order.createdAt.adding(configuration.defaultOrderLifetime)
        return expiry.adding(configuration.graceAfterExpiry)
    }

    static func before(_ order: ReconcileCandidate, now: PostgresTimestamp, _ configuration: ReconcilerConfiguration) -> Before {
        if order.status.isFinal && !order.needsReconciliation { return order.pendingRefunds ? .sync(last: false) : .done }
        if !order.hasProviderOrder && !order.needsReconciliation {
            let created = order.createdAt.adding(configuration.creationGrace)
            if now < created { return .wait(until: created) }
        }
        return .sync(last: now >= deadline(order, configuration))
    }

    static func after(_ order: ReconcileCandidate, now: PostgresTimestamp, last: Bool, _ configuration: ReconcilerConfiguration) -> After {
        // A PENDING refund is asked about on the schedule until the provider settles it (refunds take days;
        // the order's expiry does not bound them).
        if order.pendingRefunds { return .again(at: now.adding(configuration.schedule.delay(afterAttempt: order.attempts))) }
        if order.status.isFinal && !order.needsReconciliation { return .done }
        if last { return .expire }
        let next = now.adding(configuration.schedule.delay(afterAttempt: order.attempts))
        return .again(at: min(next, deadline(order, configuration)))
    }
}

extension PostgresTimestamp {
    /// This instant moved by `duration` (saturating).
    func adding(_ duration: Duration) -> PostgresTimestamp {
        let (seconds, attoseconds) = duration.components
        let micros = seconds.multipliedReportingOverflow(by: 1_000_000)
        let delta = micros.overflow ? (seconds < 0 ? Int64.min : Int64.max) : micros.partialValue &+ attoseconds / 1_000_000_000_000
        let sum = microsecondsSinceEpoch.addingReportingOverflow(delta)
        return PostgresTimestamp(microsecondsSinceEpoch: sum.overflow ? (delta < 0 ? Int64.min : Int64.max) : sum.partialValue)
    }
}
