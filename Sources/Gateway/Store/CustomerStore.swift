import Foundation
import PaymentsCore
import Postgres

/// Customers and their provider references, over `PostgresQuery` binds.
struct CustomerStore: Sendable {
    let pool: PostgresPool

    private typealias Row = (UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp)

    /// The columns a customer read selects from `customers c`, in ``record(_:from:)``'s order.
    static let qualifiedColumns: StaticString = "c.id, c.name, c.email, c.contact, c.gstin, c.notes, c.created_at, c.updated_at"
    /// How many columns ``qualifiedColumns`` lists.
    static let columnCount = 8

    /// The customer in `row`'s columns from `first` on (``qualifiedColumns``); nil when they are null (an outer join found none).
    static func record(_ row: PostgresRow, from first: Int) throws -> CustomerRecord? {
        guard let id = try row.decode(UUID?.self, at: first) else { return nil }
        return CustomerRecord(
            id: id, name: try row.decode(String?.self, at: first + 1), email: try row.decode(String?.self, at: first + 2),
            phone: try row.decode(String?.self, at: first + 3), gstin: try row.decode(String?.self, at: first + 4),
            notes: Notes(jsonb: try row.decode(PostgresJSONB.self, at: first + 5)),
            createdAt: try row.decode(PostgresTimestamp.self, at: first + 6), updatedAt: try row.decode(PostgresTimestamp.self, at: first + 7))
    }

    private static func record(_ row: Row) -> CustomerRecord {
        let (id, name, email, phone, gstin, notes, created, updated) = row
        return CustomerRecord(id: id, name: name, email: email, phone: phone, gstin: gstin, notes: Notes(jsonb: notes),
                              createdAt: created, updatedAt: updated)
    }

    /// Inserts a customer, or returns the existing one with the same phone and e-mail
    /// (Razorpay's `fail_existing: 0`): `(record, existing)`. Decided by the database's
    /// unique index, so two concurrent creations of one customer make one row.
    func insertOrFind(name: String?, email: String?, phone: String?, gstin: String?, notes: Notes) async throws -> (CustomerRecord, Bool) {
        let inserted = try await pool.query("""
            INSERT INTO customers (name, email, contact, gstin, notes) VALUES (\(name), \(email), \(phone), \(gstin), \(notes.jsonb))
            ON CONFLICT (coalesce(contact, ''), coalesce(lower(email), '')) WHERE contact IS NOT NULL OR email IS NOT NULL DO NOTHING
            RETURNING id, name, email, contact, gstin, notes, created_at, updated_at
            """).single((UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp).self)
        if let inserted { return (Self.record(inserted), false) }
        let existing = try await pool.query("""
            SELECT id, name, email, contact, gstin, notes, created_at, updated_at FROM customers
            WHERE coalesce(contact, '') = coalesce(\(phone), '') AND coalesce(lower(email), '') = coalesce(lower(\(email)), '')
            """).single((UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp).self)
        guard let existing else { throw GatewayRequestError.internal("customer conflict without a match") }
        return (Self.record(existing), true)
    }

