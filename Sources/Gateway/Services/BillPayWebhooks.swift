import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers

/// Setu's user-event webhooks (flow F23) applied to bill payments, inside the transaction that
/// stores the event. Setu names the bill payment by its `orderId` (a sample uses an id without
/// `COUWL`), else by the link's `sessionId`. Bill fetches are applied to their link by its `sessionId`
/// (`bill_fetches`, ``BillFetchStore``); disputes are stored, not applied.
enum BillPayWebhooks {
    /// The bill payment status a user event moves to; nil for events about no payment.
    static func status(event: String) -> String? {
        switch event {
        case "bill_payment_success": "BILL_PAID"
        case "bill_payment_failure": "BILL_PAYMENT_FAILED"
        case "bill_collection_failure": "COLLECTION_FAILED"
        case "bill_payment_refunded": "REFUNDED"
        default: nil
        }
    }

    /// Applies `event` (its raw `body` for the biller and bill fields); returns the stored outcome.
    /// A reprocessed event is read from its stored payload, where personal data (and every value
    /// under a key containing "name") is redacted: such values count as absent, never as data.
    static func apply(_ event: WebhookEvent, body: [UInt8], eventRowID: UUID, on connection: PostgresConnection) async throws -> String {
        let parsed = try? JSONParser.parse(body)
        if event.type == "bill_fetch_success" || event.type == "bill_fetch_failure" {
            let fetch = billFetch(success: event.type == "bill_fetch_success", body: parsed)
            return try await BillFetchStore.apply(fetch, eventRowID: eventRowID, on: connection)
        }
        guard let status = status(event: event.type) else { return "IGNORED" }
        func text(_ key: String) -> String? { WebhookRedaction.unredactedString(parsed?[key]) }
        var bill: BillPaymentRecord?
        if let orderID = event.orderID {
            bill = try await connection.query("""
                SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments WHERE setu_order_id = \(orderID) FOR UPDATE
                """).first.map(BillPayStore.payment)
        }
        if bill == nil, let session = text("sessionId") {
            bill = try await connection.query("""
                SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments
                WHERE bill_pay_link_id = (SELECT id FROM bill_pay_links WHERE session_id = \(session))
                ORDER BY created_at DESC LIMIT 1 FOR UPDATE
                """).first.map(BillPayStore.payment)
        }
        guard let bill else { return "UNMATCHED" }
        if let orderID = bill.orderID {
            _ = try await connection.query("UPDATE webhook_events SET order_id = \(orderID) WHERE id = \(eventRowID)")
        }
        // A refunded bill stays refunded; a late event does not undo it.
        guard bill.status != "REFUNDED" else { return "APPLIED" }
        let flag: String? = status == "COLLECTION_FAILED"
            ? "COLLECTION_FAILED: the money was collected but Setu could not pay the bill; Setu is expected to ask for a refund" : nil
        let bills = parsed?["billDetails"]?.arrayValue.map { PostgresJSONB(text: JSONWriter.string(WebhookRedaction.withoutRedacted(.array($0)))) }
        _ = try await connection.query("""
            UPDATE bill_payments SET status = \(status), setu_transaction_id = coalesce(\(event.paymentID), setu_transaction_id),
                biller_id = coalesce(\(text("billerId")), biller_id),
                biller_name = coalesce(\(text("billerName")), biller_name),
                biller_category = coalesce(\(text("billerCategory")), biller_category),
                bills = coalesce(\(bills), bills),
                flagged_reason = coalesce(\(flag), flagged_reason), flagged_at = CASE WHEN \(flag != nil) THEN now() ELSE flagged_at END,
                updated_at = now()
            WHERE id = \(bill.id)
            """)
        try await BillPayStore.notify(bill.id, on: connection)
        return "APPLIED"
    }

    /// What a `bill_fetch_success` / `bill_fetch_failure` user event says (`body` parsed); redacted and
    /// empty values count as absent.
    static func billFetch(success: Bool, body: JSONValue?) -> BillFetchStore.Fetch {
        func text(_ value: JSONValue?) -> String? {
            WebhookRedaction.unredactedString(value).flatMap { $0.isEmpty ? nil : $0 }
        }
        let bills: JSONValue
        if let details = body?["billDetails"]?.arrayValue {
            bills = WebhookRedaction.withoutRedacted(.array(details))
        } else if success, let body {
            // Before billDetails[], a fetch carried one bill in top-level fields (setu.md §6: deprecated, still sent).
            var bill = JSONObject()
            for key in ["billAmount", "billNumber", "billDate", "dueDate", "customerName"] {
                if let value = text(body[key]) { bill[key] = .string(value) }
            }
            bills = bill.count == 0 ? .array([]) : .array([.object(bill)])
        } else {
            bills = .array([])
        }
        return BillFetchStore.Fetch(
            success: success, sessionID: text(body?["sessionId"]), billerID: text(body?["billerId"]),
            billerName: text(body?["billerName"]), billerCategory: text(body?["billerCategory"]), bills: bills,
            errorCode: text(body?["error"]?["code"]) ?? text(body?["fetchErrorCode"]), errorMessage: text(body?["error"]?["message"]))
    }
}
