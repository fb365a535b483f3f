import Foundation
import Postgres

/// The reconciler's SQL: claiming due orders so that several workers (in one process or
/// many) share them without re-reading one twice, and scheduling the next look.
///
/// A claim is a lease: in one short transaction, due rows are locked with
/// `FOR UPDATE SKIP LOCKED` (rows another worker is claiming are skipped, not waited
/// for) and their `reconcile_after` moved to the lease's end, so no other worker finds
/// them due until this one is done or has died. The lease's end is also the claim's
/// token: the next look is written only while the row still carries it.
struct ReconcileStore: Sendable {
    let pool: PostgresPool

    /// One claimed order.
    struct Claim: Sendable {
        var order: OrderRecord
        /// Claims so far, this one included.
        var attempts: Int
        /// The lease's end, written into `reconcile_after` by the claim.
        var token: PostgresTimestamp
        /// Whether the order has a PENDING refund (a re-read of the order re-reads it too).
        var pendingRefunds: Bool
    }

    /// Claims up to `limit` orders due at `now`: flagged, not final, or with a PENDING refund older
    /// than `createdBefore` (a younger one may still be at the provider), and either scheduled
    /// (`reconcile_after <= now`) or never scheduled and created before `createdBefore`.
    func claim(now: PostgresTimestamp, createdBefore: PostgresTimestamp, leaseEnd: PostgresTimestamp, limit: Int) async throws -> [Claim] {
        let rows = try await pool.query("""
            WITH due AS (
                -- The due test stays on the outer rows: a row another worker claimed meanwhile is
                -- re-checked once locked (its new reconcile_after is not due) and skipped.
                SELECT id AS due_id FROM orders
                WHERE (reconcile_after <= \(now) OR (reconcile_after IS NULL AND created_at <= \(createdBefore)))
                  AND id IN (
                      -- orders_reconcile_idx: flagged or open orders that are due.
                      SELECT id FROM orders
                      WHERE (needs_reconciliation OR status IN ('CREATED', 'ATTEMPTED', 'PENDING'))
                        AND (reconcile_after <= \(now) OR (reconcile_after IS NULL AND created_at <= \(createdBefore)))
                      UNION
                      -- refunds_pending_idx: orders with a refund the provider has not settled.
                      SELECT order_id FROM refunds WHERE status = 'PENDING' AND created_at <= \(createdBefore))
                ORDER BY coalesce(reconcile_after, created_at)
                LIMIT \(Int64(limit))
                FOR UPDATE SKIP LOCKED
            )
            UPDATE orders SET reconcile_after = \(leaseEnd), reconcile_attempts = reconcile_attempts + 1
            FROM due WHERE orders.id = due.due_id
            RETURNING \(sql: OrderStore.columns), reconcile_attempts,
                EXISTS (SELECT 1 FROM refunds WHERE refunds.order_id = orders.id AND refunds.status = 'PENDING')
            """)
        return try rows.map { row in
            Claim(order: try OrderStore.record(row), attempts: Int(try row.decode(Int32.self, at: 26)), token: leaseEnd,
                  pendingRefunds: try row.decode(Bool.self, at: 27))
        }
    }

    /// Whether the order still has a PENDING refund.
    func hasPendingRefunds(orderID: UUID) async throws -> Bool {
        try await pool.query("SELECT EXISTS (SELECT 1 FROM refunds WHERE order_id = \(orderID) AND status = 'PENDING')").single(Bool.self) ?? false
    }

    /// Schedules the next look (nil: never again), if the claim still holds the row.
    func release(_ claim: Claim, next: PostgresTimestamp?) async throws {
        _ = try await pool.query("""
            UPDATE orders SET reconcile_after = \(next) WHERE id = \(claim.order.id) AND reconcile_after = \(claim.token)
            """)
    }

    /// Flags an order whose creation never finished (its createdOrder call died with the process):
    /// from now on it is looked up by receipt.
    func flagUnfinishedCreation(orderID: UUID) async throws -> OrderRecord? {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE orders SET needs_reconciliation = true, updated_at = now()
                WHERE id = \(orderID) AND provider_order_id IS NULL AND NOT needs_reconciliation
                RETURNING \(sql: OrderStore.columns)
                """)
            guard let row = rows.first else { return nil }
            let record = try OrderStore.record(row)
            try await OrderStore.appendEvent(orderID: orderID, kind: "RECONCILIATION_NEEDED", status: record.status, previous: nil,
                                             providerStatus: nil, source: "RECONCILER",
                                             message: "the creation at the provider never finished; looking the order up by receipt",
                                             on: connection)
            return record
        }
    }

    /// Moves an order that stayed open past expiry + grace to EXPIRED.
    func expire(orderID: UUID) async throws {
        try await pool.withTransaction { connection in
            guard let locked = try await OrderStore.lock(orderID: orderID, on: connection) else { return }
            try await OrderStore.applyStatus(order: locked, proposed: .expired, providerStatus: nil, source: "RECONCILER",
                                             message: "no final status from the provider by expiry + grace", on: connection)
        }
    }
}
