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
        // Orders and payments are locked and read first, so each event row can be stored once with the
        // outcome and links its delivery will have (``predictions(_:locks:)``) rather than stored as
        // PROCESSING and updated after (a second version of every row, every index entry written twice).
        var locks = WebhookLocks()
        try await locks.prefetch(batch.map(\.event), on: connection)
        let predicted = predictions(batch.map(\.event), locks: locks)
        let rows = try await insert(batch, predicted: predicted.map(\.applied), on: connection)
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
        var applied: [(row: UUID, AppliedWebhook)] = fresh.map { ($0.row, AppliedWebhook(outcome: "PROCESSING")) }
        for wave in waves(fresh.map { batch[$0.index].event }) {
            if wave.count == 1, let only = wave.first {
                let (index, row) = fresh[only]
                applied[only].1 = try await applyOne(batch[index], row: row, newPaymentID: predicted[index].newPaymentID, locks: &locks,
                                                     on: connection)
                continue
            }
            // Deliveries of other orders and payments: the payments the batch's locks already hold (or know to be
            // new) are recorded in one statement for the wave (``PaymentStore/record(_:verification:source:on:)``),
            // the rest applied side by side; what follows each (an order that moves) shares the connection's pipeline.
            let together = recordedTogether(wave.map { position in
                let (index, row) = fresh[position]
                return (position, batch[index].event, row, predicted[index].newPaymentID)
            }, locks: locks)
            var recorded: [Int: (PaymentStore.BatchedPayment, PaymentStore.RecordedPayment)] = [:]
            if !together.isEmpty {
                let results = try await PaymentStore.record(together.map(\.batched), verification: .signedWebhook, source: "WEBHOOK",
                                                            on: connection)
                for (item, result) in zip(together, results) { recorded[item.position] = (item.batched, result) }
            }
            let results = try await withThrowingTaskGroup(of: (Int, AppliedWebhook, WebhookLocks).self) { group in
                for position in wave {
                    let (index, row) = fresh[position]
                    let delivery = batch[index]
                    let newPaymentID = predicted[index].newPaymentID
                    let fork = locks.fork(for: delivery.event)
                    let done = recorded[position]
                    group.addTask {
                        var mine = fork
                        let result = if let done {
                            try await WebhookService.apply(delivery.event, eventRowID: row, batched: done.0, recorded: done.1,
                                                           locks: &mine, on: connection)
                        } else {
                            try await applyOne(delivery, row: row, newPaymentID: newPaymentID, locks: &mine, on: connection)
                        }
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
        // Written again only where applying gave something else than the row holds: events not predicted
        // (refunds, Setu's) and the rare prediction applying proved wrong (it is then corrected here).
        var corrections: [Correction] = []
        for (position, (index, row)) in fresh.enumerated() where predicted[index].applied != applied[position].1 {
            corrections.append(Correction(row: row, applied: applied[position].1, exact: predicted[index].applied != nil))
        }
        if !corrections.isEmpty { try await record(corrections, on: connection) }
        return outcomes
    }

    /// What a delivery's event row is stored with before it is applied.
    struct Prediction: Sendable, Equatable {
        /// The outcome and links applying will give; nil: not predicted (stored PROCESSING, written after).
        var applied: AppliedWebhook?
        /// The id the payment the delivery creates gets (nil: it creates none, or it is not predicted).
        var newPaymentID: UUID?
    }

    /// The outcome and links each event will have once applied, from the orders and payments `locks`
    /// holds (locked by this transaction, so they cannot change behind it), in arrival order: an event
    /// without an order id is IGNORED, one whose order is absent UNMATCHED, a payment event APPLIED and
    /// linked to its order and to its payment — the one stored, or the one an earlier delivery of the
    /// batch creates, or a new one whose id is chosen here (`newPaymentID`, which applying then uses).
    /// Refunds and Setu's events (whose effect reaches other tables) and events whose rows were not
    /// prefetched are not predicted. A prediction is checked against what applying gave, so a wrong one
    /// costs an UPDATE, never a wrong row; the link to a payment inserted later in the transaction is
    /// checked at commit (migration 0016 defers `webhook_events_payment_id_fkey`).
    static func predictions(_ events: [WebhookEvent], locks: WebhookLocks) -> [Prediction] {
        var created: [WebhookLocks.Key: UUID] = [:]
        return events.map { event in
            guard event.provider != .setu, event.refundID == nil, event.refundReference == nil else { return Prediction() }
            guard let providerOrderID = event.orderID else { return Prediction(applied: AppliedWebhook(outcome: "IGNORED")) }
            guard case .some(let known) = locks.known(order: providerOrderID, provider: event.provider) else { return Prediction() }
            guard let order = known else { return Prediction(applied: AppliedWebhook(outcome: "UNMATCHED")) }
            var applied = AppliedWebhook(outcome: "APPLIED", orderID: order.id)
            var newPaymentID: UUID?
            if let paymentID = event.paymentID, event.paymentStatus != nil, event.amount != nil {
                switch locks.known(payment: paymentID, provider: event.provider) {
                case .some(.some(let existing)):
                    applied.paymentID = existing.id
                case .some(.none):
                    let key = WebhookLocks.Key(provider: event.provider, id: paymentID)
                    let id = created[key] ?? UUID()
                    created[key] = id
                    newPaymentID = id
                    applied.paymentID = id
                case .none:
                    return Prediction()
                }
            }
            return Prediction(applied: applied, newPaymentID: newPaymentID)
        }
    }

    /// The deliveries of a wave (`position`, event, event row, the id a payment it creates gets) whose payments
    /// are recorded together, in one statement: payment events whose order `locks` holds and whose payment it
    /// knows (stored, or known to be absent), when there are at least two (one alone goes the single way).
    static func recordedTogether(_ wave: [(position: Int, event: WebhookEvent, row: UUID, newPaymentID: UUID?)],
                                 locks: WebhookLocks) -> [(position: Int, batched: PaymentStore.BatchedPayment)] {
        var together: [(position: Int, batched: PaymentStore.BatchedPayment)] = []
        for delivery in wave {
            if let batched = WebhookService.batchable(delivery.event, eventRowID: delivery.row, newPaymentID: delivery.newPaymentID, locks: locks) {
                together.append((delivery.position, batched))
            }
        }
        return together.count > 1 ? together : []
    }

    /// An applied delivery whose row holds something else (``record(_:on:)``).
    struct Correction: Sendable {
        /// The event row.
        var row: UUID
        /// What applying gave.
        var applied: AppliedWebhook
        /// The row holds a prediction: its links are set to exactly these (else only filled in).
        var exact: Bool
    }

    /// One delivery's effect.
    private static func applyOne(_ delivery: WebhookDelivery, row: UUID, newPaymentID: UUID?, locks: inout WebhookLocks,
                                 on connection: PostgresConnection) async throws -> AppliedWebhook {
        try await WebhookService.apply(delivery.event, body: delivery.body, eventRowID: row, locks: &locks, newPaymentID: newPaymentID,
                                       on: connection)
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

    /// Inserts every delivery in one statement, with its predicted outcome and links (PROCESSING when
    /// not predicted); the row id of each one stored now, nil for each duplicate. Rows go in in arrival
    /// order, so of two equal deliveries the first is stored, and each gets its own `received_at` (the
    /// clock, not the transaction's start), so the log keeps that order.
    private static func insert(_ batch: [WebhookDelivery], predicted: [AppliedWebhook?],
                               on connection: PostgresConnection) async throws -> [UUID?] {
        let hashes = batch.map { Encoding.hex($0.bodyHash) }
        let inserted = try await connection.query("""
            INSERT INTO webhook_events (provider, event_id, event_type, payload, body_hash, outcome, order_id, payment_id, processed_at, received_at)
            SELECT provider, event_id, event_type, payload::jsonb, decode(body_hash, 'hex'), outcome, nullif(order_id, '')::uuid,
                   nullif(payment_id, '')::uuid, CASE WHEN outcome <> 'PROCESSING' THEN now() END, clock_timestamp()
            FROM unnest(\(batch.map(\.event.provider.rawValue))::text[], \(batch.map(\.event.eventID))::text[],
                        \(batch.map(\.event.type))::text[], \(batch.map(\.payload.text))::text[], \(hashes)::text[],
                        \(predicted.map { $0?.outcome ?? "PROCESSING" })::text[], \(predicted.map { text($0?.orderID) })::text[],
                        \(predicted.map { text($0?.paymentID) })::text[])
                 WITH ORDINALITY AS delivery (provider, event_id, event_type, payload, body_hash, outcome, order_id, payment_id, n)
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

    /// An optional id as text for a `text[]` (empty for none: `nullif(…, '')::uuid` reads it back).
    private static func text(_ id: UUID?) -> String { id?.uuidString ?? "" }

    /// What identifies a stored row among the batch's deliveries.
    private struct StoredKey: Hashable {
        var provider: String
        var eventID: String
        var hash: String
    }

    /// The outcome and links of every correction, in one statement: a predicted row's links are set
    /// to what applying gave; a row stored PROCESSING keeps the links its apply wrote itself where it gave none.
    private static func record(_ corrections: [Correction], on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            UPDATE webhook_events AS event
            SET outcome = applied.outcome, processed_at = now(),
                order_id = CASE WHEN applied.exact = 't' THEN nullif(applied.order_id, '')::uuid
                                ELSE coalesce(nullif(applied.order_id, '')::uuid, event.order_id) END,
                payment_id = CASE WHEN applied.exact = 't' THEN nullif(applied.payment_id, '')::uuid
                                  ELSE coalesce(nullif(applied.payment_id, '')::uuid, event.payment_id) END,
                refund_id = CASE WHEN applied.exact = 't' THEN nullif(applied.refund_id, '')::uuid
                                 ELSE coalesce(nullif(applied.refund_id, '')::uuid, event.refund_id) END
            FROM unnest(\(corrections.map { $0.row.uuidString })::text[], \(corrections.map(\.applied.outcome))::text[],
                        \(corrections.map { text($0.applied.orderID) })::text[], \(corrections.map { text($0.applied.paymentID) })::text[],
                        \(corrections.map { text($0.applied.refundID) })::text[], \(corrections.map { $0.exact ? "t" : "f" })::text[])
                 AS applied (id, outcome, order_id, payment_id, refund_id, exact)
            WHERE event.id = applied.id::uuid
            """)
    }
}
