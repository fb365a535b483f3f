import Foundation
import JSON
import PaymentsCore
import Postgres

/// A stored webhook delivery, accepted or rejected, as ops read it.
struct WebhookEventRecord: Sendable {
    var id: UUID
    var provider: ProviderName
    var eventID: String
    var eventType: String
    var receivedAt: PostgresTimestamp
    var processedAt: PostgresTimestamp?
    var outcome: String
    var error: String?
    var deliveries: Int64
    var orderID: UUID?
    var paymentID: UUID?
    var refundID: UUID?
    /// Redacted at intake; nil for rejected deliveries (their bodies are not kept).
    var payload: PostgresJSONB?
}

/// The contract's `WebhookEventFilter`, decoded.
struct WebhookEventFilter: Sendable {
    var providers: [String] = []
    var eventType: String?
    var outcomes: [String] = []
    var orderID: UUID?
    var receivedAfter: String?
    var receivedBefore: String?
}

/// Reads of the webhook log: accepted deliveries (`webhook_events`) and rejected ones
/// (`webhook_rejections`, outcome REJECTED) in one keyset-paged list.
struct WebhookEventStore: Sendable {
    let pool: PostgresPool

    /// Both tables in one shape (rejections have no event id: their body hash stands in).
    private static let union: StaticString = """
        (SELECT id, provider, event_id, event_type, received_at, processed_at, outcome, processing_error, deliveries::bigint AS deliveries,
                order_id, payment_id, refund_id, payload
           FROM webhook_events
         UNION ALL
         SELECT uuid, provider, 'sha256:' || encode(body_hash, 'hex'), 'REJECTED', received_at, received_at, 'REJECTED', reason, 1::bigint,
                NULL::uuid, NULL::uuid, NULL::uuid, NULL::jsonb
           FROM webhook_rejections) AS log
        """

    private static func record(_ row: PostgresRow) throws -> WebhookEventRecord? {
        guard let provider = ProviderName(rawValue: try row.decode(String.self, at: 1)) else { return nil }
        return WebhookEventRecord(
            id: try row.decode(UUID.self, at: 0), provider: provider, eventID: try row.decode(String.self, at: 2),
            eventType: try row.decode(String.self, at: 3), receivedAt: try row.decode(PostgresTimestamp.self, at: 4),
            processedAt: try row.decode(PostgresTimestamp?.self, at: 5), outcome: try row.decode(String.self, at: 6),
            error: try row.decode(String?.self, at: 7), deliveries: try row.decode(Int64.self, at: 8), orderID: try row.decode(UUID?.self, at: 9),
            paymentID: try row.decode(UUID?.self, at: 10), refundID: try row.decode(UUID?.self, at: 11),
            payload: try row.decode(PostgresJSONB?.self, at: 12))
    }

    /// A page (`limit + 1` rows: the extra one says there is a next page).
    func list(filter: WebhookEventFilter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [WebhookEventRecord] {
        var conditions: [PostgresQuery] = []
        if !filter.providers.isEmpty { conditions.append("provider = ANY(\(filter.providers))") }
        if let type = filter.eventType { conditions.append("event_type = \(type)") }
        if !filter.outcomes.isEmpty { conditions.append("outcome = ANY(\(filter.outcomes))") }
        if let order = filter.orderID { conditions.append("order_id = \(order)") }
        if let after = filter.receivedAfter { conditions.append("received_at > \(after)::timestamptz") }
        if let before = filter.receivedBefore { conditions.append("received_at < \(before)::timestamptz") }
        if let cursor {
            conditions.append(newestFirst ? "(received_at, id) < (\(cursor.createdAt), \(cursor.id))"
                                          : "(received_at, id) > (\(cursor.createdAt), \(cursor.id))")
        }
        let order: PostgresQuery = newestFirst ? "ORDER BY received_at DESC, id DESC" : "ORDER BY received_at ASC, id ASC"
        let rows = try await pool.query("""
            SELECT * FROM \(sql: Self.union) \(SQLPattern.whereClause(conditions)) \(order) LIMIT \(Int64(limit + 1))
            """)
        return try rows.compactMap(Self.record)
    }

    /// One delivery by id.
    func find(id: UUID) async throws -> WebhookEventRecord? {
        try await pool.query("SELECT * FROM \(sql: Self.union) WHERE id = \(id)").first.flatMap(Self.record)
    }
}
