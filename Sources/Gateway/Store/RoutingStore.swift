import Foundation
import PaymentsCore
import Postgres

/// A stored routing rule (`routing_rules`).
struct RoutingRuleRecord: Sendable, Hashable {
    /// What routing reads of it.
    var spec: RoutingRuleSpec
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
    var id: UUID { spec.id }
}

/// Routing rules and the decisions stored with orders, over `PostgresQuery` binds.
struct RoutingStore: Sendable {
    let pool: PostgresPool

    /// The columns every rule read selects, in ``record(_:)``'s order.
    static let columns: StaticString = """
        id, name, priority, enabled, flows, methods, currency, min_amount_minor, max_amount_minor, providers, created_at, updated_at
        """

    static func record(_ row: PostgresRow) throws -> RoutingRuleRecord {
        let names = try row.decode([String].self, at: 9)
        let providers = names.compactMap(ProviderName.init(rawValue:))
        guard providers.count == names.count else { throw GatewayRequestError.internal("a routing rule names an unknown provider") }
        return RoutingRuleRecord(
            spec: RoutingRuleSpec(
                id: try row.decode(UUID.self, at: 0), name: try row.decode(String.self, at: 1), priority: Int(try row.decode(Int32.self, at: 2)),
                enabled: try row.decode(Bool.self, at: 3), flows: try row.decode([String].self, at: 4), methods: try row.decode([String].self, at: 5),
                currency: try row.decode(String.self, at: 6), minAmountMinor: try row.decode(Int64?.self, at: 7),
                maxAmountMinor: try row.decode(Int64?.self, at: 8), providers: providers),
            createdAt: try row.decode(PostgresTimestamp.self, at: 10), updatedAt: try row.decode(PostgresTimestamp.self, at: 11))
    }

    /// Every rule, lowest priority first.
    func all() async throws -> [RoutingRuleRecord] {
        try await pool.query("SELECT \(sql: Self.columns) FROM routing_rules ORDER BY priority").map(Self.record)
    }

    /// Rules by id.
    func find(ids: [UUID]) async throws -> [UUID: RoutingRuleRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.columns) FROM routing_rules WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])")
        return Dictionary(try rows.map(Self.record).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The rule holding `priority`, if any.
    func find(priority: Int) async throws -> RoutingRuleRecord? {
        try await pool.query("SELECT \(sql: Self.columns) FROM routing_rules WHERE priority = \(Int32(clamping: priority))").first.map(Self.record)
    }

    /// Inserts (`spec.id` nil) or updates a rule; nil when the id names no rule. Throws `uniqueViolation`
    /// on `routing_rules_priority_key` when another rule holds the priority.
    func upsert(_ spec: RoutingRuleSpec, existing: UUID?) async throws -> RoutingRuleRecord? {
        let providers = spec.providers.map(\.rawValue)
        let priority = Int32(clamping: spec.priority)
        let rows: PostgresRows
        if let existing {
            rows = try await pool.query("""
                UPDATE routing_rules SET name = \(spec.name), priority = \(priority), enabled = \(spec.enabled), flows = \(spec.flows),
                    methods = \(spec.methods), currency = \(spec.currency), min_amount_minor = \(spec.minAmountMinor),
                    max_amount_minor = \(spec.maxAmountMinor), providers = \(providers), updated_at = now()
                WHERE id = \(existing) RETURNING \(sql: Self.columns)
                """)
        } else {
            rows = try await pool.query("""
                INSERT INTO routing_rules (name, priority, enabled, flows, methods, currency, min_amount_minor, max_amount_minor, providers)
                VALUES (\(spec.name), \(priority), \(spec.enabled), \(spec.flows), \(spec.methods), \(spec.currency), \(spec.minAmountMinor),
                        \(spec.maxAmountMinor), \(providers))
                RETURNING \(sql: Self.columns)
                """)
        }
        return try rows.first.map(Self.record)
    }

    /// Deletes a rule; whether it existed. Orders keep their decision (its rule then reads as null).
    func delete(id: UUID) async throws -> Bool {
        try await pool.query("DELETE FROM routing_rules WHERE id = \(id) RETURNING id").first != nil
    }

    /// The stored decisions of orders (orders made before routing have none).
    func decisions(orderIDs: [UUID]) async throws -> [UUID: RoutingDecision] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT id, routing FROM orders WHERE id = ANY(\(orderIDs.map { $0.uuidString })::uuid[]) AND routing IS NOT NULL
            """)
        var found: [UUID: RoutingDecision] = [:]
        for row in rows {
            if let decision = RoutingDecision(jsonb: try row.decode(PostgresJSONB.self, at: 1)) { found[try row.decode(UUID.self, at: 0)] = decision }
        }
        return found
    }

    /// Moves an order that `from` certainly did not create to `to`, with the updated decision and a FAILED_OVER
    /// timeline entry; false when the order is no longer uncreated at `from` (nothing changed then).
    func failOver(orderID: UUID, from: ProviderName, to: ProviderName, decision: RoutingDecision, message: String) async throws -> Bool {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE orders SET provider = \(to.rawValue), routing = \(decision.jsonb), updated_at = now()
                WHERE id = \(orderID) AND provider = \(from.rawValue) AND provider_order_id IS NULL RETURNING status
                """)
            guard let status = try rows.single(String.self).flatMap(OrderStatusName.init(rawValue:)) else { return false }
            try await OrderStore.appendEvent(orderID: orderID, kind: "FAILED_OVER", status: status, previous: nil, providerStatus: nil,
                                             source: "API", message: message, on: connection)
            return true
        }
    }
}
