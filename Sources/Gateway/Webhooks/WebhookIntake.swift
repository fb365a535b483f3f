import Foundation
import Postgres
import Providers
import Support

/// One authentic delivery, verified and parsed, on its way to its transaction.
struct WebhookDelivery: Sendable {
    /// The normalised event.
    var event: WebhookEvent
    /// The raw body (Setu's events are read from it again).
    var body: [UInt8]
    /// SHA-256 of the raw body: the second de-duplication key.
    var bodyHash: Data
    /// The body as stored for ops (``WebhookService/redactedPayload(_:provider:)``).
    var payload: PostgresJSONB
}

/// Group commit for provider webhooks: deliveries that arrive while a batch is being written wait
/// and are then written together, in arrival order, in one transaction (``WebhookBatchWriter``).
/// Each caller is answered only after the transaction holding its delivery committed, so an
/// acknowledged delivery is durable, and a crash before the commit leaves nothing acknowledged.
/// The bookkeeping is ``WebhookIntakeState``; this type performs its actions.
final class WebhookIntake: Sendable {
    /// A delivery and the caller waiting for its outcome.
    struct Pending: Sendable {
        let delivery: WebhookDelivery
        let continuation: CheckedContinuation<WebhookService.Outcome, any Error>
    }

    private let state: Locked<WebhookIntakeState<Pending>>
    private let pool: PostgresPool
    private let writer: WebhookBatchWriter

    /// `maxBatch`: the most deliveries one transaction carries; `writers`: batches written at once.
    init(pool: PostgresPool, writer: WebhookBatchWriter, maxBatch: Int = 64, writers: Int = 1) {
        self.pool = pool
        self.writer = writer
        state = Locked(WebhookIntakeState(maxBatch: maxBatch, maxWriters: writers))
    }

    /// Applies `delivery` (with whatever else is waiting) and returns its outcome once committed.
    /// Throws what made its transaction fail; then nothing of it was stored.
    func submit(_ delivery: WebhookDelivery) async throws -> WebhookService.Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let action = state.withLock { $0.submitted(Pending(delivery: delivery, continuation: continuation)) }
            if case .write(let batch) = action { startWriter(with: batch) }
        }
    }

    /// A writer: writes `batch`, answers its callers, then takes the next batch until none waits.
    /// It runs on the pool's I/O executor (it mostly waits for PostgreSQL) and in a task of its own,
    /// so a caller's cancellation (its client hung up) cannot abort a transaction that carries others.
    private func startWriter(with batch: [Pending]) {
        let writer = writer
        Task(executorPreference: pool.taskExecutor) { [self] in
            var batch = batch
            while true {
                let results = await writer.write(batch.map(\.delivery))
                for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
                guard case .write(let next) = state.withLock({ $0.batchFinished() }) else { return }
                batch = next
            }
        }
    }
}
