public import Foundation
public import Postgres
import Support

/// Something an outbox worker did, for the caller's log and for tests (no secret in any of them).
public enum OutboxEvent: Sendable {
    /// Messages claimed by one query (their ids).
    case claimed([UUID])
    /// A message was delivered.
    case delivered(id: UUID, kind: OutboxKind, attempts: Int)
    /// An attempt failed; the message is tried again at `at`.
    case retrying(id: UUID, kind: OutboxKind, attempts: Int, error: String, at: PostgresTimestamp)
    /// A message was refused or ran out of time: it is not tried again (unless OPS asks).
    case gaveUp(id: UUID, kind: OutboxKind, attempts: Int, error: String)
    /// A database step failed; the claimed messages are tried again when their lease ends.
    case failed(message: String)
    /// Finished messages past the retention were deleted (how many).
    case purged(Int)
}

/// Delivers the outbox (``Outbox``): claims due messages (any number of workers, in one process
/// or many, share them and none is claimed twice), calls the handler of each message's kind with
/// a deadline, and records the result: delivered, retried on the schedule (``OutboxSchedule``),
/// or given up (refused, or past the horizon). Messages of one kind about one object go in order.
///
/// Delivery is at least once: a worker killed after its handler delivered but before the result
/// was written leaves the message claimed; when the lease ends another worker sends it again.
/// Receivers deduplicate by the message id. Owns one task between ``start()`` and ``shutdown()``.
public final class OutboxWorker: Sendable {
    private let store: OutboxStore
    private let handlers: [OutboxKind: OutboxHandler]
    private let configuration: OutboxConfiguration
    private let report: @Sendable (OutboxEvent) -> Void
    private let loop = WorkerLoop()
    /// When this worker last purged messages past the retention.
    private let lastPurge = Locked<ContinuousClock.Instant?>(nil)

    /// A worker over `pool`'s outbox delivering the kinds of `handlers` (one per kind; a later one
    /// for a kind replaces an earlier). Messages of other kinds are left to workers that handle them.
    /// `report` hears what it does (log it; it carries no secret).
    public init(pool: PostgresPool, handlers: [OutboxHandler], configuration: OutboxConfiguration = .init(),
                report: @escaping @Sendable (OutboxEvent) -> Void = { _ in }) {
        store = OutboxStore(pool: pool)
        var byKind: [OutboxKind: OutboxHandler] = [:]
        for handler in handlers { byKind[handler.kind] = handler }
        self.handlers = byKind
        self.configuration = configuration
        self.report = report
    }

    /// The kinds this worker delivers.
    public var kinds: [OutboxKind] { handlers.keys.sorted { $0.rawValue < $1.rawValue } }

    /// Starts the background loop (once; later calls do nothing).
    public func start() {
        loop.start(interval: configuration.interval) { [self] in
            await purgeIfDue()
            do {
                // Something was done: look again at once (the next message of an object may be due now).
                return try await runOnce() > 0
            } catch {
                if !loop.isStopping { report(.failed(message: "claiming due messages: \(error)")) }
                return false
            }
        }
    }

    /// Stops: nothing more is claimed; attempts in flight get until their deadline (at most
    /// `attemptTimeout`) to finish and be recorded. Returns once the loop has ended.
    public func shutdown() async {
        await loop.shutdown(cancellingWork: false)
    }

    /// Purges once every `purgeInterval` (the first time at the first step).
    private func purgeIfDue() async {
        guard configuration.retention != nil else { return }
        let now = ContinuousClock.now
        let due = lastPurge.withLock { last -> Bool in
            if let last, now - last < configuration.purgeInterval { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            let deleted = try await purgeOnce()
            if deleted > 0 { report(.purged(deleted)) }
        } catch {
            if !loop.isStopping { report(.failed(message: "purging old messages: \(error)")) }
        }
    }

    /// Deletes this worker's kinds' finished messages created more than `retention` ago, in
    /// batches of 1,000 (at most 20 per kind, so one purge stays short; the next takes the rest);
    /// returns how many. Nothing without a retention.
    @discardableResult
    public func purgeOnce() async throws -> Int {
        guard let retention = configuration.retention else { return 0 }
        let cutoff = configuration.now().adding(.zero - retention)
        var deleted = 0
        for kind in kinds {
            for _ in 0..<20 {
                let batch = try await withDeadline(configuration.databaseTimeout) { [store] in
                    try await store.purge(kind: kind, createdBefore: cutoff, limit: 1000)
                }
                deleted += batch
                if batch < 1000 { break }
            }
        }
        return deleted
    }

    /// Claims the messages due now (one batch) and attempts each; returns how many were claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        let now = configuration.now()
        let claims = try await withDeadline(configuration.databaseTimeout) { [store, kinds, configuration] in
            try await store.claim(kinds: kinds, now: now, leaseEnd: now.adding(configuration.lease), limit: max(1, configuration.batchSize))
        }
        guard !claims.isEmpty else { return 0 }
        report(.claimed(claims.map(\.message.id)))
        await WorkerLoop.forEach(claims, width: configuration.concurrency) { [self] claim in await attempt(claim) }
        return claims.count
    }

    private func attempt(_ claim: OutboxStore.Claim) async {
        let message = claim.message
        let result: OutboxResult
        if let handler = handlers[message.kind] {
            let deadline = ContinuousClock.now + configuration.attemptTimeout
            result = await Self.deliver(message, with: handler, deadline: deadline, timeout: configuration.attemptTimeout)
        } else {
            result = .retry("no handler for \(message.kind)")   // unreachable: only handled kinds are claimed
        }
        let now = configuration.now()
        let decision = OutboxPolicy.decide(result, attempts: message.attempts, retrySince: claim.retrySince, now: now, configuration)
        do {
            let recorded = try await withDeadline(configuration.databaseTimeout) { [store] in
                try await store.finish(claim, result: result, decision: decision, now: now)
            }
            guard recorded else {
                report(.failed(message: "message \(message.id): the claim ran out before the result was written"))
                return
            }
        } catch {
            report(.failed(message: "recording message \(message.id): \(error)"))
            return
        }
        switch decision {
        case .delivered: report(.delivered(id: message.id, kind: message.kind, attempts: message.attempts))
        case .retry(let at):
            report(.retrying(id: message.id, kind: message.kind, attempts: message.attempts, error: result.error ?? "", at: at))
        case .giveUp: report(.gaveUp(id: message.id, kind: message.kind, attempts: message.attempts, error: result.error ?? ""))
        }
    }

    /// Runs the handler, cancelled at `timeout` (a retry) if it has not answered by then.
    private static func deliver(_ message: OutboxMessage, with handler: OutboxHandler, deadline: ContinuousClock.Instant,
                                timeout: Duration) async -> OutboxResult {
        await withTaskGroup(of: OutboxResult?.self) { group in
            group.addTask { await handler.deliver(message, deadline) }
            group.addTask {
                try? await Task.sleep(until: deadline + .milliseconds(50))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .retry("no answer within \(timeout)")
        }
    }
}

/// A database step's wait, bounded: `body` is cancelled and `TimedOut` thrown after `timeout`.
struct TimedOut: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no answer from the database within \(timeout)" }
}

func withDeadline<Result: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw TimedOut(timeout: timeout) }
        return result
    }
}
