import Foundation
import PaymentsCore
import Postgres
import Providers

/// Refunds: the reservation of a payment's refundable amount, the provider's word on a
/// refund, and what a refund that succeeded does to its payment and order.
///
/// Locks are always taken order first, then payment, then refund — the order of
/// ``PaymentStore/record(_:for:verification:source:webhookEventID:on:)`` and of the
/// webhook intake — so refunds, webhooks and verifications of one order never deadlock.
struct RefundStore: Sendable {
    let pool: PostgresPool

    /// What `createRefund` asks to reserve.
    struct NewRefund: Sendable {
        var paymentID: UUID
        /// Nil: everything still refundable.
        var amountMinor: Int64?
        var currency: Currency
        var reference: String
        var reason: String?
        var note: String?
        var speedRequested: String?
        var initiatedBy: String
    }

    /// What a reservation holds: the PENDING refund, and its payment and order as they were under the lock.
    struct Reservation: Sendable {
        var refund: RefundRecord
        var payment: PaymentRecord
        var order: OrderRecord
    }

    /// Reserves `new.amountMinor` (or all that is left) of a payment: under the order's and the
    /// payment's row locks, the refundable amount is captured − succeeded − pending refunds, and
    /// the PENDING refund row that holds the reservation is committed before the provider is
    /// called. Concurrent refunds of one payment serialise on the locks, so their sum never
    /// exceeds the payment.
    func reserve(_ new: NewRefund, field: [String]) async throws -> Reservation {
        do {
            return try await pool.withTransaction { connection in
                let orderID = try await connection.query("SELECT order_id FROM payments WHERE id = \(new.paymentID)").single(UUID.self)
                guard let orderID, let order = try await OrderStore.lock(orderID: orderID, on: connection),
                      let payment = try await Self.lockPayment(new.paymentID, on: connection) else {
                    throw UserError(.notFound, "no such payment", field: ["input", "paymentId"])
                }
                guard StatusTransitions.isCaptured(payment.status) else {
                    throw UserError(.invalidState, "the payment is \(payment.status): only captured payments can be refunded",
                                    field: ["input", "paymentId"])
                }
                guard new.currency == payment.amount.currency else {
                    throw UserError(.amountMismatch, "the payment is in \(payment.amount.currency.code)", field: field + ["currency"])
                }
                let reserved = try await Self.reservedMinor(paymentID: payment.id, on: connection)
                let refundable = payment.amount.minorUnits - reserved
                guard refundable > 0 else {
                    throw UserError(.invalidState, "nothing is left to refund on this payment (refunded or pending: \(reserved))",
                                    field: ["input", "paymentId"])
                }
                let amount = new.amountMinor ?? refundable
                guard amount <= refundable else {
                    throw UserError(.amountMismatch, "at most \(refundable) can be refunded (captured \(payment.amount.minorUnits), refunded or pending \(reserved))",
                                    field: field + ["amount"])
                }
                let rows = try await connection.query("""
                    INSERT INTO refunds (payment_id, order_id, provider, reference, amount_minor, currency, status, reason, note,
                                         speed_requested, initiated_by)
                    VALUES (\(payment.id), \(order.id), \(payment.provider.rawValue), \(new.reference), \(amount), \(payment.amount.currency.code),
                            'PENDING', \(new.reason), \(new.note), \(new.speedRequested), \(new.initiatedBy))
                    RETURNING \(sql: PaymentStore.refundColumns)
                    """)
                guard let row = rows.first else { throw GatewayRequestError.internal("the refund was not stored") }
                let refund = try PaymentStore.refund(row)
                try await OrderStore.appendEvent(orderID: order.id, kind: "REFUND_CREATED", status: order.status, previous: nil,
                                                 providerStatus: nil, source: "API", paymentID: payment.id, refundID: refund.id,
                                                 message: "refund \(refund.reference) of \(Self.decimal(amount, payment.amount.currency)) requested",
                                                 on: connection)
                return Reservation(refund: refund, payment: payment, order: order)
            }
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw UserError(.alreadyExists, "a refund with reference \(new.reference) exists", field: ["input", "reference"])
        }
    }

    /// Removes a refund the provider certainly never received (the request did not leave), with its
    /// timeline entries: the reservation is released and the reference can be used again.
    func deleteUnsent(refundID: UUID) async throws {
        try await pool.withTransaction { connection in
            _ = try await connection.query("DELETE FROM order_events WHERE refund_id = \(refundID)")
            _ = try await connection.query("DELETE FROM refunds WHERE id = \(refundID) AND provider_refund_id IS NULL AND status = 'PENDING'")
        }
    }

