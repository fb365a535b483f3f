import Foundation
import PaymentsCore
import Postgres

/// A UPI collect request as stored (migration 0011).
struct UpiCollectRecord: Sendable, Hashable {
    /// The row id (UpiCollect's global id).
    var id: UUID
    /// The order it pays.
    var orderID: UUID
    /// Always Instamojo today.
    var provider: ProviderName
    /// Instamojo's `payment_id`; nil while the request's outcome is unknown.
    var providerPaymentID: String?
    /// Where the provider said to poll (`status_check_url`).
    var statusURL: String?
    /// "ab***@okaxis".
    var vpaMasked: String
    /// `PENDING`, `SUCCEEDED`, `FAILED` or `EXPIRED`.
    var status: String
    /// The provider's last status code, verbatim.
    var providerStatusCode: String?
    /// The provider's last message.
    var providerMessage: String?
    /// The verified payment, once known.
    var paymentID: UUID?
    var requestedAt: PostgresTimestamp
    var lastCheckedAt: PostgresTimestamp?
    var nextCheckAt: PostgresTimestamp
    /// Upstream status checks made so far.
    var checks: Int
    /// The last status check that failed (not a payment failure).
    var lastCheckError: String?
    var expiresAt: PostgresTimestamp
    var completedAt: PostgresTimestamp?

    /// Whether the collect is still waiting for the customer.
    var isPending: Bool { status == UpiCollectStore.pending }
}

/// `upi_collects` (migration 0011), over `PostgresQuery` binds. Every change of a row a
/// client can see runs `pg_notify('payql_events', 'UpiCollect:<id>')` in its transaction,
/// so a subscriber hears each committed change once.
struct UpiCollectStore: Sendable {
    /// The database.
    let pool: PostgresPool

    static let pending = "PENDING"

    /// The columns every read selects, in ``record(_:)``'s order.
    static let columns: StaticString = """
        id, order_id, provider, provider_payment_id, status_url, vpa_masked, status, provider_status_code, provider_message, \
        payment_id, requested_at, last_checked_at, next_check_at, checks, last_check_error, expires_at, completed_at
        """

    /// A row of ``columns``.
    static func record(_ row: PostgresRow) throws -> UpiCollectRecord {
        let providerText = try row.decode(String.self, at: 2)
        guard let provider = ProviderName(rawValue: providerText) else {
            throw GatewayRequestError.internal("UPI collect with unknown provider \(providerText)")
        }
        return UpiCollectRecord(
            id: try row.decode(UUID.self, at: 0), orderID: try row.decode(UUID.self, at: 1), provider: provider,
            providerPaymentID: try row.decode(String?.self, at: 3), statusURL: try row.decode(String?.self, at: 4),
            vpaMasked: try row.decode(String.self, at: 5), status: try row.decode(String.self, at: 6),
            providerStatusCode: try row.decode(String?.self, at: 7), providerMessage: try row.decode(String?.self, at: 8),
            paymentID: try row.decode(UUID?.self, at: 9), requestedAt: try row.decode(PostgresTimestamp.self, at: 10),
            lastCheckedAt: try row.decode(PostgresTimestamp?.self, at: 11), nextCheckAt: try row.decode(PostgresTimestamp.self, at: 12),
            checks: try row.decode(Int.self, at: 13), lastCheckError: try row.decode(String?.self, at: 14),
            expiresAt: try row.decode(PostgresTimestamp.self, at: 15), completedAt: try row.decode(PostgresTimestamp?.self, at: 16))
    }

    /// Claims the order's one PENDING slot before the provider is called (so two concurrent
    /// requests cannot both send a collect). Nil: the order already has a PENDING collect.
    func insertPending(orderID: UUID, vpaMasked: String, vpaHash: [UInt8]?, lifetimeMilliseconds: Int64) async throws -> UpiCollectRecord? {
        let hash = vpaHash.map { Data($0) }
        let rows = try await pool.query("""
            INSERT INTO upi_collects (order_id, provider, vpa_masked, vpa_hash, expires_at)
            VALUES (\(orderID), 'instamojo', \(vpaMasked), \(hash), now() + \(lifetimeMilliseconds)::float8 * interval '1 millisecond')
            ON CONFLICT (order_id) WHERE status = 'PENDING' DO NOTHING
            RETURNING \(sql: Self.columns)
            """)
        return try rows.first.map(Self.record)
    }

    /// The provider certainly sent nothing: the claimed row goes (nothing was written, as far as the client can tell).
    func deleteUnsent(id: UUID) async throws {
        _ = try await pool.query("DELETE FROM upi_collects WHERE id = \(id) AND provider_payment_id IS NULL")
    }

