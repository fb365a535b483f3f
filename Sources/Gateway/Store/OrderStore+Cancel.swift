import Foundation
import Postgres

extension OrderStore {
    /// Moves a locked, unpaid order to CANCELLED with a CANCELLED timeline entry.
    static func cancel(_ order: OrderRecord, providerStatus: String?, source: String, message: String,
                       on connection: PostgresConnection) async throws -> OrderRecord {
        let rows = try await connection.query("""
            UPDATE orders SET status = 'CANCELLED', provider_status = coalesce(\(providerStatus), provider_status),
                needs_reconciliation = false, updated_at = now()
            WHERE id = \(order.id) RETURNING \(sql: columns)
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("the order disappeared") }
        try await appendEvent(orderID: order.id, kind: "CANCELLED", status: .cancelled, previous: order.status, providerStatus: providerStatus,
                              source: source, message: message, on: connection)
        let cancelled = try record(row)
        // A cancelled order that paid a Setu bill is reported to Setu as FAILURE (decision 7).
        try await BillConfirmations.orderMoved(cancelled, to: .cancelled, on: connection)
        // The merchant hears of it once this commits (order.cancelled).
        try await MerchantWebhooks.orderStatusChanged(cancelled, from: order.status, on: connection)
        return cancelled
    }
}
