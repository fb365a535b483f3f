import Foundation
import Postgres

/// The contract's `PaymentFilter`, decoded to SQL conditions over `payments`.
struct PaymentFilter: Sendable {
    var statuses: [String] = []
    var providers: [String] = []
    /// The contract's `PaymentMethod` values; matched as ``PaymentMethodName/contract(_:)`` maps provider words.
    var methods: [String] = []
    var orderID: UUID?
    var customerID: UUID?
    var providerPaymentID: String?
    var verified: Bool?
    var createdAfter: String?
    var createdBefore: String?

    var conditions: [PostgresQuery] {
        var conditions: [PostgresQuery] = []
        if !statuses.isEmpty { conditions.append("status = ANY(\(statuses))") }
        if !providers.isEmpty { conditions.append("provider = ANY(\(providers))") }
        if !methods.isEmpty {
            // The same order of tests as PaymentMethodName.contract (Views.swift).
            conditions.append("""
                (CASE WHEN lower(method) LIKE '%upi%' THEN 'UPI' WHEN lower(method) LIKE '%card%' THEN 'CARD'
                      WHEN lower(method) LIKE '%netbanking%' OR lower(method) = 'nb' THEN 'NETBANKING'
                      WHEN lower(method) LIKE '%wallet%' OR lower(method) = 'app' THEN 'WALLET'
                      WHEN lower(method) LIKE '%emi%' THEN 'EMI' END) = ANY(\(methods))
                """)
        }
        if let orderID { conditions.append("order_id = \(orderID)") }
        if let customerID { conditions.append("order_id IN (SELECT id FROM orders WHERE customer_id = \(customerID))") }
        if let providerPaymentID { conditions.append("provider_payment_id = \(providerPaymentID)") }
        if let verified { conditions.append("verified = \(verified)") }
        if let createdAfter { conditions.append("created_at > \(createdAfter)::timestamptz") }
        if let createdBefore { conditions.append("created_at < \(createdBefore)::timestamptz") }
        return conditions
    }
}

/// The contract's `RefundFilter`, decoded to SQL conditions over `refunds`.
struct RefundFilter: Sendable {
    var statuses: [String] = []
    var providers: [String] = []
    var paymentID: UUID?
    var orderID: UUID?
    var initiatedBy: [String] = []
    var createdAfter: String?
    var createdBefore: String?

    var conditions: [PostgresQuery] {
        var conditions: [PostgresQuery] = []
        if !statuses.isEmpty { conditions.append("status = ANY(\(statuses))") }
        if !providers.isEmpty { conditions.append("provider = ANY(\(providers))") }
        if let paymentID { conditions.append("payment_id = \(paymentID)") }
        if let orderID { conditions.append("order_id = \(orderID)") }
        if !initiatedBy.isEmpty { conditions.append("initiated_by = ANY(\(initiatedBy))") }
        if let createdAfter { conditions.append("created_at > \(createdAfter)::timestamptz") }
        if let createdBefore { conditions.append("created_at < \(createdBefore)::timestamptz") }
        return conditions
    }
}

extension PaymentStore {
    /// A page of payments (`limit + 1` rows: the extra one says there is a next page), keyset on `(created_at, id)`.
    func list(filter: PaymentFilter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [PaymentRecord] {
        let rows = try await pool.query("""
            SELECT \(sql: Self.paymentColumns) FROM payments \(SQLPattern.whereClause(KeysetCursor.page(filter.conditions, after: cursor, newestFirst: newestFirst)))
            \(KeysetCursor.ordering(newestFirst: newestFirst)) LIMIT \(Int64(limit + 1))
            """)
        return try rows.map(Self.payment)
    }

    /// A page of refunds, like ``list(filter:after:limit:newestFirst:)-(PaymentFilter,_,_,_)``.
    func list(filter: RefundFilter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [RefundRecord] {
        let rows = try await pool.query("""
            SELECT \(sql: Self.refundColumns) FROM refunds \(SQLPattern.whereClause(KeysetCursor.page(filter.conditions, after: cursor, newestFirst: newestFirst)))
            \(KeysetCursor.ordering(newestFirst: newestFirst)) LIMIT \(Int64(limit + 1))
            """)
        return try rows.map(Self.refund)
    }
}
