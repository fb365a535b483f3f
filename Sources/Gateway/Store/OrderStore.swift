import Foundation
import PaymentsCore
import Postgres

/// Orders, their timeline and status changes, over `PostgresQuery` binds.
///
/// Status changes go through ``applyStatus(orderID:proposed:providerStatus:source:message:on:)``
/// under a row lock, so concurrent webhooks, verifications and syncs of one order
/// serialise and the rules of ``StatusTransitions`` hold.
struct OrderStore: Sendable {
    let pool: PostgresPool

    /// The columns every order read selects, in ``record(_:)``'s order.
    static let columns: StaticString = """
        id, customer_id, provider, provider_order_id, amount_minor, currency, amount_paid_minor, amount_refunded_minor, receipt, \
        method, flow, bank_account_id, status, provider_status, needs_reconciliation, client_payload, notes, description, return_url, \
        created_by, attempts, expires_at, paid_at, last_synced_at, created_at, updated_at
        """

    /// ``columns`` with constants in place of the checkout payload and the notes (no checkout,
    /// no notes once decoded): PostgreSQL does not write out the jsonb, PayQL does not parse it.
    static let columnsWithoutPayloads: StaticString = """
        id, customer_id, provider, provider_order_id, amount_minor, currency, amount_paid_minor, amount_refunded_minor, receipt, \
        method, flow, bank_account_id, status, provider_status, needs_reconciliation, 'null'::jsonb AS client_payload, \
        '{}'::jsonb AS notes, description, return_url, created_by, attempts, expires_at, paid_at, last_synced_at, created_at, updated_at
        """

    static func record(_ row: PostgresRow) throws -> OrderRecord {
        let provider = try row.decode(String.self, at: 2)
        let currencyCode = try row.decode(String.self, at: 5)
        guard let providerName = ProviderName(rawValue: provider), let currency = Currency.known(currencyCode),
              let status = OrderStatusName(rawValue: try row.decode(String.self, at: 12)),
              let creator = OrderCreator(rawValue: try row.decode(String.self, at: 19)) else {
            throw GatewayRequestError.internal("an order row holds an unknown provider, currency, status or creator")
        }
        return OrderRecord(
            id: try row.decode(UUID.self, at: 0), customerID: try row.decode(UUID?.self, at: 1), provider: providerName,
            providerOrderID: try row.decode(String?.self, at: 3),
            amount: Amount(minorUnits: try row.decode(Int64.self, at: 4), currency: currency),
            amountPaidMinor: try row.decode(Int64.self, at: 6), amountRefundedMinor: try row.decode(Int64.self, at: 7),
            receipt: try row.decode(String.self, at: 8), method: try row.decode(String?.self, at: 9), flow: try row.decode(String.self, at: 10),
            bankAccountID: try row.decode(UUID?.self, at: 11), status: status, providerStatus: try row.decode(String?.self, at: 13),
            needsReconciliation: try row.decode(Bool.self, at: 14), checkout: CheckoutPayload(jsonb: try row.decode(PostgresJSONB.self, at: 15)),
            notes: Notes(jsonb: try row.decode(PostgresJSONB.self, at: 16)), description: try row.decode(String?.self, at: 17),
            returnURL: try row.decode(String?.self, at: 18), createdBy: creator, attempts: try row.decode(Int32?.self, at: 20).map(Int.init),
            expiresAt: try row.decode(PostgresTimestamp?.self, at: 21), paidAt: try row.decode(PostgresTimestamp?.self, at: 22),
            lastSyncedAt: try row.decode(PostgresTimestamp?.self, at: 23), createdAt: try row.decode(PostgresTimestamp.self, at: 24),
            updatedAt: try row.decode(PostgresTimestamp.self, at: 25))
    }

