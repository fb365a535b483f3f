import Foundation
import Postgres

/// The outbox's SQL for workers: claiming due messages so that any number of workers (in one
/// process or many) share them with none taken twice, and recording each attempt's end.
///
/// A claim is a lease: in one statement, due rows are locked with `FOR UPDATE SKIP LOCKED`
/// (rows another worker is claiming are skipped, not waited for), their `next_attempt_at`
/// moved to the lease's end and a fresh `claim_token` written. No other worker finds them due
/// until the lease ends; a result is written only while the row still carries the token, so a
/// worker whose lease ran out (it hung, or its process died) cannot overwrite a newer claim.
/// A row waits while an earlier PENDING row of the same (kind, object) exists: in order per object.
struct OutboxStore: Sendable {
    let pool: PostgresPool

    /// One claimed message and its claim.
    struct Claim: Sendable {
        var message: OutboxMessage
        var token: UUID
        /// The give-up horizon counts from here (enqueue, or the last redelivery request).
        var retrySince: PostgresTimestamp
    }

    /// Claims up to `limit` messages of `kinds` due at `now`, oldest due first, each the earliest
    /// PENDING one of its (kind, object).
    func claim(kinds: [OutboxKind], now: PostgresTimestamp, leaseEnd: PostgresTimestamp, limit: Int) async throws -> [Claim] {
        guard !kinds.isEmpty else { return [] }
        let token = UUID()
        let rows = try await pool.query("""
            WITH due AS (
                -- The due test stays on the locked rows: a row another worker claimed meanwhile is
                -- re-checked once locked (its new next_attempt_at is the lease's end) and skipped.
                SELECT m.id AS due_id FROM outbox m
                WHERE m.state = 'PENDING' AND m.next_attempt_at <= \(now) AND m.kind = ANY(\(kinds.map(\.rawValue)))
                  AND NOT EXISTS (SELECT 1 FROM outbox earlier
                                  WHERE earlier.kind = m.kind AND earlier.object_id = m.object_id
                                    AND earlier.state = 'PENDING' AND earlier.id < m.id)
                ORDER BY m.next_attempt_at, m.id
                LIMIT \(Int64(limit))
                FOR UPDATE OF m SKIP LOCKED
            )
            UPDATE outbox SET next_attempt_at = \(leaseEnd), attempts = attempts + 1, claim_token = \(token), updated_at = now()
            FROM due WHERE outbox.id = due.due_id
            RETURNING id, uuid, kind, object_type, object_id, order_id, payload, attempts, created_at, retry_since
            """)
        return try rows.map { row in
            let message = OutboxMessage(
                id: try row.decode(UUID.self, at: 1), sequence: try row.decode(Int64.self, at: 0),
                kind: OutboxKind(rawValue: try row.decode(String.self, at: 2)),
                object: OutboxObject(type: try row.decode(String.self, at: 3), id: try row.decode(UUID.self, at: 4)),
                orderID: try row.decode(UUID?.self, at: 5), payload: try row.decode(PostgresJSONB.self, at: 6),
                attempts: Int(try row.decode(Int32.self, at: 7)), createdAt: try row.decode(PostgresTimestamp.self, at: 8))
            return Claim(message: message, token: token, retrySince: try row.decode(PostgresTimestamp.self, at: 9))
        }.sorted { $0.message.sequence < $1.message.sequence }
    }

    /// Records how an attempt ended, if the claim still holds the row; whether it did.
    @discardableResult
    func finish(_ claim: Claim, result: OutboxResult, decision: OutboxPolicy.Decision, now: PostgresTimestamp) async throws -> Bool {
        let error = result.error.map { String($0.prefix(1000)) }
        let code = result.statusCode.map { Int32(clamping: $0) }
        let rows: PostgresRows
        switch decision {
        case .delivered:
            rows = try await pool.query("""
                UPDATE outbox SET state = 'DELIVERED', next_attempt_at = NULL, claim_token = NULL, delivered_at = \(now),
                    last_error = NULL, last_status_code = \(code), target = coalesce(\(result.target), target), updated_at = now()
                WHERE id = \(claim.message.sequence) AND claim_token = \(claim.token) RETURNING id
                """)
        case .retry(let at):
            rows = try await pool.query("""
                UPDATE outbox SET next_attempt_at = \(at), claim_token = NULL, last_error = \(error), last_status_code = \(code),
                    target = coalesce(\(result.target), target), updated_at = now()
                WHERE id = \(claim.message.sequence) AND claim_token = \(claim.token) RETURNING id
                """)
        case .giveUp:
            rows = try await pool.query("""
                UPDATE outbox SET state = 'GIVEN_UP', next_attempt_at = NULL, claim_token = NULL, given_up_at = \(now),
                    last_error = \(error), last_status_code = \(code), target = coalesce(\(result.target), target), updated_at = now()
                WHERE id = \(claim.message.sequence) AND claim_token = \(claim.token) RETURNING id
                """)
        }
        return rows.count == 1
    }

    /// Deletes up to `limit` finished (DELIVERED or GIVEN_UP) messages of `kind` created before
    /// `cutoff`; returns how many. Old rows are found through the (kind, created_at) index, so a
    /// purge reads only what it deletes; a message OPS asked to redeliver is PENDING and stays.
    func purge(kind: OutboxKind, createdBefore cutoff: PostgresTimestamp, limit: Int) async throws -> Int {
        try await pool.query("""
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox
                WHERE kind = \(kind.rawValue) AND created_at < \(cutoff) AND state <> 'PENDING'
                LIMIT \(Int64(limit)))
            """).affectedRows
    }

    /// Asks for a message to be sent again (OPS): a DELIVERED or GIVEN_UP one becomes PENDING, due
    /// now, with a fresh give-up horizon; a PENDING one not being attempted is made due now. Returns
    /// whether a message with this id exists.
    func redeliver(id: UUID, kind: OutboxKind) async throws -> Bool {
        let rows = try await pool.query("""
            UPDATE outbox SET
                state = 'PENDING',
                next_attempt_at = CASE WHEN state = 'PENDING' AND claim_token IS NOT NULL THEN next_attempt_at
                                       WHEN state = 'PENDING' THEN least(next_attempt_at, now()) ELSE now() END,
                retry_since = CASE WHEN state = 'PENDING' THEN retry_since ELSE now() END,
                given_up_at = NULL, updated_at = now()
            WHERE uuid = \(id) AND kind = \(kind.rawValue) RETURNING id
            """)
        return rows.count == 1
    }
}

/// The outbox worker's decisions as pure functions (the I/O is the caller's).
enum OutboxPolicy {
    /// What becomes of a message after an attempt.
    enum Decision: Sendable, Equatable {
        case delivered
        /// Try again at this instant.
        case retry(at: PostgresTimestamp)
        /// Stop: refused, or the give-up horizon has passed.
        case giveUp
    }

    /// The decision after attempt `attempts` ended with `result` at `now`: retries follow the
    /// schedule but never go past `retrySince + giveUpAfter`; an attempt at or after that instant
    /// that fails is the last.
    static func decide(_ result: OutboxResult, attempts: Int, retrySince: PostgresTimestamp, now: PostgresTimestamp,
                       _ configuration: OutboxConfiguration) -> Decision {
        switch result.disposition {
        case .delivered: return .delivered
        case .refused: return .giveUp
        case .retry:
            let horizon = retrySince.adding(configuration.giveUpAfter)
            if now >= horizon { return .giveUp }
            return .retry(at: min(now.adding(configuration.schedule.delay(afterAttempt: attempts)), horizon))
        }
    }
}
