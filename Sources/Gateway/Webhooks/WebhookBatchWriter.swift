import Crypto
import Foundation
import PaymentsCore
import Postgres
import Providers

/// What applying one event linked its row to (written for the whole batch at once).
struct AppliedWebhook: Sendable, Equatable {
    /// The stored outcome: APPLIED, UNMATCHED or IGNORED.
    var outcome: String
    /// The order the event was matched to.
    var orderID: UUID?
    /// The payment it recorded (or its refund's payment).
    var paymentID: UUID?
    /// The refund it moved.
    var refundID: UUID?

    /// An outcome and its links.
    init(outcome: String, orderID: UUID? = nil, paymentID: UUID? = nil, refundID: UUID? = nil) {
        self.outcome = outcome
        self.orderID = orderID
        self.paymentID = paymentID
        self.refundID = refundID
    }
}

/// Applies a batch of authentic deliveries, in arrival order, in one transaction: each is stored
/// once (a delivery whose event id or body hash is already stored — before, or earlier in the same
/// batch — is a duplicate: counted, nothing applied), and its effect is applied with the status rules
/// of a delivery alone (``WebhookService/apply(_:eventRowID:locks:on:)``).
///
/// Statements per batch rather than per delivery: one INSERT for every row, one read locking every
/// order and one every payment (``WebhookLocks``), one UPDATE for every outcome, one COMMIT; only
/// what each delivery itself changes (its payment, timeline, order) is written per delivery.
///
/// A failure of one delivery must not fail the others: when the batch's transaction fails, each
/// delivery is written again alone, in order, and only the one that fails alone reports the error
/// (its delivery then stored nothing: the provider retries it).
struct WebhookBatchWriter: Sendable {
    let pool: PostgresPool

    /// One result per delivery, in order: its outcome once committed, or the error that rolled it back.
    func write(_ batch: [WebhookDelivery]) async -> [Result<WebhookService.Outcome, any Error>] {
        do {
            let outcomes = try await pool.withTransaction { connection in try await Self.apply(batch, on: connection) }
            return outcomes.map { .success($0) }
        } catch {
            guard batch.count > 1 else { return [.failure(error)] }
            var results: [Result<WebhookService.Outcome, any Error>] = []
            results.reserveCapacity(batch.count)
            for delivery in batch { results += await write([delivery]) }
            return results
        }
    }

    /// The batch's statements, inside its transaction.
    static func apply(_ batch: [WebhookDelivery], on connection: PostgresConnection) async throws -> [WebhookService.Outcome] {
        let rows = try await insert(batch, on: connection)
        var outcomes = [WebhookService.Outcome](repeating: .duplicate, count: batch.count)
        var fresh: [(index: Int, row: UUID)] = []
        for (index, delivery) in batch.enumerated() {
            if let row = rows[index] {
                fresh.append((index, row))
            } else {
                _ = try await connection.query("""
                    UPDATE webhook_events SET deliveries = deliveries + 1
                    WHERE provider = \(delivery.event.provider.rawValue) AND (event_id = \(delivery.event.eventID) OR body_hash = \(delivery.bodyHash))
                    """)
            }
        }
        guard !fresh.isEmpty else { return outcomes }
        var locks = WebhookLocks()
        try await locks.prefetch(fresh.map { batch[$0.index].event }, on: connection)
        var applied: [(row: UUID, AppliedWebhook)] = fresh.map { ($0.row, AppliedWebhook(outcome: "PROCESSING")) }
        for wave in waves(fresh.map { batch[$0.index].event }) {
            if wave.count == 1, let only = wave.first {
                let (index, row) = fresh[only]
                applied[only].1 = try await applyOne(batch[index], row: row, locks: &locks, on: connection)
                continue
            }
            // Deliveries of other orders and payments, applied side by side: their statements share the
            // connection's pipeline (one round trip for the wave instead of one per delivery).
            let results = try await withThrowingTaskGroup(of: (Int, AppliedWebhook, WebhookLocks).self) { group in
                for position in wave {
                    let (index, row) = fresh[position]
                    let delivery = batch[index]
                    let fork = locks.fork()
                    group.addTask {
                        var mine = fork
                        let result = try await applyOne(delivery, row: row, locks: &mine, on: connection)
                        return (position, result, mine)
                    }
                }
                var all: [(Int, AppliedWebhook, WebhookLocks)] = []
                for try await result in group { all.append(result) }
                return all
            }
            for (position, result, fork) in results {
                applied[position].1 = result
                locks.absorb(fork, appliedFor: batch[fresh[position].index].event)
            }
        }
        for (position, (index, _)) in fresh.enumerated() { outcomes[index] = .accepted(applied[position].1.outcome) }
        try await record(applied, on: connection)
        return outcomes
    }

