import Foundation
import GraphQL
import JSON
import Postgres

/// One merchant notification as OPS read it: the outbox row of kind `merchant.webhook`.
struct MerchantWebhookDeliveryRecord: Sendable {
    var id: UUID
    var eventType: String
    var orderID: UUID?
    var refundID: UUID?
    var billPaymentID: UUID?
    /// Where the last attempt went; nil before the first.
    var target: String?
    var state: String
    var attempts: Int
    var lastStatusCode: Int?
    var lastError: String?
    var deliveredAt: PostgresTimestamp?
    /// When the next attempt is due (nil once delivered or given up).
    var nextAttemptAt: PostgresTimestamp?
    var createdAt: PostgresTimestamp
}

/// Reads of the delivery log and OPS's redelivery.
struct MerchantWebhookDeliveryStore: Sendable {
    let pool: PostgresPool

    private static let columns: StaticString = """
        uuid, payload->>'type', order_id, payload->'data'->>'refundId', CASE WHEN object_type = 'BillPayment' THEN object_id END,
        target, state, attempts, last_status_code, last_error, delivered_at, next_attempt_at, created_at
        """

    private static func record(_ row: PostgresRow) throws -> MerchantWebhookDeliveryRecord {
        MerchantWebhookDeliveryRecord(
            id: try row.decode(UUID.self, at: 0), eventType: try row.decode(String?.self, at: 1) ?? "",
            orderID: try row.decode(UUID?.self, at: 2), refundID: try row.decode(String?.self, at: 3).flatMap { GlobalID($0, of: .refund)?.uuid },
            billPaymentID: try row.decode(UUID?.self, at: 4), target: try row.decode(String?.self, at: 5), state: try row.decode(String.self, at: 6),
            attempts: Int(try row.decode(Int32.self, at: 7)), lastStatusCode: try row.decode(Int32?.self, at: 8).map(Int.init),
            lastError: try row.decode(String?.self, at: 9), deliveredAt: try row.decode(PostgresTimestamp?.self, at: 10),
            nextAttemptAt: try row.decode(PostgresTimestamp?.self, at: 11), createdAt: try row.decode(PostgresTimestamp.self, at: 12))
    }

    /// A page, newest first (`limit + 1` rows: the extra one says there is a next page).
    func list(orderID: UUID?, after cursor: KeysetCursor?, limit: Int) async throws -> [MerchantWebhookDeliveryRecord] {
        var conditions: [PostgresQuery] = ["kind = \(OutboxKind.merchantWebhook.rawValue)"]
        if let orderID { conditions.append("order_id = \(orderID)") }
        if let cursor { conditions.append("(created_at, uuid) < (\(cursor.createdAt), \(cursor.id))") }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM outbox \(SQLPattern.whereClause(conditions))
            ORDER BY created_at DESC, uuid DESC LIMIT \(Int64(limit + 1))
            """)
        return try rows.map(Self.record)
    }

    /// One delivery.
    func find(id: UUID) async throws -> MerchantWebhookDeliveryRecord? {
        try await pool.query("""
            SELECT \(sql: Self.columns) FROM outbox WHERE uuid = \(id) AND kind = \(OutboxKind.merchantWebhook.rawValue)
            """).first.map(Self.record)
    }
}

/// `MerchantWebhookDelivery`.
struct MerchantWebhookDeliveryView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: MerchantWebhookDeliveryRecord
    /// The configured URL, shown until an attempt records where it went.
    var configuredURL: String?
    var graphQLTypeName: String { "MerchantWebhookDelivery" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.merchantWebhookDelivery, record.id).description
        case "eventType": record.eventType
        case "url": record.target ?? configuredURL ?? ""
        case "attempts": record.attempts
        case "lastStatusCode": record.lastStatusCode
        case "lastError": record.lastError
        case "deliveredAt": record.deliveredAt?.rfc3339
        case "nextAttemptAt": record.state == "PENDING" ? record.nextAttemptAt?.rfc3339 : nil
        case "createdAt": record.createdAt.rfc3339
        default: nil
        }
    }
}

/// `Query.merchantWebhookDeliveries` and `Mutation.redeliverMerchantWebhook` (OPS), and the objects a delivery is about
/// (order, refund, bill payment).
enum MerchantWebhookResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        let store = MerchantWebhookDeliveryStore(pool: services.pool)
        let configuredURL = services.configuration.merchantWebhooks.url
        set.async("Query", "merchantWebhookDeliveries") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue, order: nil)
            // An id of another type matches nothing (not an error for a filter).
            let orderID = input[argument: "orderId"]?.stringValue.map { GlobalID($0, of: .order)?.uuid ?? UUID(uuid: UUID.zero) }
            let rows = try await store.list(orderID: orderID, after: page.after, limit: page.first)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil,
                                  node: { MerchantWebhookDeliveryView(record: $0, configuredURL: configuredURL) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        MutationResolvers.mutation(&set, "redeliverMerchantWebhook", services) { input, _ in
            let id = try input.requiredID("deliveryId", of: .merchantWebhookDelivery)
            guard
                  try await OutboxStore(pool: services.pool).redeliver(id: id, kind: .merchantWebhook),
                  let record = try await store.find(id: id) else {
                throw UserError(.notFound, "no such merchant webhook delivery", field: ["input", "deliveryId"])
            }
            return MutationResolvers.MutationResult(members: ["delivery": MerchantWebhookDeliveryView(record: record, configuredURL: configuredURL)],
                                                    ids: ["delivery": record.id])
        } replay: { ids in
            ["delivery": try await ids.uuid("delivery").asyncMap { try await store.find(id: $0) }?
                .map { MerchantWebhookDeliveryView(record: $0, configuredURL: configuredURL) }]
        }
        set.async("MerchantWebhookDelivery", "order") { input in
            guard let delivery = input.source as? MerchantWebhookDeliveryView, let id = delivery.record.orderID else { return nil }
            return try await services.orderStore.find(id: id).map(OrderView.init)
        }
        set.async("MerchantWebhookDelivery", "billPayment") { input in
            guard let delivery = input.source as? MerchantWebhookDeliveryView, let id = delivery.record.billPaymentID else { return nil }
            return try await services.billPayStore.payments(ids: [id])[id].map(BillPaymentView.init)
        }
        set.async("MerchantWebhookDelivery", "refund") { input in
            guard let delivery = input.source as? MerchantWebhookDeliveryView, let id = delivery.record.refundID else { return nil }
            return try await services.paymentStore.refunds(ids: [id])[id].map(RefundView.init)
        }
    }
}

extension MerchantWebhookResolvers {
    /// `node(id:)` for a MerchantWebhookDelivery id: OPS only.
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> (any Sendable)? {
        guard principal.holdsAny(of: [.ops]) else { return nil }
        return try await MerchantWebhookDeliveryStore(pool: services.pool).find(id: id)
            .map { MerchantWebhookDeliveryView(record: $0, configuredURL: services.configuration.merchantWebhooks.url) }
    }
}