    /// Applies the provider's word on a refund in one transaction (order, payment, refund locked in that order).
    func apply(_ update: Update, refundID: UUID, orderID: UUID, source: String) async throws -> RefundRecord {
        try await pool.withTransaction { connection in
            _ = try await OrderStore.lock(orderID: orderID, on: connection)
            return try await Self.apply(update, refundID: refundID, source: source, on: connection)
        }
    }

    /// What a provider said of a refund.
    struct Update: Sendable {
        /// The contract's status, or nil when the provider's answer is not understood (needs reconciliation).
        var status: String?
        var providerRefundID: String?
        var providerStatus: String?
        var bankReference: String?
        var failureReason: String?

        /// From an adapter's refund: its unified status (`.unknown` → reconcile).
        init(_ refund: ProviderRefund) {
            status = Self.contractStatus(refund.status)
            providerRefundID = refund.id
            providerStatus = refund.rawStatus
        }

        init(status: String?, providerRefundID: String? = nil, providerStatus: String? = nil, failureReason: String? = nil) {
            self.status = status
            self.providerRefundID = providerRefundID
            self.providerStatus = providerStatus
            self.failureReason = failureReason
        }

        /// The contract's `RefundStatus` value; nil for an undocumented status.
        static func contractStatus(_ status: RefundStatus) -> String? {
            switch status {
            case .pending: "PENDING"
            case .succeeded: "SUCCEEDED"
            case .failed: "FAILED"
            case .cancelled: "CANCELLED"
            case .unknown: nil
            }
        }
    }

