import Foundation
import PaymentsCore
import Postgres
import Providers

/// Payments and refunds, and what they do to their order.
struct PaymentStore: Sendable {
    let pool: PostgresPool

    static let paymentColumns: StaticString = """
        id, order_id, provider, provider_payment_id, status, provider_status, method, amount_minor, currency, amount_refunded_minor, \
        verified, verification_method, verified_at, error_code, error_description, failure_reason, failure_source, failure_step, \
        bank_reference, client_reported_reward_status, captured_at, created_at, updated_at
        """

    static func payment(_ row: PostgresRow) throws -> PaymentRecord { try payment(row, from: 0) }

    /// The payment in `row`'s columns from `first` on (``paymentColumns``' order; a join puts them after others).
    static func payment(_ row: PostgresRow, from first: Int) throws -> PaymentRecord {
        guard let provider = ProviderName(rawValue: try row.decode(String.self, at: first + 2)),
              let currency = Currency.known(try row.decode(String.self, at: first + 8)) else {
            throw GatewayRequestError.internal("a payment row holds an unknown provider or currency")
        }
        return PaymentRecord(
            id: try row.decode(UUID.self, at: first), orderID: try row.decode(UUID.self, at: first + 1), provider: provider,
            providerPaymentID: try row.decode(String.self, at: first + 3), status: try row.decode(String.self, at: first + 4),
            providerStatus: try row.decode(String?.self, at: first + 5), method: try row.decode(String?.self, at: first + 6),
            amount: Amount(minorUnits: try row.decode(Int64.self, at: first + 7), currency: currency),
            amountRefundedMinor: try row.decode(Int64.self, at: first + 9), verified: try row.decode(Bool.self, at: first + 10),
            verificationMethod: try row.decode(String?.self, at: first + 11),
            verifiedAt: try row.decode(PostgresTimestamp?.self, at: first + 12),
            errorCode: try row.decode(String?.self, at: first + 13), errorDescription: try row.decode(String?.self, at: first + 14),
            failureReason: try row.decode(String?.self, at: first + 15), failureSource: try row.decode(String?.self, at: first + 16),
            failureStep: try row.decode(String?.self, at: first + 17), bankReference: try row.decode(String?.self, at: first + 18),
            clientReportedRewardStatus: try row.decode(Bool?.self, at: first + 19),
            capturedAt: try row.decode(PostgresTimestamp?.self, at: first + 20),
            createdAt: try row.decode(PostgresTimestamp.self, at: first + 21), updatedAt: try row.decode(PostgresTimestamp.self, at: first + 22))
    }

    static let refundColumns: StaticString = """
        id, payment_id, order_id, provider, provider_refund_id, reference, amount_minor, currency, status, provider_status, \
        speed_requested, speed_processed, reason, note, initiated_by, failure_reason, created_at, updated_at, processed_at, \
        bank_reference, needs_reconciliation
        """

    static func refund(_ row: PostgresRow) throws -> RefundRecord {
        guard let provider = ProviderName(rawValue: try row.decode(String.self, at: 3)),
              let currency = Currency.known(try row.decode(String.self, at: 7)) else {
            throw GatewayRequestError.internal("a refund row holds an unknown provider or currency")
        }
        return RefundRecord(
            id: try row.decode(UUID.self, at: 0), paymentID: try row.decode(UUID.self, at: 1), orderID: try row.decode(UUID?.self, at: 2),
            provider: provider, providerRefundID: try row.decode(String?.self, at: 4), reference: try row.decode(String.self, at: 5),
            amount: Amount(minorUnits: try row.decode(Int64.self, at: 6), currency: currency), status: try row.decode(String.self, at: 8),
            providerStatus: try row.decode(String?.self, at: 9), speedRequested: try row.decode(String?.self, at: 10),
            speedProcessed: try row.decode(String?.self, at: 11), reason: try row.decode(String?.self, at: 12),
            note: try row.decode(String?.self, at: 13), initiatedBy: try row.decode(String.self, at: 14),
            failureReason: try row.decode(String?.self, at: 15), createdAt: try row.decode(PostgresTimestamp.self, at: 16),
            updatedAt: try row.decode(PostgresTimestamp.self, at: 17), processedAt: try row.decode(PostgresTimestamp?.self, at: 18),
            bankReference: try row.decode(String?.self, at: 19), needsReconciliation: try row.decode(Bool.self, at: 20))
    }

