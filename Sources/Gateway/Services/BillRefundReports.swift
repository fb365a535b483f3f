import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers

extension OutboxKind {
    /// A Setu refund-event for a refund of a bill's payment (``BillRefundReports``).
    public static let setuRefundEvent = OutboxKind(rawValue: "setu.refund_event")
}

/// Refunds of the order that paid a Setu bill are reported to Setu (`POST /api/v2/webhooks/refund-event`,
/// setu.md §5, optional in Setu's docs): enqueued in the transaction that settles the refund, delivered
/// by the outbox with its retries. A refund that returns the whole bill amount makes the bill payment REFUNDED.
enum BillRefundReports {
    /// Called by ``RefundStore/apply(_:refundID:source:webhookEventID:on:)`` when a refund became final.
    static func refundSettled(_ refund: RefundRecord, orderID: UUID, on connection: PostgresConnection) async throws {
        guard ["SUCCEEDED", "FAILED", "CANCELLED"].contains(refund.status),
              let bill = try await connection.query("""
                  SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments WHERE order_id = \(orderID) FOR UPDATE
                  """).first.map(BillPayStore.payment) else { return }
        if refund.status == "SUCCEEDED" {
            let refunded = try await connection.query("SELECT amount_refunded_minor FROM orders WHERE id = \(orderID)").single(Int64.self) ?? 0
            if refunded >= bill.amount.minorUnits {
                _ = try await connection.query("UPDATE bill_payments SET status = 'REFUNDED', updated_at = now() WHERE id = \(bill.id)")
                try await BillPayStore.notify(bill.id, on: connection)
            }
        }
        let payload = JSONWriter.string(.object([
            "billPaymentId": .string(bill.id.uuidString.lowercased()), "refundId": .string(refund.reference),
            "succeeded": .bool(refund.status == "SUCCEEDED"),
            "at": .int((refund.processedAt ?? refund.updatedAt).microsecondsSinceEpoch / 1_000_000),
        ]))
        try await Outbox.enqueue(kind: .setuRefundEvent, object: OutboxObject(type: "BillPayment", id: bill.id), orderID: orderID,
                                 payload: PostgresJSONB(text: payload), on: connection)
    }

    /// The outbox handler: one refund-event to Setu; a 4xx is not retried.
    static func handler(store: BillPayStore, providers: ProviderRegistry) -> OutboxHandler {
        OutboxHandler(kind: .setuRefundEvent) { message, _ in
            let target = "setu refund-event"
            guard let setu = providers.setu else { return .retry("SETU is not configured", target: target) }
            guard let payload = try? JSONParser.parse(Array(message.payload.text.utf8)), let refundID = payload["refundId"]?.stringValue else {
                return .refused("the message's payload is not a refund report", target: target)
            }
            let bill: BillPaymentRecord?
            do { bill = try await store.payments(ids: [message.object.id])[message.object.id] } catch { return .retry("database: \(error)", target: target) }
            guard let bill else { return .refused("the bill payment is gone", target: target) }
            do {
                try await setu.reportRefund(orderID: bill.setuOrderID, refundID: refundID, succeeded: payload["succeeded"]?.boolValue ?? false,
                                            at: payload["at"]?.intValue ?? 0)
                return .delivered(statusCode: 200, target: target)
            } catch let error as ProviderError {
                let text = "\(error.providerCode.map { "\($0): " } ?? "")\(error.message)"
                switch error.code.outcome {
                case .refused: return .refused(text, statusCode: error.httpStatus, target: target)
                case .notDone, .unknown: return .retry(text, statusCode: error.httpStatus, target: target)
                }
            } catch {
                return .retry("\(error)", target: target)
            }
        }
    }
}
