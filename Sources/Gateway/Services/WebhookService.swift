import Crypto
import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers

/// Provider webhooks: `POST /webhooks/{provider}`. The signature is checked over the raw
/// bytes; an authentic delivery is stored once (de-duplicated on the provider's event id
/// *and* on the hash of its body, two unique constraints) in the same transaction as the
/// status change it causes. Rejected deliveries go to a bounded log only.
struct WebhookService: Sendable {
    let pool: PostgresPool
    let providers: ProviderRegistry
    /// How many rejected deliveries are kept (the oldest are dropped).
    var rejectionLogLimit: Int64 = 1_000

    /// What the HTTP layer answers.
    enum Outcome: Sendable, Equatable {
        /// 200: applied (or stored as unmatched / not understood).
        case accepted(String)
        /// 200: seen before, nothing done again.
        case duplicate
        /// 401: not authentic.
        case rejected(String)
        /// 404: no such provider configured.
        case unknownProvider
    }

    func receive(provider name: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Outcome {
        guard let provider = ProviderName(rawValue: name), let secret = providers.webhookSecrets[provider] else { return .unknownProvider }
        let request = WebhookRequest(headers: headers, body: body)
        let bodyHash = Data(Crypto.hash(.sha256, body))
        let event: WebhookEvent
        switch Webhooks.verifiedEvent(provider: provider, request: request, secret: secret) {
        case .failure(.invalidSignature(let reason)):
            try await logRejection(provider: provider, reason: reason, bodyHash: bodyHash, bytes: body.count)
            return .rejected(reason)
        case .failure(.undocumentedPayload(let reason)):
            // Authentic but not understood: kept (redacted) for ops, acknowledged so the provider stops retrying.
            try await store(provider: provider, eventID: "sha256:" + Encoding.hex(bodyHash), type: "UNDOCUMENTED", bodyHash: bodyHash,
                            body: body, outcome: "IGNORED", error: reason)
            return .accepted("IGNORED")
        case .success(let parsed):
            event = parsed
        }
        return try await pool.withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO webhook_events (provider, event_id, event_type, payload, body_hash, outcome)
                VALUES (\(provider.rawValue), \(event.eventID), \(event.type), \(Self.redactedPayload(body)), \(bodyHash), 'PROCESSING')
                ON CONFLICT DO NOTHING RETURNING id
                """).single(UUID.self)
            guard let eventRowID = inserted else {
                _ = try await connection.query("""
                    UPDATE webhook_events SET deliveries = deliveries + 1
                    WHERE provider = \(provider.rawValue) AND (event_id = \(event.eventID) OR body_hash = \(bodyHash))
                    """)
                return .duplicate
            }
            let outcome = event.provider == .setu
                ? try await BillPayWebhooks.apply(event, body: body, eventRowID: eventRowID, on: connection)
                : try await apply(event, eventRowID: eventRowID, on: connection)
            _ = try await connection.query("UPDATE webhook_events SET outcome = \(outcome), processed_at = now() WHERE id = \(eventRowID)")
            return .accepted(outcome)
        }
    }

    /// Applies an event to its order; returns the stored outcome (APPLIED, UNMATCHED, IGNORED).
    func apply(_ event: WebhookEvent, eventRowID: UUID, on connection: PostgresConnection) async throws -> String {
        guard let providerOrderID = event.orderID else { return "IGNORED" }
        let orderID = try await connection.query("""
            SELECT id FROM orders WHERE provider = \(event.provider.rawValue) AND provider_order_id = \(providerOrderID)
            """).single(UUID.self)
        guard let orderID, var order = try await OrderStore.lock(orderID: orderID, on: connection) else { return "UNMATCHED" }
        _ = try await connection.query("UPDATE webhook_events SET order_id = \(orderID) WHERE id = \(eventRowID)")
        if event.refundID != nil || event.refundReference != nil {
            // A refund event: the refund moves (and, once it succeeded, its payment's and order's amountRefunded);
            // the payment entity it carries is a snapshot whose amount is the refund's, so it is not recorded as a payment.
            guard let refund = try await RefundStore.find(provider: event.provider, providerRefundID: event.refundID,
                                                          reference: event.refundReference ?? event.refundID, on: connection),
                  refund.orderID == orderID else { return "UNMATCHED" }
            let update = RefundStore.Update(status: event.refundStatus.flatMap(RefundStore.Update.contractStatus), providerRefundID: event.refundID == event.refundReference ? nil : event.refundID,
                                            providerStatus: event.rawRefundStatus, failureReason: event.rawRefundStatus.map { "\(event.type): \($0)" })
            _ = try await RefundStore.apply(update, refundID: refund.id, source: "WEBHOOK", webhookEventID: eventRowID, on: connection)
            _ = try await connection.query("UPDATE webhook_events SET refund_id = \(refund.id), payment_id = \(refund.paymentID) WHERE id = \(eventRowID)")
            return "APPLIED"
        }
        if let paymentID = event.paymentID, let status = event.paymentStatus, let amount = event.amount {
            let reported = ProviderPayment(provider: event.provider, id: paymentID, orderID: providerOrderID, amount: amount,
                                           status: status, rawStatus: event.rawPaymentStatus ?? status.name)
            let (payment, updated) = try await PaymentStore.record(reported, for: order, verification: .signedWebhook, source: "WEBHOOK",
                                                                   webhookEventID: eventRowID, on: connection)
            _ = try await connection.query("UPDATE webhook_events SET payment_id = \(payment.id) WHERE id = \(eventRowID)")
            order = updated
        }
        if let status = event.orderStatus, let proposed = OrderStatusName(rawValue: status.name) {
            order = try await OrderStore.applyStatus(order: order, proposed: proposed, providerStatus: nil, source: "WEBHOOK",
                                                     webhookEventID: eventRowID, on: connection)
        }
        return "APPLIED"
    }

    private func store(provider: ProviderName, eventID: String, type: String, bodyHash: Data, body: [UInt8], outcome: String, error: String) async throws {
        _ = try await pool.query("""
            INSERT INTO webhook_events (provider, event_id, event_type, payload, body_hash, outcome, processing_error, processed_at)
            VALUES (\(provider.rawValue), \(eventID), \(type), \(Self.redactedPayload(body)), \(bodyHash), \(outcome), \(error), now())
            ON CONFLICT DO NOTHING
            """)
    }

    private func logRejection(provider: ProviderName, reason: String, bodyHash: Data, bytes: Int) async throws {
        _ = try await pool.query("""
            INSERT INTO webhook_rejections (provider, reason, body_hash, body_bytes) VALUES (\(provider.rawValue), \(reason), \(bodyHash), \(Int64(bytes)))
            """)
        _ = try await pool.query("""
            DELETE FROM webhook_rejections WHERE id <= (SELECT max(id) FROM webhook_rejections) - \(rejectionLogLimit)
            """)
    }

    /// The body as jsonb with values under sensitive-looking keys replaced (bank accounts, VPAs,
    /// contact details): ops read payloads, and the raw body is only needed for the signature.
    static func redactedPayload(_ body: [UInt8]) -> PostgresJSONB {
        guard let parsed = try? JSONParser.parse(body) else { return PostgresJSONB(text: "{}") }
        return PostgresJSONB(text: JSONWriter.string(WebhookRedaction.redact(parsed)))
    }
}