    /// What `createOrder` stores before calling the provider.
    struct NewOrder: Sendable {
        var customerID: UUID?
        var provider: ProviderName
        var amount: Amount
        var receipt: String
        var method: String?
        var flow: String
        var bankAccountID: UUID?
        var notes: Notes
        var description: String?
        var returnURL: String?
        var createdBy: OrderCreator
        var apiKeyID: UUID
        var clientSessionID: UUID?
        var expiresAt: String?
        /// Why the order went to `provider` (`Order.routing`).
        var routing: RoutingDecision? = nil
    }

    /// Inserts the order (CREATED, no provider order yet) and its CREATED timeline entry, committed
    /// before the provider is called. Throws `uniqueViolation` on `orders_receipt_key` for a used receipt.
    /// One statement (the timeline entry in a data-modifying `WITH`): atomic like the transaction
    /// it replaces, in one round trip instead of four. On a leased connection, as the transaction
    /// was: on the pool's shared pipelined connections the concurrent creates' commits queued
    /// behind each other (measured at 32 concurrent: fewer creates per second than before).
    func insertPending(_ order: NewOrder) async throws -> OrderRecord {
        let rows = try await pool.withConnection { connection in try await connection.query("""
            WITH inserted AS (
                INSERT INTO orders (customer_id, provider, amount_minor, currency, receipt, method, flow, bank_account_id, notes,
                                    description, return_url, created_by, api_key_id, client_session_id, expires_at, routing)
                VALUES (\(order.customerID), \(order.provider.rawValue), \(order.amount.minorUnits), \(order.amount.currency.code),
                        \(order.receipt), \(order.method), \(order.flow), \(order.bankAccountID), \(order.notes.jsonb), \(order.description),
                        \(order.returnURL), \(order.createdBy.rawValue), \(order.apiKeyID), \(order.clientSessionID), \(order.expiresAt)::timestamptz,
                        \(order.routing?.jsonb))
                RETURNING \(sql: Self.columns)
            ), event AS (
                INSERT INTO order_events (order_id, kind, status, source) SELECT id, 'CREATED', 'CREATED', 'API' FROM inserted
            )
            SELECT \(sql: Self.columns) FROM inserted
            """) }
        guard let row = rows.first else { throw GatewayRequestError.internal("the order was not stored") }
        return try Self.record(row)
    }

    /// The provider acknowledged the order: its id, status and what the client SDK needs.
    ///
    /// Committed without waiting for its WAL flush (`synchronous_commit` off for this one statement's
    /// transaction; the pending row itself was committed durably before the provider was called).
    /// A crash may lose this commit, never the order: the row is then the pending one again — CREATED,
    /// no provider order id — which the reconciler flags as an unfinished creation and finds at the
    /// provider by its receipt (the same provider order, with its checkout: `LostAnswerTests`). What
    /// it saves is one disk flush per createOrder (docs/api.md, "Create-at-provider protocol").
    func markCreated(orderID: UUID, providerOrderID: String, providerStatus: String, checkout: CheckoutPayload) async throws -> OrderRecord {
        // set_config(…, true) lasts to the end of the statement's transaction, whose commit reads it; it is
        // in FROM so that it runs (an unreferenced CTE would not). On a connection of its own, never
        // `pool.query`: that one may share an implicit transaction (a sync point) with other requests'
        // statements, whose commit would then skip the flush too.
        let rows = try await pool.withConnection { connection in try await connection.query("""
            UPDATE orders SET provider_order_id = \(providerOrderID), provider_status = \(providerStatus), client_payload = \(checkout.jsonb),
                needs_reconciliation = false, last_synced_at = now(), updated_at = now()
            FROM (SELECT set_config('synchronous_commit', 'off', true)) AS commit_without_flush
            WHERE id = \(orderID) RETURNING \(sql: Self.columns)
            """) }
        guard let row = rows.first else { throw GatewayRequestError.internal("the order disappeared") }
        return try Self.record(row)
    }