    /// One delivery's effect.
    private static func applyOne(_ delivery: WebhookDelivery, row: UUID, locks: inout WebhookLocks,
                                 on connection: PostgresConnection) async throws -> AppliedWebhook {
        guard delivery.event.provider != .setu else {
            // Bill payments: their own tables (and they read the body again); what they change is not in `locks`.
            let outcome = try await BillPayWebhooks.apply(delivery.event, body: delivery.body, eventRowID: row, on: connection)
            locks.forgetPayments()
            return AppliedWebhook(outcome: outcome)
        }
        return try await WebhookService.apply(delivery.event, eventRowID: row, locks: &locks, on: connection)
    }

    /// The deliveries (positions in `events`) in waves that may be applied side by side: a delivery
    /// goes after every earlier one of its order or payment (so each order sees its events in arrival
    /// order), and refunds and Setu's events — which change rows beyond their own order's — go alone,
    /// after everything before them.
    static func waves(_ events: [WebhookEvent]) -> [[Int]] {
        var waves: [[Int]] = []
        var lastWave: [String: Int] = [:]
        var floor = 0
        for (position, event) in events.enumerated() {
            let alone = event.provider == .setu || event.refundID != nil || event.refundReference != nil
            var keys: [String] = []
            if let order = event.orderID { keys.append("order\u{0}\(event.provider.rawValue)\u{0}\(order)") }
            if let payment = event.paymentID { keys.append("payment\u{0}\(event.provider.rawValue)\u{0}\(payment)") }
            var wave = alone ? waves.count : floor
            for key in keys { if let earlier = lastWave[key] { wave = max(wave, earlier + 1) } }
            if wave == waves.count { waves.append([]) }
            waves[wave].append(position)
            for key in keys { lastWave[key] = wave }
            if alone { floor = wave + 1 }
        }
        return waves
    }

    /// Inserts every delivery (PROCESSING) in one statement; the row id of each one stored now, nil
    /// for each duplicate. Rows go in in arrival order, so of two equal deliveries the first is stored,
    /// and each gets its own `received_at` (the clock, not the transaction's start), so the log keeps that order.
    private static func insert(_ batch: [WebhookDelivery], on connection: PostgresConnection) async throws -> [UUID?] {
        let hashes = batch.map { Encoding.hex($0.bodyHash) }
        let inserted = try await connection.query("""
            INSERT INTO webhook_events (provider, event_id, event_type, payload, body_hash, outcome, received_at)
            SELECT provider, event_id, event_type, payload::jsonb, decode(body_hash, 'hex'), 'PROCESSING', clock_timestamp()
            FROM unnest(\(batch.map(\.event.provider.rawValue))::text[], \(batch.map(\.event.eventID))::text[],
                        \(batch.map(\.event.type))::text[], \(batch.map(\.payload.text))::text[], \(hashes)::text[])
                 WITH ORDINALITY AS delivery (provider, event_id, event_type, payload, body_hash, n)
            ORDER BY n
            ON CONFLICT DO NOTHING
            RETURNING id, provider, event_id, encode(body_hash, 'hex')
            """).decode((UUID, String, String, String).self)
        // Match each stored row to the first delivery with its provider, event id and body hash.
        var stored: [StoredKey: UUID] = [:]
        for (id, provider, eventID, hash) in inserted { stored[StoredKey(provider: provider, eventID: eventID, hash: hash)] = id }
        var rows: [UUID?] = []
        rows.reserveCapacity(batch.count)
        for (delivery, hash) in zip(batch, hashes) {
            let key = StoredKey(provider: delivery.event.provider.rawValue, eventID: delivery.event.eventID, hash: hash)
            rows.append(stored.removeValue(forKey: key))
        }
        return rows
    }

    /// What identifies a stored row among the batch's deliveries.
    private struct StoredKey: Hashable {
        var provider: String
        var eventID: String
        var hash: String
    }

    /// Every applied delivery's outcome and links, in one statement.
    private static func record(_ applied: [(row: UUID, AppliedWebhook)], on connection: PostgresConnection) async throws {
        func text(_ id: UUID?) -> String { id?.uuidString ?? "" }
        _ = try await connection.query("""
            UPDATE webhook_events AS event
            SET outcome = applied.outcome, processed_at = now(),
                order_id = coalesce(nullif(applied.order_id, '')::uuid, event.order_id),
                payment_id = coalesce(nullif(applied.payment_id, '')::uuid, event.payment_id),
                refund_id = coalesce(nullif(applied.refund_id, '')::uuid, event.refund_id)
            FROM unnest(\(applied.map { $0.row.uuidString })::text[], \(applied.map(\.1.outcome))::text[],
                        \(applied.map { text($0.1.orderID) })::text[], \(applied.map { text($0.1.paymentID) })::text[],
                        \(applied.map { text($0.1.refundID) })::text[])
                 AS applied (id, outcome, order_id, payment_id, refund_id)
            WHERE event.id = applied.id::uuid
            """)
    }
}
