import Crypto
public import Foundation
public import HTTPClient
import JSON
public import PaymentsCore
public import Postgres

/// Where merchant notifications go (`--merchant-webhook-url`, `PAYQL_MERCHANT_WEBHOOK_SECRET`).
public struct MerchantWebhookConfiguration: Sendable {
    /// The merchant's endpoint (`http://` or `https://`); nil: events are recorded and given up at once
    /// ("no merchant webhook URL configured"), OPS can redeliver them once one is.
    public var url: String?
    /// The HMAC-SHA256 key of `PayQL-Signature` (environment only). Required with a URL.
    public var secret: Secret?
    /// The most one POST may take (also bounded by the outbox attempt's deadline). Default 10 s.
    public var timeout: Duration = .seconds(10)

    /// Not configured.
    public init(url: String? = nil, secret: Secret? = nil) {
        self.url = url
        self.secret = secret
    }
}

/// Merchant notifications (docs/api.md, "Merchant webhooks"): events enqueued in the outbox in the
/// transaction of the change they report, and the handler that POSTs them, signed.
///
/// Body: `{"id": "evt_…", "type": "order.paid", "createdAt": "…", "data": {…}}` (ids are GraphQL global
/// ids, amounts minor-unit strings). Messages are about the order (refund events too), so one order's
/// events reach the merchant in the order they happened; a bill payment's are about the bill payment.
public enum MerchantWebhooks {
    /// The event an order's status change reports, if any: PAID (`order.late_payment` when it was
    /// FAILED, EXPIRED or CANCELLED before), FAILED, EXPIRED, CANCELLED.
    static func orderEventType(from previous: OrderStatusName, to next: OrderStatusName) -> String? {
        switch next {
        case .paid: StatusTransitions.isLatePayment(from: previous, to: next) ? "order.late_payment" : "order.paid"
        case .failed: "order.failed"
        case .expired: "order.expired"
        case .cancelled: "order.cancelled"
        default: nil
        }
    }

    /// Enqueues the event `order`'s move from `previous` reports (nothing for other statuses).
    /// Call in the transaction that moved it.
    static func orderStatusChanged(_ order: OrderRecord, from previous: OrderStatusName, on connection: PostgresConnection) async throws {
        guard let type = orderEventType(from: previous, to: order.status) else { return }
        var data = JSONObject()
        data.append("orderId", .string(GlobalID(.order, order.id).description))
        data.append("receipt", .string(order.receipt))
        data.append("status", .string(order.status.rawValue))
        data.append("previousStatus", .string(previous.rawValue))
        data.append("provider", .string(order.provider.graphQLName))
        data.append("providerOrderId", order.providerOrderID.map(JSONValue.string) ?? .null)
        data.append("amount", money(order.amount.minorUnits, order.amount.currency))
        data.append("amountPaid", money(order.amountPaidMinor, order.amount.currency))
        data.append("amountRefunded", money(order.amountRefundedMinor, order.amount.currency))
        try await enqueue(type: type, object: .order(order.id), orderID: order.id, data: data, on: connection)
    }

    /// Enqueues `refund.processed` for a refund that has just SUCCEEDED, `refund.failed` for one that
    /// has just FAILED (with the provider's reason); nothing for other statuses. Call in its transaction.
    static func refundSettled(_ refund: RefundRecord, orderID: UUID, on connection: PostgresConnection) async throws {
        let type: String
        switch refund.status {
        case "SUCCEEDED": type = "refund.processed"
        case "FAILED": type = "refund.failed"
        default: return
        }
        var data = JSONObject()
        data.append("refundId", .string(GlobalID(.refund, refund.id).description))
        data.append("orderId", .string(GlobalID(.order, orderID).description))
        data.append("paymentId", .string(GlobalID(.payment, refund.paymentID).description))
        data.append("reference", .string(refund.reference))
        data.append("status", .string(refund.status))
        data.append("amount", money(refund.amount.minorUnits, refund.amount.currency))
        data.append("providerRefundId", refund.providerRefundID.map(JSONValue.string) ?? .null)
        if type == "refund.failed" { data.append("failureReason", refund.failureReason.map(JSONValue.string) ?? .null) }
        try await enqueue(type: type, object: .order(orderID), orderID: orderID, data: data, on: connection)
    }