    /// Payments of these orders, oldest first per order.
    func payments(orderIDs: [UUID]) async throws -> [UUID: [PaymentRecord]] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.paymentColumns) FROM payments WHERE \(SQLPattern.matches("order_id", anyOf: orderIDs)) ORDER BY created_at, id
            """)
        var found: [UUID: [PaymentRecord]] = [:]
        for row in rows { let payment = try Self.payment(row); found[payment.orderID, default: []].append(payment) }
        return found
    }

    /// Payments by id.
    func payments(ids: [UUID]) async throws -> [UUID: PaymentRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.paymentColumns) FROM payments WHERE \(SQLPattern.matches("id", anyOf: ids))")
        var found: [UUID: PaymentRecord] = [:]
        for row in rows { let payment = try Self.payment(row); found[payment.id] = payment }
        return found
    }

    /// Refunds by id.
    func refunds(ids: [UUID]) async throws -> [UUID: RefundRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.refundColumns) FROM refunds WHERE \(SQLPattern.matches("id", anyOf: ids))")
        var found: [UUID: RefundRecord] = [:]
        for row in rows { let refund = try Self.refund(row); found[refund.id] = refund }
        return found
    }

    /// Refunds of these payments, oldest first.
    func refunds(paymentIDs: [UUID]) async throws -> [UUID: [RefundRecord]] {
        guard !paymentIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.refundColumns) FROM refunds WHERE \(SQLPattern.matches("payment_id", anyOf: paymentIDs)) ORDER BY created_at, id
            """)
        var found: [UUID: [RefundRecord]] = [:]
        for row in rows { let refund = try Self.refund(row); found[refund.paymentID, default: []].append(refund) }
        return found
    }

    /// Refunds of these orders, oldest first.
    func refunds(orderIDs: [UUID]) async throws -> [UUID: [RefundRecord]] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.refundColumns) FROM refunds WHERE \(SQLPattern.matches("order_id", anyOf: orderIDs)) ORDER BY created_at, id
            """)
        var found: [UUID: [RefundRecord]] = [:]
        for row in rows {
            let refund = try Self.refund(row)
            if let order = refund.orderID { found[order, default: []].append(refund) }
        }
        return found
    }

    /// How PayQL learned a payment's status.
    enum Verification: String, Sendable {
        case checkoutSignature = "CHECKOUT_SIGNATURE"
        case providerStatusCheck = "PROVIDER_STATUS_CHECK"
        case signedWebhook = "SIGNED_WEBHOOK"
    }

    /// Records what the provider says of a payment of `order` (locked by the caller) and moves
    /// the order: PAID once verified captures reach its amount, ATTEMPTED/PENDING while paying.
    /// Returns the payment and the order as they are now.
    static func record(_ reported: ProviderPayment, for order: OrderRecord, verification: Verification, source: String,
                       webhookEventID: UUID? = nil, on connection: PostgresConnection) async throws -> (PaymentRecord, OrderRecord) {
        let existing = try await lockPayment(provider: reported.provider, providerPaymentID: reported.id, on: connection)
        return try await record(reported, for: order, existing: existing, verification: verification, source: source,
                                webhookEventID: webhookEventID, on: connection)
    }

    /// Locks the payment `provider` knows as `providerPaymentID` for the rest of the transaction and reads it.
    static func lockPayment(provider: ProviderName, providerPaymentID: String, on connection: PostgresConnection) async throws -> PaymentRecord? {
        try await connection.query("""
            SELECT \(sql: paymentColumns) FROM payments WHERE provider = \(provider.rawValue) AND provider_payment_id = \(providerPaymentID) FOR UPDATE
            """).first.map(payment)
    }

    /// ``record(_:for:verification:source:webhookEventID:on:)`` with the payment already locked and
    /// read by the caller (`existing`: nil when there is none), as a batch of webhooks does.
    /// `newID`: the id a payment inserted now gets (a batch of webhooks picks it before, to store its
    /// event row's link to it with the row); nil: one generated by PostgreSQL.
    static func record(_ reported: ProviderPayment, for order: OrderRecord, existing: PaymentRecord?, verification: Verification,
                       source: String, webhookEventID: UUID? = nil, newID: UUID? = nil,
                       on connection: PostgresConnection) async throws -> (PaymentRecord, OrderRecord) {
        let plan = RecordPlan(reported, existing: existing)
        let (status, next, kind) = (plan.status, plan.next, plan.kind)
        // The payment's row (inserted, or updated: an upsert whose update applies only when the row was
        // read above), its timeline entry and what the order has received (verified captures in its
        // currency), in one statement: its parts all see the rows as they were before it, so the sum
        // leaves this payment's old row out and adds its new one.
        let currency = order.amount.currency.code
        let rows = try await connection.query("""
            WITH payment AS (
                INSERT INTO payments (id, order_id, provider, provider_payment_id, status, provider_status, method, amount_minor, currency,
                                      verified, verification_method, verified_at, error_code, error_description, failure_reason,
                                      failure_source, failure_step, captured_at)
                VALUES (coalesce(\(newID), gen_random_uuid()), \(order.id), \(reported.provider.rawValue), \(reported.id), \(status), \(reported.rawStatus), \(reported.method),
                        \(reported.amount.minorUnits), \(reported.amount.currency.code), true, \(verification.rawValue), now(),
                        \(reported.failure?.code), \(reported.failure?.description), \(reported.failure?.reason), \(reported.failure?.source),
                        \(reported.failure?.step), CASE WHEN \(status) = 'CAPTURED' THEN now() END)
                ON CONFLICT (provider, provider_payment_id) DO UPDATE SET
                    status = coalesce(\(next), payments.status), provider_status = EXCLUDED.provider_status,
                    method = coalesce(EXCLUDED.method, payments.method), verified = true,
                    verification_method = coalesce(payments.verification_method, EXCLUDED.verification_method),
                    verified_at = coalesce(payments.verified_at, now()),
                    error_code = coalesce(EXCLUDED.error_code, payments.error_code),
                    error_description = coalesce(EXCLUDED.error_description, payments.error_description),
                    failure_reason = coalesce(EXCLUDED.failure_reason, payments.failure_reason),
                    failure_source = coalesce(EXCLUDED.failure_source, payments.failure_source),
                    failure_step = coalesce(EXCLUDED.failure_step, payments.failure_step),
                    captured_at = CASE WHEN \(next) = 'CAPTURED' THEN now() ELSE payments.captured_at END, updated_at = now()
                -- Only the row read (and locked) above; one that appeared since is not overwritten (no row: an error).
                WHERE payments.id = \(existing?.id)
                RETURNING \(sql: paymentColumns)
            ),
            timeline AS (
                INSERT INTO order_events (order_id, kind, status, previous_status, provider_status, source, payment_id, refund_id, webhook_event_id, message)
                SELECT \(order.id), \(kind), \(order.status.rawValue), NULL, \(reported.rawStatus), \(source), payment.id, NULL, \(webhookEventID),
                       \(reported.failure?.description)
                FROM payment WHERE \(kind)::text IS NOT NULL
            ),
            paid AS (
                SELECT (SELECT coalesce(sum(amount_minor), 0) FROM payments
                        WHERE order_id = \(order.id) AND verified AND currency = \(currency)
                          AND status IN ('CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED') AND id <> payment.id)
                       + CASE WHEN payment.order_id = \(order.id) AND payment.verified AND payment.currency = \(currency)
                                   AND payment.status IN ('CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED')
                              THEN payment.amount_minor ELSE 0 END AS total
                FROM payment
            ),
            received AS (
                UPDATE orders SET amount_paid_minor = paid.total, updated_at = now() FROM paid
                WHERE orders.id = \(order.id) AND orders.amount_paid_minor <> paid.total
            )
            SELECT payment.*, paid.total::bigint FROM payment, paid
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("the payment was not stored") }
        let payment = try Self.payment(row)
        let paid = try row.decode(Int64.self, at: 23)
        let current = try await settle(order, paid: paid, status: status, paymentID: payment.id, source: source,
                                       webhookEventID: webhookEventID, on: connection)
        return (payment, current)
    }

    /// What recording a reported payment writes, decided from the payment as stored before (`existing`):
    /// the same rules for one payment's statement and for a set's (``record(_:verification:source:on:)``).
    struct RecordPlan: Sendable, Equatable {
        /// The status the payment is recorded in (an UNKNOWN one as PENDING).
        var status: String
        /// The stored payment's next status; nil when it does not move (statuses only move forward), or is new.
        var next: String?
        /// Its timeline entry's kind; nil when the payment does not move (no entry).
        var kind: String?

        /// The plan for `reported`, given the payment as stored (nil: none yet).
        init(_ reported: ProviderPayment, existing: PaymentRecord?) {
            status = reported.status.name == "UNKNOWN" ? "PENDING" : reported.status.name
            next = existing.flatMap { StatusTransitions.payment(from: $0.status, to: status) }
            let movedTo: String? = existing == nil ? status : next
            kind = movedTo.map { moved in
                switch moved {
                case "CAPTURED": "PAYMENT_CAPTURED"
                case "AUTHORIZED": "PAYMENT_AUTHORIZED"
                case "FAILED", "CANCELLED": "PAYMENT_FAILED"
                default: "PAYMENT_ATTEMPTED"
                }
            }
        }
    }

    /// Moves `order` (locked by the caller) after one of its payments was recorded in `status`: PAID once
    /// what it received (`paid`) reaches its amount, ATTEMPTED/PENDING while paying; a statement only when
    /// the order moves. Returns the order as it is now.
    static func settle(_ order: OrderRecord, paid: Int64, status: String, paymentID: UUID, source: String, webhookEventID: UUID?,
                       on connection: PostgresConnection) async throws -> OrderRecord {
        var current = order
        current.amountPaidMinor = paid
        let proposed: OrderStatusName? = if paid >= order.amount.minorUnits {
            .paid
        } else {
            switch status {
            case "PENDING", "CREATED": .attempted
            case "AUTHORIZED": .pending
            case "FAILED", "CANCELLED": .attempted
            default: nil
            }
        }
        if let proposed {
            current = try await OrderStore.applyStatus(order: current, proposed: proposed, providerStatus: nil, source: source,
                                                       paymentID: paymentID, webhookEventID: webhookEventID, on: connection)
        }
        return current
    }
}