    /// Records `update` on a refund whose order the caller has locked: the status moves only from
    /// PENDING (final statuses are absorbing), an unknown status keeps it PENDING with
    /// `needs_reconciliation` (any documented status, PENDING included, clears it: the outcome
    /// is known again), and a refund that becomes SUCCEEDED adds to `amountRefunded` of its
    /// payment and order and moves the payment to PARTIALLY_REFUNDED / REFUNDED. Refunds never
    /// change the order's status (decision 10). Writes a REFUND_UPDATED entry when something changed.
    static func apply(_ update: Update, refundID: UUID, source: String, webhookEventID: UUID? = nil,
                      on connection: PostgresConnection) async throws -> RefundRecord {
        guard let paymentID = try await connection.query("SELECT payment_id FROM refunds WHERE id = \(refundID)").single(UUID.self),
              let payment = try await lockPayment(paymentID, on: connection),
              let current = try await connection.query("SELECT \(sql: PaymentStore.refundColumns) FROM refunds WHERE id = \(refundID) FOR UPDATE")
                  .first.map(PaymentStore.refund) else {
            throw GatewayRequestError.internal("the refund disappeared")
        }
        let final = current.status != "PENDING"
        let next: String? = final ? nil : (update.status == "PENDING" ? nil : update.status)
        let reconcile = !final && next == nil && update.status == nil
        let rows = try await connection.query("""
            UPDATE refunds SET status = coalesce(\(next), status),
                provider_refund_id = coalesce(provider_refund_id, \(update.providerRefundID)),
                provider_status = CASE WHEN \(final) THEN provider_status ELSE coalesce(\(update.providerStatus), provider_status) END,
                bank_reference = coalesce(\(update.bankReference), bank_reference),
                failure_reason = coalesce(\(next == "FAILED" || next == "CANCELLED" ? update.failureReason : nil), failure_reason),
                needs_reconciliation = CASE WHEN \(final) THEN needs_reconciliation WHEN \(update.status != nil) THEN false
                                            WHEN \(reconcile) THEN true ELSE needs_reconciliation END,
                processed_at = CASE WHEN \(next) = 'SUCCEEDED' THEN now() ELSE processed_at END,
                updated_at = now()
            WHERE id = \(refundID) RETURNING \(sql: PaymentStore.refundColumns)
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("the refund disappeared") }
        let refund = try PaymentStore.refund(row)
        if next == "SUCCEEDED" {
            let refunded = payment.amountRefundedMinor + refund.amount.minorUnits
            let proposed = refunded >= payment.amount.minorUnits ? "REFUNDED" : "PARTIALLY_REFUNDED"
            let status = StatusTransitions.payment(from: payment.status, to: proposed)
            _ = try await connection.query("""
                UPDATE payments SET amount_refunded_minor = \(refunded), status = coalesce(\(status), status), updated_at = now()
                WHERE id = \(payment.id)
                """)
            let fullyRefunded = try await connection.query("""
                UPDATE orders SET amount_refunded_minor = amount_refunded_minor + \(refund.amount.minorUnits), updated_at = now()
                WHERE id = \(payment.orderID) RETURNING amount_paid_minor > 0 AND amount_refunded_minor >= amount_paid_minor
                """).single(Bool.self) ?? false
            // A full refund takes back the order's rewards (decision 5).
            if fullyRefunded { try await RewardStore.revokeForRefundedOrder(payment.orderID, on: connection) }
        }
        if let next, next != "PENDING" {
            // The merchant hears of a refund that succeeded or failed (refund.processed / refund.failed).
            try await MerchantWebhooks.refundSettled(refund, orderID: payment.orderID, on: connection)
            // A refund of a bill's payment is reported to Setu (refund-event), through the outbox.
            try await BillRefundReports.refundSettled(refund, orderID: payment.orderID, on: connection)
        }
        if refund.status != current.status || refund.needsReconciliation != current.needsReconciliation || refund.providerRefundID != current.providerRefundID {
            guard let orderStatus = try await connection.query("SELECT status FROM orders WHERE id = \(payment.orderID)").single(String.self)
                .flatMap(OrderStatusName.init(rawValue:)) else { throw GatewayRequestError.internal("the refund's order disappeared") }
            let message = refund.needsReconciliation && refund.status == "PENDING"
                ? "refund \(refund.reference): the provider's outcome is unknown (\(update.providerStatus ?? "no answer")); to be reconciled"
                : "refund \(refund.reference) is \(refund.status)" + (refund.failureReason.map { ": \($0)" } ?? "")
            try await OrderStore.appendEvent(orderID: payment.orderID, kind: "REFUND_UPDATED",
                                             status: orderStatus, previous: nil,
                                             providerStatus: refund.providerStatus, source: source, paymentID: payment.id, refundID: refund.id,
                                             webhookEventID: webhookEventID, message: message, on: connection)
        }
        return refund
    }

    /// The refund a provider event names: by the provider's refund id or the merchant reference.
    static func find(provider: ProviderName, providerRefundID: String?, reference: String?,
                     on connection: PostgresConnection) async throws -> RefundRecord? {
        guard providerRefundID != nil || reference != nil else { return nil }
        return try await connection.query("""
            SELECT \(sql: PaymentStore.refundColumns) FROM refunds
            WHERE provider = \(provider.rawValue) AND (provider_refund_id = \(providerRefundID) OR reference = \(reference))
            ORDER BY provider_refund_id = \(providerRefundID) DESC NULLS LAST LIMIT 1
            """).first.map(PaymentStore.refund)
    }

    /// Marks a refund whose provider outcome is unknown (it stays PENDING and reserved).
    func markNeedsReconciliation(refundID: UUID, orderID: UUID, reason: String) async throws -> RefundRecord {
        try await apply(Update(status: nil, providerStatus: nil, failureReason: reason), refundID: refundID, orderID: orderID, source: "API")
    }

    /// Refunds by id.
    func find(id: UUID) async throws -> RefundRecord? {
        try await pool.query("SELECT \(sql: PaymentStore.refundColumns) FROM refunds WHERE id = \(id)").first.map(PaymentStore.refund)
    }

    /// Locks a payment row for the rest of the transaction and reads it.
    static func lockPayment(_ id: UUID, on connection: PostgresConnection) async throws -> PaymentRecord? {
        try await connection.query("SELECT \(sql: PaymentStore.paymentColumns) FROM payments WHERE id = \(id) FOR UPDATE").first.map(PaymentStore.payment)
    }

    /// Refunded or pending on a payment: what is no longer refundable.
    static func reservedMinor(paymentID: UUID, on connection: PostgresConnection) async throws -> Int64 {
        try await connection.query("""
            SELECT coalesce(sum(amount_minor), 0)::bigint FROM refunds WHERE payment_id = \(paymentID) AND status IN ('PENDING', 'SUCCEEDED')
            """).single(Int64.self) ?? 0
    }

    static func decimal(_ minor: Int64, _ currency: Currency) -> String {
        DecimalText.format(minorUnits: minor, exponent: currency.minorUnitExponent) + " " + currency.code
    }
}