    /// What the provider answered to the request (or, for an unknown outcome, the error), first check due after `delayMilliseconds`.
    func recordSubmission(id: UUID, providerPaymentID: String?, statusURL: String?, statusCode: String?, message: String?,
                          checkError: String?, delayMilliseconds: Int64) async throws -> UpiCollectRecord {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE upi_collects SET provider_payment_id = \(providerPaymentID), status_url = \(statusURL),
                    provider_status_code = \(statusCode), provider_message = \(message), last_check_error = \(checkError),
                    next_check_at = now() + \(delayMilliseconds)::float8 * interval '1 millisecond', updated_at = now()
                WHERE id = \(id) RETURNING \(sql: Self.columns)
                """)
            guard let row = rows.first else { throw GatewayRequestError.internal("UPI collect \(id) vanished") }
            _ = try await connection.query("SELECT pg_notify('payql_events', 'UpiCollect:' || \(id)::text)")
            return try Self.record(row)
        }
    }

    func find(ids: [UUID]) async throws -> [UUID: UpiCollectRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.columns) FROM upi_collects WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])")
        return Dictionary(try rows.map(Self.record).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func find(id: UUID) async throws -> UpiCollectRecord? { try await find(ids: [id])[id] }

    /// The collects of these orders, newest first per order.
    func list(orderIDs: [UUID]) async throws -> [UUID: [UpiCollectRecord]] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM upi_collects WHERE order_id = ANY(\(orderIDs.map { $0.uuidString })::uuid[]) ORDER BY requested_at DESC, id
            """)
        var found: [UUID: [UpiCollectRecord]] = [:]
        for record in try rows.map(Self.record) { found[record.orderID, default: []].append(record) }
        return found
    }

    /// Takes the right to poll the provider for `id` now: only while PENDING, due, and nobody
    /// else holds it (the lease ends by itself after `leaseMilliseconds`, so a crashed poller
    /// blocks nobody for long). Nil: not due, not pending, or another poller has it.
    func claimPoll(id: UUID, leaseMilliseconds: Int64) async throws -> UpiCollectRecord? {
        let rows = try await pool.query("""
            UPDATE upi_collects SET poll_lease_until = now() + \(leaseMilliseconds)::float8 * interval '1 millisecond'
            WHERE id = \(id) AND status = 'PENDING' AND next_check_at <= now()
              AND (poll_lease_until IS NULL OR poll_lease_until < now())
            RETURNING \(sql: Self.columns)
            """)
        return try rows.first.map(Self.record)
    }

    /// Up to `limit` due PENDING collects, claimed for this poller (`FOR UPDATE SKIP LOCKED`: two
    /// pollers never take the same one).
    func claimDue(limit: Int, leaseMilliseconds: Int64) async throws -> [UpiCollectRecord] {
        let rows = try await pool.query("""
            UPDATE upi_collects SET poll_lease_until = now() + \(leaseMilliseconds)::float8 * interval '1 millisecond'
            WHERE id IN (
                SELECT id FROM upi_collects
                WHERE status = 'PENDING' AND next_check_at <= now() AND (poll_lease_until IS NULL OR poll_lease_until < now())
                ORDER BY next_check_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING \(sql: Self.columns)
            """)
        return try rows.map(Self.record)
    }

    /// What one poll found, written with the lease released.
    struct PollResult: Sendable {
        /// The new status (PENDING while nothing final is known; EXPIRED is decided by the database clock).
        var status: String
        var providerPaymentID: String?
        var providerStatusCode: String?
        var providerMessage: String?
        /// Set when the check failed (network, provider error); the status is then unchanged.
        var checkError: String?
        /// When to ask again while PENDING.
        var nextCheckDelayMilliseconds: Int64
    }

    /// Writes a poll's outcome (and releases the lease); notifies subscribers in the same transaction.
    /// Still PENDING at or after `expires_at` → EXPIRED (PayQL stops waiting). A row no longer
    /// PENDING is left alone (another path finished it).
    func finishPoll(id: UUID, _ result: PollResult) async throws -> UpiCollectRecord? {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE upi_collects SET
                    status = CASE WHEN \(result.status) = 'PENDING' AND expires_at <= now() THEN 'EXPIRED' ELSE \(result.status) END,
                    provider_payment_id = COALESCE(provider_payment_id, \(result.providerPaymentID)),
                    provider_status_code = COALESCE(\(result.providerStatusCode), provider_status_code),
                    provider_message = COALESCE(\(result.providerMessage), provider_message),
                    last_check_error = \(result.checkError), last_checked_at = now(), checks = checks + 1,
                    next_check_at = LEAST(now() + \(result.nextCheckDelayMilliseconds)::float8 * interval '1 millisecond', expires_at),
                    poll_lease_until = NULL,
                    completed_at = CASE WHEN \(result.status) = 'PENDING' AND expires_at > now() THEN NULL ELSE now() END,
                    updated_at = now()
                WHERE id = \(id) AND status = 'PENDING'
                RETURNING \(sql: Self.columns)
                """)
            guard let row = rows.first else { return nil }
            _ = try await connection.query("SELECT pg_notify('payql_events', 'UpiCollect:' || \(id)::text)")
            return try Self.record(row)
        }
    }

    /// Links the final collect to the order's verified payment with its provider payment id.
    func linkPayment(id: UUID) async throws -> UpiCollectRecord? {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE upi_collects c SET payment_id = p.id, updated_at = now()
                FROM payments p
                WHERE c.id = \(id) AND c.payment_id IS NULL AND p.order_id = c.order_id
                  AND p.provider = c.provider AND p.provider_payment_id = c.provider_payment_id
                RETURNING c.id
                """)
            guard !rows.isEmpty else { return nil }
            _ = try await connection.query("SELECT pg_notify('payql_events', 'UpiCollect:' || \(id)::text)")
            return try await connection.query("SELECT \(sql: Self.columns) FROM upi_collects WHERE id = \(id)").first.map(Self.record)
        }
    }
}
