import Crypto
import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers
import Support

/// Provider webhooks: `POST /webhooks/{provider}`. The signature is checked over the raw
/// bytes; an authentic delivery is stored once (de-duplicated on the provider's event id
/// *and* on the hash of its body, two unique constraints) in the same transaction as the
/// status change it causes. Rejected deliveries go to a bounded log only.
struct WebhookService: Sendable {
    let pool: PostgresPool
    let providers: ProviderRegistry
    /// How many rejected deliveries are kept (the oldest are dropped).
    var rejectionLogLimit: Int64 = 1_000
    /// Authentic deliveries go through it: several to a transaction under load (``WebhookIntake``).
    private let intake: WebhookIntake

    /// `maxBatch`: the most deliveries one transaction applies; `writers`: transactions applying
    /// deliveries at once. One: everything that arrives while a batch is written goes into the next,
    /// so under load a commit carries about twice as many deliveries as with two writers splitting
    /// them, and PostgreSQL spends a quarter less CPU per delivery (Benchmarks/gateway/README.md,
    /// 03:15 UTC) for as many deliveries a second. More than one stays safe: each batch locks its
    /// orders and payments in one order, so writers do not deadlock each other.
    init(pool: PostgresPool, providers: ProviderRegistry, maxBatch: Int = 64, writers: Int = 1) {
        self.pool = pool
        self.providers = providers
        intake = WebhookIntake(pool: pool, writer: WebhookBatchWriter(pool: pool), maxBatch: maxBatch, writers: writers)
    }

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
        let bodyHash = Data(Crypto.hash(.sha256, body))
        let verdict = Webhooks.verify(provider: provider, request: WebhookRequest(headers: headers, body: body), secret: secret)
        guard verdict.isValid else {
            let reason = if case .invalid(let reason) = verdict { reason } else { "rejected" }
            try await logRejection(provider: provider, reason: reason, bodyHash: bodyHash, bytes: body.count)
            return .rejected(reason)
        }
        // Authentic: from here on read with any NUL as U+FFFD (PostgreSQL stores none; ``NULReplacement``).
        // The hash that de-duplicates stays the one of the bytes received.
        let body = NULReplacement.replaced(in: body, form: provider == .instamojo) ?? body
        // Parsed once, for the event (Razorpay's reader) and for the redacted copy stored.
        let parsed = try? JSONParser.parse(body)
        let event: WebhookEvent
        do {
            event = try Webhooks.event(provider: provider, request: WebhookRequest(headers: headers, body: body, parsedJSON: parsed))
        } catch {
            // Authentic but not understood: kept (redacted) for ops, acknowledged so the provider stops retrying.
            try await store(provider: provider, eventID: "sha256:" + Encoding.hex(bodyHash), type: "UNDOCUMENTED", bodyHash: bodyHash,
                            body: body, outcome: "IGNORED", error: error.message)
            return .accepted("IGNORED")
        }
        // Stored and applied with whatever else arrives meanwhile, in one transaction (group commit);
        // answered once that transaction committed.
        return try await intake.submit(WebhookDelivery(event: event, body: body, bodyHash: bodyHash, payload: Self.redactedPayload(body, provider: provider, parsed: parsed)))
    }

    /// Applies an event alone in its transaction (``reprocess(eventID:)``; `body` as received, or as the
    /// stored payload gives it back); returns the stored outcome (APPLIED, UNMATCHED, IGNORED) and
    /// records what it linked the event row to.
    static func apply(_ event: WebhookEvent, body: [UInt8], eventRowID: UUID, on connection: PostgresConnection) async throws -> String {
        var locks = WebhookLocks()
        let applied = try await apply(event, body: body, eventRowID: eventRowID, locks: &locks, newPaymentID: nil, on: connection)
        _ = try await connection.query("""
            UPDATE webhook_events SET order_id = coalesce(\(applied.orderID), order_id), payment_id = coalesce(\(applied.paymentID), payment_id),
                refund_id = coalesce(\(applied.refundID), refund_id)
            WHERE id = \(eventRowID)
            """)
        return applied.outcome
    }

    /// One delivery's effect, whatever its provider: Setu's events change bill payments and bill fetches
    /// (their own tables, read from `body`; what they change is not in `locks`), every other provider's
    /// an order through `locks` (``apply(_:eventRowID:locks:newPaymentID:on:)``).
    static func apply(_ event: WebhookEvent, body: [UInt8], eventRowID: UUID, locks: inout WebhookLocks, newPaymentID: UUID?,
                      on connection: PostgresConnection) async throws -> AppliedWebhook {
        guard event.provider != .setu else {
            let outcome = try await BillPayWebhooks.apply(event, body: body, eventRowID: eventRowID, on: connection)
            locks.forgetPayments()
            return AppliedWebhook(outcome: outcome)
        }
        return try await apply(event, eventRowID: eventRowID, locks: &locks, newPaymentID: newPaymentID, on: connection)
    }

    /// Applies an event to its order through `locks` (the rows its batch locked); returns the outcome
    /// and what the event row is to be linked to (written by the caller, for the whole batch at once).
    /// `newPaymentID`: the id of the payment the event creates, if it creates one (nil: PostgreSQL's).
    static func apply(_ event: WebhookEvent, eventRowID: UUID, locks: inout WebhookLocks, newPaymentID: UUID? = nil,
               on connection: PostgresConnection) async throws -> AppliedWebhook {
        guard let providerOrderID = event.orderID else { return AppliedWebhook(outcome: "IGNORED") }
        guard var order = try await locks.order(provider: event.provider, id: providerOrderID, on: connection) else {
            return AppliedWebhook(outcome: "UNMATCHED")
        }
        var applied = AppliedWebhook(outcome: "APPLIED", orderID: order.id)
        if event.refundID != nil || event.refundReference != nil {
            // A refund event: the refund moves (and, once it succeeded, its payment's and order's amountRefunded);
            // the payment entity it carries is a snapshot whose amount is the refund's, so it is not recorded as a payment.
            guard let refund = try await RefundStore.find(provider: event.provider, providerRefundID: event.refundID,
                                                          reference: event.refundReference ?? event.refundID, on: connection),
                  refund.orderID == order.id else {
                applied.outcome = "UNMATCHED"
                return applied
            }
            let update = RefundStore.Update(status: event.refundStatus.flatMap(RefundStore.Update.contractStatus), providerRefundID: event.refundID == event.refundReference ? nil : event.refundID,
                                            providerStatus: event.rawRefundStatus, failureReason: event.rawRefundStatus.map { "\(event.type): \($0)" })
            _ = try await RefundStore.apply(update, refundID: refund.id, source: "WEBHOOK", webhookEventID: eventRowID, on: connection)
            // The refund changed its payment and order without handing them back.
            locks.forgetPayments()
            locks.forgetOrder(order)
            applied.refundID = refund.id
            applied.paymentID = refund.paymentID
            return applied
        }
        let statusBefore = order.status
        if let reported = reportedPayment(event) {
            let existing = try await locks.payment(provider: event.provider, id: reported.id, on: connection)
            let (payment, updated) = try await PaymentStore.record(reported, for: order, existing: existing, verification: .signedWebhook,
                                                                   source: "WEBHOOK", webhookEventID: eventRowID, newID: newPaymentID,
                                                                   on: connection)
            locks.store(payment)
            applied.paymentID = payment.id
            order = updated
        }
        return try await finish(event, order: order, statusBefore: statusBefore, applied: applied, eventRowID: eventRowID, locks: &locks,
                                on: connection)
    }

    /// The largest payment an event may report: ₹10 lakh crore less a paisa, Cashfree's own maximum order
    /// amount and above every other provider's. An order's amount paid is a sum of its payments in a
    /// `bigint`: it would take 9,223 payments of this size to overflow it.
    static let largestPaymentMinor: Int64 = 999_999_999_999_999

    /// The payment a payment event reports (nil: the event carries none, or not all of it, or an amount
    /// that is no payment's: nothing or less, or more than ``largestPaymentMinor`` — PostgreSQL would
    /// refuse the row or overflow the order's sum, and the delivery, failing at every retry, would never
    /// be stored).
    static func reportedPayment(_ event: WebhookEvent) -> ProviderPayment? {
        guard let providerOrderID = event.orderID, let paymentID = event.paymentID, let status = event.paymentStatus,
              let amount = event.amount, amount.minorUnits > 0, amount.minorUnits <= largestPaymentMinor else { return nil }
        return ProviderPayment(provider: event.provider, id: paymentID, orderID: providerOrderID, amount: amount,
                               status: status, rawStatus: event.rawPaymentStatus ?? status.name)
    }

    /// The payment `event` records, ready to be recorded with the others of its wave in one statement
    /// (``PaymentStore/record(_:verification:source:on:)``), when `locks` already holds its order and knows
    /// its payment as stored (or that there is none); nil for anything else (applied alone: ``apply(_:eventRowID:locks:newPaymentID:on:)``).
    static func batchable(_ event: WebhookEvent, eventRowID: UUID, newPaymentID: UUID?, locks: WebhookLocks) -> PaymentStore.BatchedPayment? {
        guard event.provider != .setu, event.refundID == nil, event.refundReference == nil, let reported = reportedPayment(event),
              let providerOrderID = event.orderID,
              case .some(.some(let order)) = locks.known(order: providerOrderID, provider: event.provider),
              case .some(let existing) = locks.known(payment: reported.id, provider: event.provider) else { return nil }
        return PaymentStore.BatchedPayment(reported: reported, order: order, existing: existing, newID: newPaymentID ?? UUID(),
                                           webhookEventID: eventRowID)
    }

    /// The rest of ``apply(_:eventRowID:locks:newPaymentID:on:)`` for an event whose payment was recorded with
    /// others (`batched`, as ``batchable(_:eventRowID:newPaymentID:locks:)`` gave it; `recorded`, what recording
    /// gave): its order settled, then the event's own order status.
    static func apply(_ event: WebhookEvent, eventRowID: UUID, batched: PaymentStore.BatchedPayment, recorded: PaymentStore.RecordedPayment,
                      locks: inout WebhookLocks, on connection: PostgresConnection) async throws -> AppliedWebhook {
        locks.store(recorded.payment)
        let order = try await PaymentStore.settle(batched.order, paid: recorded.paid, status: recorded.status, paymentID: recorded.payment.id,
                                                  source: "WEBHOOK", webhookEventID: eventRowID, on: connection)
        let applied = AppliedWebhook(outcome: "APPLIED", orderID: order.id, paymentID: recorded.payment.id)
        return try await finish(event, order: order, statusBefore: batched.order.status, applied: applied,
                                eventRowID: eventRowID, locks: &locks, on: connection)
    }

    /// What follows an event's payment: the order status the event itself reports, and `locks` brought up to date.
    private static func finish(_ event: WebhookEvent, order: OrderRecord, statusBefore: OrderStatusName, applied: AppliedWebhook,
                               eventRowID: UUID, locks: inout WebhookLocks, on connection: PostgresConnection) async throws -> AppliedWebhook {
        var order = order
        if let status = event.orderStatus, let proposed = OrderStatusName(rawValue: status.name) {
            order = try await OrderStore.applyStatus(order: order, proposed: proposed, providerStatus: nil, source: "WEBHOOK",
                                                     webhookEventID: eventRowID, on: connection)
        }
        if order.status != statusBefore {
            // A status change may touch the order's payments (a bill payment's confirmation fills in their method).
            locks.forgetPayments()
        }
        locks.store(order)
        return applied
    }

    private func store(provider: ProviderName, eventID: String, type: String, bodyHash: Data, body: [UInt8], outcome: String, error: String) async throws {
        _ = try await pool.query("""
            INSERT INTO webhook_events (provider, event_id, event_type, payload, body_hash, outcome, processing_error, processed_at)
            VALUES (\(provider.rawValue), \(eventID), \(type), \(Self.redactedPayload(body, provider: provider)), \(bodyHash), \(outcome), \(error), now())
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
    /// Instamojo posts form data: kept as an object of its fields (a repeated name keeps its first
    /// value, as the event is read; jsonb orders the keys its own way), so ops see it and it can be
    /// reprocessed.
    static func redactedPayload(_ body: [UInt8], provider: ProviderName) -> PostgresJSONB {
        redactedPayload(body, provider: provider, parsed: try? JSONParser.parse(body))
    }

    /// ``redactedPayload(_:provider:)`` of a body the caller has parsed already (`parsed`: `JSONParser.parse`'s
    /// value, nil when the body is not JSON).
    static func redactedPayload(_ body: [UInt8], provider: ProviderName, parsed: JSONValue?) -> PostgresJSONB {
        if let parsed {
            return PostgresJSONB(text: JSONWriter.string(WebhookRedaction.redact(parsed)))
        }
        guard provider == .instamojo, let pairs = URLEncodedForm.decodeStrictly(body) else { return PostgresJSONB(text: "{}") }
        var fields = JSONObject(capacity: pairs.count)
        var seen = Set<String>()
        for (name, value) in pairs where seen.insert(name).inserted { fields.append(name, .string(value)) }
        return PostgresJSONB(text: JSONWriter.string(WebhookRedaction.redact(.object(fields))))
    }

    /// The body a stored payload stands for, to be read again as the provider's event: the JSON
    /// itself, or for Instamojo the form its fields came from (``redactedPayload(_:provider:)``).
    static func storedBody(_ payload: PostgresJSONB, provider: ProviderName) -> [UInt8] {
        guard provider == .instamojo, let object = (try? JSONParser.parse(Array(payload.text.utf8)))?.objectValue else {
            return Array(payload.text.utf8)
        }
        return URLEncodedForm.encode(object.members.compactMap { name, value in value.stringValue.map { (name, $0) } })
    }
}