    /// The customers with these ids (any order; unknown ids are absent).
    func find(ids: [UUID]) async throws -> [UUID: CustomerRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT id, name, email, contact, gstin, notes, created_at, updated_at FROM customers WHERE \(SQLPattern.matches("id", anyOf: ids))
            """).decode((UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp).self)
        var found: [UUID: CustomerRecord] = [:]
        for row in rows { let record = Self.record(row); found[record.id] = record }
        return found
    }

    /// One customer.
    func find(id: UUID) async throws -> CustomerRecord? { try await find(ids: [id])[id] }

    /// Applies the given changes (nil: unchanged); nil when there is no such customer.
    func update(id: UUID, name: String?, email: String?, phone: String?, gstin: String?, notes: Notes?) async throws -> CustomerRecord? {
        let row = try await pool.query("""
            UPDATE customers SET name = coalesce(\(name), name), email = coalesce(\(email), email), contact = coalesce(\(phone), contact),
                gstin = coalesce(\(gstin), gstin), notes = coalesce(\(notes?.jsonb)::jsonb, notes), updated_at = now()
            WHERE id = \(id)
            RETURNING id, name, email, contact, gstin, notes, created_at, updated_at
            """).single((UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp).self)
        return row.map(Self.record)
    }

    /// A page of customers matching `filter`, after `cursor`, `limit + 1` rows (the extra one says there is a next page).
    func list(filter: CustomerFilter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [CustomerRecord] {
        var conditions: [PostgresQuery] = []
        if let phone = filter.phone { conditions.append("contact = \(phone)") }
        if let email = filter.email { conditions.append("lower(email) = lower(\(email))") }
        if let prefix = filter.namePrefix { conditions.append("name ILIKE \(SQLPattern.prefix(prefix))") }
        if let after = filter.createdAfter { conditions.append("created_at > \(after)::timestamptz") }
        if let before = filter.createdBefore { conditions.append("created_at < \(before)::timestamptz") }
        conditions = KeysetCursor.page(conditions, after: cursor, newestFirst: newestFirst)
        let order = KeysetCursor.ordering(newestFirst: newestFirst)
        let rows = try await pool.query("""
            SELECT id, name, email, contact, gstin, notes, created_at, updated_at FROM customers
            \(SQLPattern.whereClause(conditions)) \(order) LIMIT \(Int64(limit + 1))
            """).decode((UUID, String?, String?, String?, String?, PostgresJSONB, PostgresTimestamp, PostgresTimestamp).self)
        return rows.map(Self.record)
    }

    /// The provider references of these customers.
    func providerReferences(customerIDs: [UUID]) async throws -> [UUID: [(provider: ProviderName, id: String, createdAt: PostgresTimestamp)]] {
        guard !customerIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT customer_id, provider, provider_customer_id, created_at FROM customer_provider_refs
            WHERE customer_id = ANY(\(customerIDs.map { $0.uuidString })::uuid[]) ORDER BY created_at
            """).decode((UUID, String, String, PostgresTimestamp).self)
        var found: [UUID: [(provider: ProviderName, id: String, createdAt: PostgresTimestamp)]] = [:]
        for (customer, provider, id, created) in rows {
            guard let name = ProviderName(rawValue: provider) else { continue }
            found[customer, default: []].append((name, id, created))
        }
        return found
    }

    /// Records that `provider` knows the customer as `providerCustomerID` (kept if already recorded).
    func addProviderReference(customerID: UUID, provider: ProviderName, providerCustomerID: String) async throws {
        _ = try await pool.query("""
            INSERT INTO customer_provider_refs (customer_id, provider, provider_customer_id)
            VALUES (\(customerID), \(provider.rawValue), \(providerCustomerID)) ON CONFLICT DO NOTHING
            """)
    }
}

/// The contract's `CustomerFilter`, decoded.
struct CustomerFilter: Sendable {
    var phone: String?
    var email: String?
    var namePrefix: String?
    var createdAfter: String?
    var createdBefore: String?
}

/// SQL helpers for composed queries.
enum SQLPattern {
    /// `column = $1` for one id (the usual batch: one parent), `column = ANY($1::uuid[])` for more.
    static func matches(_ column: StaticString, anyOf ids: [UUID]) -> PostgresQuery {
        if ids.count == 1 { return "\(sql: column) = \(ids[0])" }
        return "\(sql: column) = ANY(\(ids.map { $0.uuidString })::uuid[])"
    }

    /// `WHERE a AND b …`, or nothing.
    static func whereClause(_ conditions: [PostgresQuery]) -> PostgresQuery {
        guard var combined = conditions.first else { return "" }
        for condition in conditions.dropFirst() { combined = "\(combined) AND \(condition)" }
        return "WHERE \(combined)"
    }

    /// A LIKE pattern matching `text` as a prefix, with `%`, `_` and `\` escaped.
    static func prefix(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }
}