    /// Enqueues `bill_payment.confirmed` (Setu acknowledged the payment). Call in the transaction
    /// that records the confirmation. `billPaymentID` is the row id; `globalID` its GraphQL id
    /// (the BillPayment node's encoding); `data` may carry more fields (e.g. `setuPaymentRef`).
    public static func billPaymentConfirmed(billPaymentID: UUID, globalID: String, orderID: UUID?, amount: Amount,
                                            status: String, more: [(String, String)] = [], on connection: PostgresConnection) async throws {
        var data = JSONObject()
        data.append("billPaymentId", .string(globalID))
        data.append("orderId", orderID.map { .string(GlobalID(.order, $0).description) } ?? .null)
        data.append("status", .string(status))
        data.append("amount", money(amount.minorUnits, amount.currency))
        for (key, value) in more { data.append(key, .string(value)) }
        try await enqueue(type: "bill_payment.confirmed", object: OutboxObject(type: "BillPayment", id: billPaymentID), orderID: orderID,
                          data: data, on: connection)
    }

    private static func money(_ minor: Int64, _ currency: Currency) -> JSONValue {
        .object(["amount": .string(String(minor)), "currency": .string(currency.code)])
    }

    private static func enqueue(type: String, object: OutboxObject, orderID: UUID?, data: JSONObject,
                                on connection: PostgresConnection) async throws {
        let id = UUID()
        var body = JSONObject()
        body.append("id", .string(eventID(id)))
        body.append("type", .string(type))
        body.append("createdAt", .string(PostgresTimestamp(Date()).rfc3339))
        body.append("data", .object(data))
        try await Outbox.enqueue(kind: .merchantWebhook, object: object, orderID: orderID,
                                 payload: PostgresJSONB(text: JSONWriter.string(.object(body))), id: id, on: connection)
    }

    /// The event id of the message `id`: `evt_` and its 32 hex digits (stable across retries and redeliveries).
    static func eventID(_ id: UUID) -> String {
        "evt_" + id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// `t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`.
    public static func signature(secret: Secret, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "t=\(timestamp),v1=" + Encoding.hex(Crypto.hmac(.sha256, key: Array(secret.revealed.utf8), message: message))
    }

    /// What an answer means: 2xx delivered; 410 Gone refused (the endpoint is gone for good); anything
    /// else (3xx are not followed, 4xx, 5xx) tried again on the schedule until the give-up horizon.
    static func result(status: Int, target: String) -> OutboxResult {
        switch status {
        case 200..<300: .delivered(statusCode: status, target: target)
        case 410: .refused("HTTP 410 Gone: the endpoint is gone; not retried", statusCode: status, target: target)
        default: .retry("HTTP \(status)", statusCode: status, target: target)
        }
    }

    /// The outbox handler: POSTs the stored body to the configured URL with `PayQL-Signature`,
    /// through `client`, bounded by the attempt's deadline.
    public static func handler(_ configuration: MerchantWebhookConfiguration, client: HTTPClient) -> OutboxHandler {
        OutboxHandler(kind: .merchantWebhook) { message, deadline in
            guard let url = configuration.url else { return .refused("not sent: no merchant webhook URL configured (--merchant-webhook-url)") }
            guard let secret = configuration.secret, !secret.isEmpty else {
                return .refused("not sent: no PAYQL_MERCHANT_WEBHOOK_SECRET configured", target: url)
            }
            let body = Array(message.payload.text.utf8)
            let type = (try? JSONParser.parse(body))?["type"]?.stringValue ?? ""
            var request = HTTPClientRequest(method: "POST", url: url, headers: [
                ("content-type", "application/json"),
                ("user-agent", "PayQL-Webhooks/1"),
                ("payql-event-id", eventID(message.id)),
                ("payql-event-type", type),
                ("payql-signature", signature(secret: secret, timestamp: Int64(Date().timeIntervalSince1970), body: body)),
            ], body: body, timeout: configuration.timeout)
            request.connectTimeout = min(.seconds(5), configuration.timeout)
            request.deadline = deadline
            do throws(HTTPClientError) {
                let response = try await client.execute(request)
                return result(status: response.status, target: url)
            } catch {
                // The client's message names the failure (timeout, refused, DNS); it never holds a header.
                return .retry("\(error.code): \(error.message)", target: url)
            }
        }
    }
}
