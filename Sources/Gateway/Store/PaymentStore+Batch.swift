import Foundation
import PaymentsCore
import Postgres
import Providers

extension PaymentStore {
    /// One payment of a set recorded together (``record(_:verification:source:on:)``).
    struct BatchedPayment: Sendable {
        /// What the provider says of the payment.
        var reported: ProviderPayment
        /// Its order, locked by the caller.
        var order: OrderRecord
        /// The payment as stored (locked by the caller); nil when there is none yet.
        var existing: PaymentRecord?
        /// The id the payment gets if it is inserted now.
        var newID: UUID
        /// The webhook event row its timeline entry links.
        var webhookEventID: UUID?
    }

    /// A payment recorded together with others: the payment as stored now, what its order has received,
    /// and the status it was reported in (for ``settle(_:paid:status:paymentID:source:webhookEventID:on:)``).
    struct RecordedPayment: Sendable {
        /// The payment as it is now.
        var payment: PaymentRecord
        /// What its order has received now (verified captures in the order's currency).
        var paid: Int64
        /// The reported status as recorded (``RecordPlan/status``).
        var status: String
    }

    /// ``record(_:for:existing:verification:source:webhookEventID:newID:on:)`` for several payments, each
    /// of another order, in one statement: the new payments inserted, the stored ones moved, their timeline
    /// entries and their orders' amounts received, set by set (`unnest` of one array per column) instead of
    /// one statement per payment — one parse, plan and executor start-up for the lot, one round trip. The
    /// rules are the single statement's (``RecordPlan``); each order is then settled by the caller
    /// (``settle(_:paid:status:paymentID:source:webhookEventID:on:)``: most settle without a statement).
    ///
    /// Every payment and every order must be distinct (each order's sum leaves out only its own payment's old
    /// row, as the single statement does); otherwise this throws before writing. A payment the caller saw as
    /// absent that another transaction inserted since fails the statement (its primary or unique key), as the
    /// single statement's upsert finds no row to return: nothing is overwritten either way.
    static func record(_ batch: [BatchedPayment], verification: Verification, source: String,
                       on connection: PostgresConnection) async throws -> [RecordedPayment] {
        guard !batch.isEmpty else { return [] }
        let keys = batch.map { WebhookLocks.Key(provider: $0.reported.provider, id: $0.reported.id) }
        guard Set(keys).count == batch.count, Set(batch.map(\.order.id)).count == batch.count else {
            throw GatewayRequestError.internal("payments recorded together must each be of another order")
        }
        let plans = batch.map { RecordPlan($0.reported, existing: $0.existing) }
        let rows = try await connection.query("""
            WITH input AS (
                SELECT * FROM unnest(\(batch.map { ($0.existing?.id ?? $0.newID).uuidString })::text[],
                                     \(batch.map { $0.existing?.id.uuidString })::text[], \(batch.map { $0.order.id.uuidString })::text[],
                                     \(batch.map(\.reported.provider.rawValue))::text[], \(batch.map(\.reported.id))::text[],
                                     \(plans.map(\.status))::text[], \(batch.map(\.reported.rawStatus))::text[],
                                     \(batch.map(\.reported.method))::text[], \(batch.map(\.reported.amount.minorUnits))::bigint[],
                                     \(batch.map(\.reported.amount.currency.code))::text[], \(batch.map { $0.reported.failure?.code })::text[],
                                     \(batch.map { $0.reported.failure?.description })::text[], \(batch.map { $0.reported.failure?.reason })::text[],
                                     \(batch.map { $0.reported.failure?.source })::text[], \(batch.map { $0.reported.failure?.step })::text[],
                                     \(plans.map(\.next))::text[], \(plans.map(\.kind))::text[], \(batch.map(\.order.status.rawValue))::text[],
                                     \(batch.map(\.order.amount.currency.code))::text[], \(batch.map { $0.webhookEventID?.uuidString })::text[])
                     WITH ORDINALITY AS input (w_id, w_existing, w_order_id, w_provider, w_provider_payment_id, w_status, w_provider_status,
                                               w_method, w_amount_minor, w_currency, w_error_code, w_error_description, w_failure_reason,
                                               w_failure_source, w_failure_step, w_next, w_kind, w_order_status, w_order_currency,
                                               w_webhook_event_id, w_n)
            ),
            inserted AS (
                INSERT INTO payments (id, order_id, provider, provider_payment_id, status, provider_status, method, amount_minor, currency,
                                      verified, verification_method, verified_at, error_code, error_description, failure_reason,
                                      failure_source, failure_step, captured_at)
                SELECT w_id::uuid, w_order_id::uuid, w_provider, w_provider_payment_id, w_status, w_provider_status, w_method, w_amount_minor,
                       w_currency, true, \(verification.rawValue), now(), w_error_code, w_error_description, w_failure_reason,
                       w_failure_source, w_failure_step, CASE WHEN w_status = 'CAPTURED' THEN now() END
                FROM input WHERE w_existing IS NULL ORDER BY w_n
                RETURNING \(sql: paymentColumns)
            ),
            updated AS (
                UPDATE payments SET
                    status = coalesce(w_next, status), provider_status = w_provider_status, method = coalesce(w_method, method),
                    verified = true, verification_method = coalesce(verification_method, \(verification.rawValue)),
                    verified_at = coalesce(verified_at, now()), error_code = coalesce(w_error_code, error_code),
                    error_description = coalesce(w_error_description, error_description),
                    failure_reason = coalesce(w_failure_reason, failure_reason), failure_source = coalesce(w_failure_source, failure_source),
                    failure_step = coalesce(w_failure_step, failure_step),
                    captured_at = CASE WHEN w_next = 'CAPTURED' THEN now() ELSE captured_at END, updated_at = now()
                FROM input WHERE payments.id = input.w_existing::uuid
                RETURNING \(sql: qualifiedPaymentColumns)
            ),
            payment AS (SELECT * FROM inserted UNION ALL SELECT * FROM updated),
            recorded AS (
                SELECT payment.*, input.* FROM payment JOIN input ON payment.id = input.w_id::uuid
            ),
            timeline AS (
                INSERT INTO order_events (order_id, kind, status, previous_status, provider_status, source, payment_id, refund_id,
                                          webhook_event_id, message)
                SELECT w_order_id::uuid, w_kind, w_order_status, NULL, w_provider_status, \(source), id, NULL, w_webhook_event_id::uuid,
                       w_error_description
                FROM recorded WHERE w_kind IS NOT NULL ORDER BY w_n
            ),
            paid AS (
                SELECT recorded.id AS payment_id, w_order_id::uuid AS paid_order_id, w_n,
                       (SELECT coalesce(sum(other.amount_minor), 0) FROM payments AS other
                        WHERE other.order_id = recorded.w_order_id::uuid AND other.verified AND other.currency = recorded.w_order_currency
                          AND other.status IN ('CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED') AND other.id <> recorded.id)
                       + CASE WHEN recorded.order_id = recorded.w_order_id::uuid AND recorded.verified
                                   AND recorded.currency = recorded.w_order_currency
                                   AND recorded.status IN ('CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED')
                              THEN recorded.amount_minor ELSE 0 END AS total
                FROM recorded
            ),
            received AS (
                UPDATE orders SET amount_paid_minor = paid.total, updated_at = now() FROM paid
                WHERE orders.id = paid.paid_order_id AND orders.amount_paid_minor <> paid.total
            )
            SELECT payment.*, paid.total::bigint FROM payment JOIN paid ON paid.payment_id = payment.id ORDER BY paid.w_n
            """)
        guard rows.count == batch.count else { throw GatewayRequestError.internal("not every payment was stored") }
        var recorded: [RecordedPayment] = []
        recorded.reserveCapacity(batch.count)
        for (row, (item, plan)) in zip(rows, zip(batch, plans)) {
            let payment = try Self.payment(row)
            guard payment.provider == item.reported.provider, payment.providerPaymentID == item.reported.id else {
                throw GatewayRequestError.internal("the payments came back out of order")
            }
            recorded.append(RecordedPayment(payment: payment, paid: try row.decode(Int64.self, at: 23), status: plan.status))
        }
        return recorded
    }

    /// ``paymentColumns`` qualified with the table's name (an UPDATE … FROM another relation returns them).
    static let qualifiedPaymentColumns: StaticString = """
        payments.id, payments.order_id, payments.provider, payments.provider_payment_id, payments.status, payments.provider_status, \
        payments.method, payments.amount_minor, payments.currency, payments.amount_refunded_minor, payments.verified, \
        payments.verification_method, payments.verified_at, payments.error_code, payments.error_description, payments.failure_reason, \
        payments.failure_source, payments.failure_step, payments.bank_reference, payments.client_reported_reward_status, \
        payments.captured_at, payments.created_at, payments.updated_at
        """
}