    /// The provider's answer to the creation is unknown: the reconciler will look the order up by receipt.
    func markNeedsReconciliation(orderID: UUID, message: String) async throws -> OrderRecord {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE orders SET needs_reconciliation = true, reconcile_after = now() + interval '5 seconds', updated_at = now()
                WHERE id = \(orderID) RETURNING \(sql: Self.columns)
                """)
            guard let row = rows.first else { throw GatewayRequestError.internal("the order disappeared") }
            let record = try Self.record(row)
            try await Self.appendEvent(orderID: orderID, kind: "RECONCILIATION_NEEDED", status: record.status, previous: nil,
                                       providerStatus: nil, source: "API", message: message, on: connection)
            return record
        }
    }

    /// Removes an order the provider certainly did not create (refused, or never reached), so its receipt can be used again.
    func deleteUncreated(orderID: UUID) async throws {
        try await pool.withTransaction { connection in
            _ = try await connection.query("DELETE FROM order_events WHERE order_id = \(orderID)")
            _ = try await connection.query("DELETE FROM orders WHERE id = \(orderID) AND provider_order_id IS NULL")
        }
    }

    /// Orders by id.
    func find(ids: [UUID]) async throws -> [UUID: OrderRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.columns) FROM orders WHERE \(SQLPattern.matches("id", anyOf: ids))")
        var found: [UUID: OrderRecord] = [:]
        for row in rows { let record = try Self.record(row); found[record.id] = record }
        return found
    }

    /// One order.
    func find(id: UUID) async throws -> OrderRecord? { try await find(ids: [id])[id] }

    /// The related rows a single-order read takes along (`order(id)`: the fields it selects).
    struct Related: Sendable, Equatable {
        var customer = false
        var payments = false
        /// Whether the order's checkout payload and notes (jsonb, parsed on every read) are read.
        /// When false the record holds no checkout and no notes: only for a read whose selection
        /// certainly asks for neither (`ResolveInput.certainlyOmits`).
        var payloads = true

        /// The Order fields that read the payloads: their own (`checkout`, `notes`) or through a
        /// resolver reading the record (`paymentOptions` finds Instamojo's gateway order in the
        /// checkout payload). A field that starts reading them belongs here.
        static let payloadFields: Set<String> = ["checkout", "notes", "paymentOptions"]
    }

    /// One order as a single-order read needs it.
    struct Read: Sendable {
        var order: OrderRecord
        /// The order's customer (nil when it has none, or when not asked for).
        var customer: CustomerRecord?
        /// Its payments, oldest first; nil when not asked for.
        var payments: [PaymentRecord]?
    }

    /// One order with the `related` rows, in one statement (one round trip and one snapshot
    /// where the loaders would take one statement each): the customer joined, the payments
    /// joined laterally (a row each, the order's columns repeated; one row when there are none).
    func find(id: UUID, with related: Related) async throws -> Read? {
        // Program-written pieces chosen by `related` (`\(sql:)`: embedding PostgresQuery fragments
        // rewrites their text scalar by scalar, 2 % of the order(id) profile).
        let customerColumns: StaticString = related.customer ? ", " : ""
        let customerList: StaticString = related.customer ? CustomerStore.qualifiedColumns : ""
        let customerJoin: StaticString = related.customer ? "LEFT JOIN customers c ON c.id = o.customer_id" : ""
        let paymentColumns: StaticString = related.payments ? ", p.*" : ""
        let paymentJoin: StaticString = related.payments ? "LEFT JOIN LATERAL (SELECT " : ""
        let paymentList: StaticString = related.payments ? PaymentStore.paymentColumns : ""
        let paymentRest: StaticString = related.payments
            ? " FROM payments WHERE order_id = o.id) p ON true ORDER BY p.created_at, p.id" : ""
        let orderColumns: StaticString = related.payloads ? Self.columns : Self.columnsWithoutPayloads
        let rows = try await pool.query("""
            SELECT o.*\(sql: customerColumns)\(sql: customerList)\(sql: paymentColumns) \
            FROM (SELECT \(sql: orderColumns) FROM orders WHERE id = \(id)) o \(sql: customerJoin) \
            \(sql: paymentJoin)\(sql: paymentList)\(sql: paymentRest)
            """)
        guard let first = rows.first else { return nil }
        var read = Read(order: try Self.record(first))
        var column = Self.columnCount
        if related.customer {
            read.customer = try CustomerStore.record(first, from: column)
            column += CustomerStore.columnCount
        }
        if related.payments {
            var payments: [PaymentRecord] = []
            for row in rows {
                guard try row.decode(UUID?.self, at: column) != nil else { continue }
                payments.append(try PaymentStore.payment(row, from: column))
            }
            read.payments = payments
        }
        return read
    }

    /// How many columns ``columns`` lists.
    static let columnCount = columns.description.utf8.count { $0 == UInt8(ascii: ",") } + 1

    /// The order a provider knows as `providerOrderID`.
    func find(provider: ProviderName, providerOrderID: String) async throws -> OrderRecord? {
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM orders WHERE provider = \(provider.rawValue) AND provider_order_id = \(providerOrderID)
            """)
        return try rows.first.map(Self.record)
    }

    /// The order with this receipt.
    func find(receipt: String) async throws -> OrderRecord? {
        try await pool.query("SELECT \(sql: Self.columns) FROM orders WHERE receipt = \(receipt)").first.map(Self.record)
    }

    /// A page of orders (`limit + 1` rows: the extra one says there is a next page).
    func list(filter: OrderFilter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [OrderRecord] {
        var conditions = filter.conditions
        conditions = KeysetCursor.page(conditions, after: cursor, newestFirst: newestFirst)
        let order = KeysetCursor.ordering(newestFirst: newestFirst)
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM orders \(SQLPattern.whereClause(conditions)) \(order) LIMIT \(Int64(limit + 1))
            """)
        return try rows.map(Self.record)
    }

    /// Orders per status under `filter` (statuses without orders are absent).
    func statusCounts(filter: OrderFilter) async throws -> [(String, Int64)] {
        try await pool.query("""
            SELECT status, count(*) FROM orders \(SQLPattern.whereClause(filter.conditions)) GROUP BY status ORDER BY status
            """).decode((String, Int64).self)
    }

    /// The timeline of an order, oldest first.
    func events(orderID: UUID) async throws -> [OrderEventRecord] {
        try await pool.query("""
            SELECT id, order_id, at, kind, status, previous_status, provider_status, source, payment_id, refund_id, webhook_event_id, message
            FROM order_events WHERE order_id = \(orderID) ORDER BY id
            """).decode((Int64, UUID, PostgresTimestamp, String, String, String?, String?, String, UUID?, UUID?, UUID?, String?).self)
            .map { OrderEventRecord(id: $0, orderID: $1, at: $2, kind: $3, status: $4, previousStatus: $5, providerStatus: $6, source: $7,
                                    paymentID: $8, refundID: $9, webhookEventID: $10, message: $11) }
    }

    /// Locks the order row for the rest of the transaction and reads it.
    static func lock(orderID: UUID, on connection: PostgresConnection) async throws -> OrderRecord? {
        try await connection.query("SELECT \(sql: columns) FROM orders WHERE id = \(orderID) FOR UPDATE").first.map(record)
    }

    /// Moves the order to `proposed` if the rules allow, records the provider's word and a timeline
    /// entry; returns the order as it is now. Call inside a transaction that locked the row.
    @discardableResult
    static func applyStatus(order: OrderRecord, proposed: OrderStatusName, providerStatus: String?, source: String,
                            paymentID: UUID? = nil, webhookEventID: UUID? = nil, message: String? = nil,
                            on connection: PostgresConnection) async throws -> OrderRecord {
        guard let next = StatusTransitions.order(from: order.status, to: proposed) else {
            if let providerStatus, providerStatus != order.providerStatus, !order.status.isFinal {
                _ = try await connection.query("UPDATE orders SET provider_status = \(providerStatus), updated_at = now() WHERE id = \(order.id)")
            }
            return order
        }
        let rows = try await connection.query("""
            UPDATE orders SET status = \(next.rawValue), provider_status = coalesce(\(providerStatus), provider_status),
                paid_at = CASE WHEN \(next.rawValue) = 'PAID' THEN now() ELSE paid_at END,
                needs_reconciliation = CASE WHEN \(next.isFinal) THEN false ELSE needs_reconciliation END,
                updated_at = now()
            WHERE id = \(order.id) RETURNING \(sql: columns)
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("the order disappeared") }
        let late = StatusTransitions.isLatePayment(from: order.status, to: next)
        try await appendEvent(orderID: order.id, kind: late ? "STATUS_CHANGED" : "STATUS_CHANGED", status: next, previous: order.status,
                              providerStatus: providerStatus, source: source, paymentID: paymentID, webhookEventID: webhookEventID,
                              message: late ? "LATE_PAYMENT: paid after \(order.status.rawValue)" : message, on: connection)
        let moved = try record(row)
        // Rewards are allotted in the transaction that makes the order PAID (decision 5).
        if next == .paid { try await RewardStore.allotForPaidOrder(moved, source: source, on: connection) }
        // The payment-event owed to Setu, when the order pays a bill (decision 7), in this same transaction.
        try await BillConfirmations.orderMoved(moved, to: next, on: connection)
        // The merchant hears of it once this commits (order.paid / failed / expired / late_payment).
        try await MerchantWebhooks.orderStatusChanged(moved, from: order.status, on: connection)
        return moved
    }

    /// Appends a timeline entry.
    static func appendEvent(orderID: UUID, kind: String, status: OrderStatusName, previous: OrderStatusName?, providerStatus: String?,
                            source: String, paymentID: UUID? = nil, refundID: UUID? = nil, webhookEventID: UUID? = nil,
                            message: String?, on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            INSERT INTO order_events (order_id, kind, status, previous_status, provider_status, source, payment_id, refund_id, webhook_event_id, message)
            VALUES (\(orderID), \(kind), \(status.rawValue), \(previous?.rawValue), \(providerStatus), \(source), \(paymentID), \(refundID),
                    \(webhookEventID), \(message))
            """)
    }
}

/// The contract's `OrderFilter`, decoded to SQL conditions.
struct OrderFilter: Sendable {
    var statuses: [String] = []
    var providers: [String] = []
    var flows: [String] = []
    var methods: [String] = []
    var customerID: UUID?
    var receipt: String?
    var providerOrderID: String?
    var needsReconciliation: Bool?
    var minAmountMinor: Int64?
    var maxAmountMinor: Int64?
    var createdAfter: String?
    var createdBefore: String?

    var conditions: [PostgresQuery] {
        var conditions: [PostgresQuery] = []
        if !statuses.isEmpty { conditions.append("status = ANY(\(statuses))") }
        if !providers.isEmpty { conditions.append("provider = ANY(\(providers))") }
        if !flows.isEmpty { conditions.append("flow = ANY(\(flows))") }
        if !methods.isEmpty { conditions.append("method = ANY(\(methods))") }
        if let customerID { conditions.append("customer_id = \(customerID)") }
        if let receipt { conditions.append("receipt = \(receipt)") }
        if let providerOrderID { conditions.append("provider_order_id = \(providerOrderID)") }
        if let needsReconciliation { conditions.append("needs_reconciliation = \(needsReconciliation)") }
        if let minAmountMinor { conditions.append("amount_minor >= \(minAmountMinor)") }
        if let maxAmountMinor { conditions.append("amount_minor <= \(maxAmountMinor)") }
        if let createdAfter { conditions.append("created_at > \(createdAfter)::timestamptz") }
        if let createdBefore { conditions.append("created_at < \(createdBefore)::timestamptz") }
        return conditions
    }
}
