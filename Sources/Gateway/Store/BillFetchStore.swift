import Foundation
import JSON
import Postgres

/// A row of `bill_fetches`: one bill fetch Setu reported for a bill-pay link (migration 0018).
struct BillFetchRecord: Sendable, Hashable {
    var id: UUID
    var billPayLinkID: UUID
    var success: Bool
    var billerID: String?
    var billerName: String?
    var billerCategory: String?
    /// Setu's `billDetails[]` as stored (a JSON array).
    var billsJSON: String
    var errorCode: String?
    var errorMessage: String?
    var fetchedAt: PostgresTimestamp
}

/// `bill_fetches`: written when a `bill_fetch_success` / `bill_fetch_failure` event is applied,
/// read by `BillPayLink.billFetches`.
struct BillFetchStore: Sendable {
    let pool: PostgresPool

    static let columns: StaticString = """
        id, bill_pay_link_id, success, biller_id, biller_name, biller_category, bills, error_code, error_message, fetched_at
        """

    static func record(_ row: PostgresRow) throws -> BillFetchRecord {
        BillFetchRecord(
            id: try row.decode(UUID.self, at: 0), billPayLinkID: try row.decode(UUID.self, at: 1), success: try row.decode(Bool.self, at: 2),
            billerID: try row.decode(String?.self, at: 3), billerName: try row.decode(String?.self, at: 4),
            billerCategory: try row.decode(String?.self, at: 5), billsJSON: try row.decode(PostgresJSONB.self, at: 6).text,
            errorCode: try row.decode(String?.self, at: 7), errorMessage: try row.decode(String?.self, at: 8),
            fetchedAt: try row.decode(PostgresTimestamp.self, at: 9))
    }

    /// The bill fetches of these links, oldest first.
    func fetches(linkIDs: [UUID]) async throws -> [UUID: [BillFetchRecord]] {
        guard !linkIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM bill_fetches WHERE bill_pay_link_id = ANY(\(linkIDs.map { $0.uuidString })::uuid[])
            ORDER BY fetched_at, id
            """)
        var found: [UUID: [BillFetchRecord]] = [:]
        for record in try rows.map(Self.record) { found[record.billPayLinkID, default: []].append(record) }
        return found
    }

    /// What a bill-fetch event says (read from its body by ``BillPayWebhooks/billFetch(success:body:)``).
    struct Fetch: Sendable, Equatable {
        var success: Bool
        var sessionID: String?
        var billerID: String?
        var billerName: String?
        var billerCategory: String?
        /// A JSON array of bills.
        var bills: JSONValue
        var errorCode: String?
        var errorMessage: String?
    }

    /// Applies a bill fetch inside the transaction storing its event `eventRowID`: the row for the
    /// link whose session it names. Returns the event's outcome: APPLIED, or UNMATCHED when no link
    /// has that session. Applying the same event twice (reprocessing) keeps the first row.
    static func apply(_ fetch: Fetch, eventRowID: UUID, on connection: PostgresConnection) async throws -> String {
        guard let session = fetch.sessionID else { return "UNMATCHED" }
        // One round trip: the insert (a data-modifying CTE runs whether or not it is read), then whether
        // the event has its row — inserted now (the link exists) or before (as the snapshot shows it).
        let applied = try await connection.query("""
            WITH link AS (SELECT id FROM bill_pay_links WHERE session_id = \(session)),
            inserted AS (
                INSERT INTO bill_fetches (bill_pay_link_id, webhook_event_id, success, biller_id, biller_name, biller_category, bills,
                                          error_code, error_message)
                SELECT id, \(eventRowID), \(fetch.success), \(fetch.billerID), \(fetch.billerName), \(fetch.billerCategory),
                       \(PostgresJSONB(text: JSONWriter.string(fetch.bills))), \(fetch.errorCode), \(fetch.errorMessage)
                FROM link
                ON CONFLICT (webhook_event_id) DO NOTHING)
            SELECT EXISTS (SELECT 1 FROM link) OR EXISTS (SELECT 1 FROM bill_fetches WHERE webhook_event_id = \(eventRowID))
            """).single(Bool.self) ?? false
        return applied ? "APPLIED" : "UNMATCHED"
    }
}
