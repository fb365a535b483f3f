import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers

extension OutboxKind {
    /// A Setu payment-event for a bill payment (``BillConfirmations``).
    public static let setuPaymentEvent = OutboxKind(rawValue: "setu.payment_event")
}

/// The payment-event PayQL owes Setu (flow F22, decision 7).
///
/// In the transaction that moves a bill payment's order to PAID (SUCCESS) or to a final FAILED,
/// EXPIRED or CANCELLED (FAILURE), ``orderMoved(_:to:on:)`` writes the confirmation row and
/// enqueues an outbox message; an order that is not final (a Razorpay payment that failed while
/// the order can still be paid) sends nothing. The outbox worker calls ``deliver(_:)``: network
/// errors and 5xx are retried on the outbox's schedule until Setu acknowledges or 24 h pass;
/// a 4xx refusal is not retried — the bill payment is flagged for ops, and when Setu refused the
/// amount or PayQL refused the mode the customer paid with, the payment is refunded.
///
/// Each state change of a bill payment notifies `payql_events` in its transaction.
struct BillConfirmations: Sendable {
    let pool: PostgresPool
    let providers: ProviderRegistry
    let refunds: RefundService

    /// Bill payment statuses that still wait for the collecting order's outcome.
    static let awaiting = ["INITIATED", "AWAITING_PAYMENT"]

    // MARK: Enqueue (inside the order's transaction)

    /// Called by ``OrderStore/applyStatus(order:proposed:providerStatus:source:paymentID:webhookEventID:message:on:)``
    /// after the order moved to `next`, on its connection: writes the confirmation owed for the order's bill payment, if any.
    static func orderMoved(_ order: OrderRecord, to next: OrderStatusName, on connection: PostgresConnection) async throws {
        guard next.isFinal else { return }
        guard let bill = try await connection.query("""
            SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments WHERE order_id = \(order.id) FOR UPDATE
            """).first.map(BillPayStore.payment) else { return }
        let payments = try await connection.query("""
            SELECT \(sql: PaymentStore.paymentColumns) FROM payments WHERE order_id = \(order.id) ORDER BY created_at DESC, id DESC
            """).map(PaymentStore.payment)
        let outcome: Owed
        if next == .paid {
            // PAID after a FAILURE was reported (a late payment) replaces it with SUCCESS.
            guard (awaiting + ["PAYMENT_FAILED"]).contains(bill.status) else { return }
            let captured = payments.first { ["CAPTURED", "REFUNDED", "PARTIALLY_REFUNDED"].contains($0.status) } ?? payments.first
            outcome = Owed(status: "PAID", outcome: "SUCCESS", payment: captured,
                           transactionID: captured?.providerPaymentID ?? order.providerOrderID ?? order.receipt,
                           mode: mode(for: captured, bill: bill), failureCode: nil, failureMessage: nil)
        } else {
            guard awaiting.contains(bill.status) else { return }
            let last = payments.first
            outcome = Owed(status: "PAYMENT_FAILED", outcome: "FAILURE", payment: last,
                           transactionID: last?.providerPaymentID ?? order.providerOrderID ?? order.receipt,
                           mode: mode(for: last, bill: bill), failureCode: last?.errorCode ?? "ORDER_\(next.rawValue)",
                           failureMessage: last?.errorDescription ?? last?.failureReason ?? "the collecting order is \(next.rawValue.lowercased())")
        }
        let generation = try await connection.query("""
            INSERT INTO bill_payment_confirmations (bill_payment_id, status, outcome, transaction_id, payment_id, payment_mode, paid_at,
                amount_minor, failure_code, failure_message, bank_reference, give_up_at)
            VALUES (\(bill.id), 'PENDING', \(outcome.outcome), \(outcome.transactionID), \(outcome.payment?.id), \(outcome.mode),
                coalesce(\(outcome.payment?.capturedAt ?? outcome.payment?.updatedAt), now()), \(bill.amount.minorUnits), \(outcome.failureCode),
                \(outcome.failureMessage), \(outcome.payment?.bankReference), now() + interval '24 hours')
            ON CONFLICT (bill_payment_id) DO UPDATE SET status = 'PENDING', outcome = EXCLUDED.outcome, transaction_id = EXCLUDED.transaction_id,
                payment_id = EXCLUDED.payment_id, payment_mode = EXCLUDED.payment_mode, paid_at = EXCLUDED.paid_at,
                amount_minor = EXCLUDED.amount_minor, failure_code = EXCLUDED.failure_code, failure_message = EXCLUDED.failure_message,
                bank_reference = EXCLUDED.bank_reference, generation = bill_payment_confirmations.generation + 1, attempts = 0,
                last_attempt_at = NULL, last_error = NULL, acknowledged_at = NULL, give_up_at = EXCLUDED.give_up_at, updated_at = now()
            RETURNING generation
            """).single(Int32.self) ?? 1
        _ = try await connection.query("""
            UPDATE bill_payments SET status = \(outcome.status), payment_mode = \(outcome.mode), updated_at = now() WHERE id = \(bill.id)
            """)
        try await BillPayStore.notify(bill.id, on: connection)
        try await enqueue(billPaymentID: bill.id, orderID: order.id, generation: Int(generation), on: connection)
    }

    /// The outcome owed to Setu.
    private struct Owed {
        var status: String
        var outcome: String
        var payment: PaymentRecord?
        var transactionID: String
        var mode: String
        var failureCode: String?
        var failureMessage: String?
    }

    /// The Setu `paymentMode` for a payment: from its method (among the bill's allowed modes), else the mode the
    /// customer chose, else the bill's only or first allowed mode, else UPI [inferred: most BBPS payments are UPI].
    static func mode(for payment: PaymentRecord?, bill: BillPaymentRecord) -> String {
        BillPaymentModes.setuMode(forMethod: payment?.method, allowed: bill.allowedModes) ?? bill.paymentMode ?? bill.allowedModes.first ?? "UPI"
    }

    /// Enqueues a delivery of the confirmation's `generation`.
    static func enqueue(billPaymentID: UUID, orderID: UUID?, generation: Int, on connection: PostgresConnection) async throws {
        let payload = JSONWriter.string(.object(["billPaymentId": .string(billPaymentID.uuidString.lowercased()), "generation": .int(Int64(generation))]))
        try await Outbox.enqueue(kind: .setuPaymentEvent, object: OutboxObject(type: "BillPayment", id: billPaymentID), orderID: orderID,
                                 payload: PostgresJSONB(text: payload), on: connection)
    }

    // MARK: Ops

    /// `resendBillPaymentConfirmation`: sends the stored confirmation again (a new generation, attempts from zero)
    /// unless Setu acknowledged it. Clears the ops flag of a refusal.
    func resend(billPaymentID: UUID) async throws -> BillPaymentRecord {
        try await pool.withTransaction { connection in
            guard let bill = try await connection.query("""
                SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments WHERE id = \(billPaymentID) FOR UPDATE
                """).first.map(BillPayStore.payment) else {
                throw UserError(.notFound, "no such bill payment", field: ["input", "billPaymentId"])
            }
            guard let generation = try await connection.query("""
                UPDATE bill_payment_confirmations SET status = 'PENDING', generation = generation + 1, attempts = 0, last_error = NULL,
                    give_up_at = now() + interval '24 hours', updated_at = now()
                WHERE bill_payment_id = \(billPaymentID) AND status <> 'ACKNOWLEDGED' RETURNING generation
                """).single(Int32.self) else {
                throw UserError(.invalidState, "nothing to resend: the payment has no outcome yet, or Setu acknowledged it", field: ["input", "billPaymentId"])
            }
            let rows = try await connection.query("""
                UPDATE bill_payments SET flagged_reason = NULL, flagged_at = NULL, updated_at = now() WHERE id = \(billPaymentID)
                RETURNING \(sql: BillPayStore.paymentColumns)
                """)
            try await BillPayStore.notify(billPaymentID, on: connection)
            try await Self.enqueue(billPaymentID: billPaymentID, orderID: bill.orderID, generation: Int(generation), on: connection)
            return try rows.first.map(BillPayStore.payment) ?? bill
        }
    }

    // MARK: Delivery (the outbox worker)

    /// The outbox handler for ``OutboxKind/setuPaymentEvent``.
    var handler: OutboxHandler {
        OutboxHandler(kind: .setuPaymentEvent) { message, _ in
            do {
                return try await deliver(message)
            } catch {
                return .retry("database: \(error)")
            }
        }
    }

    /// One attempt: claims the confirmation (SENDING, one more attempt), sends it, records Setu's answer.
    func deliver(_ message: OutboxMessage) async throws -> OutboxResult {
        let target = "setu payment-event"
        let payload = try? JSONParser.parse(Array(message.payload.text.utf8))
        let generation = payload?["generation"]?.intValue.map { Int($0) } ?? 0
        let billPaymentID = message.object.id
        guard let setu = providers.setu else { return .retry("SETU is not configured", target: target) }
        let claimed = try await pool.withTransaction { connection -> (BillConfirmationRecord, BillPaymentRecord)? in
            guard let confirmation = try await connection.query("""
                SELECT \(sql: BillPayStore.confirmationColumns) FROM bill_payment_confirmations WHERE bill_payment_id = \(billPaymentID) FOR UPDATE
                """).first.map(BillPayStore.confirmation),
                  confirmation.generation == generation, ["PENDING", "SENDING", "FAILED"].contains(confirmation.status),
                  let bill = try await connection.query("SELECT \(sql: BillPayStore.paymentColumns) FROM bill_payments WHERE id = \(billPaymentID)")
                    .first.map(BillPayStore.payment) else { return nil }
            _ = try await connection.query("""
                UPDATE bill_payment_confirmations SET status = 'SENDING', attempts = attempts + 1, last_attempt_at = now(), updated_at = now()
                WHERE bill_payment_id = \(billPaymentID)
                """)
            try await BillPayStore.notify(billPaymentID, on: connection)
            return (confirmation, bill)
        }
        // A newer generation was enqueued, or this one is settled: nothing to send for this message.
        guard var (confirmation, bill) = claimed else { return .delivered(target: target) }
        if confirmation.outcome == "SUCCESS", let paymentID = confirmation.paymentID {
            // A payment recorded from a webhook has no method: ask the provider, so the mode reported is the one paid with.
            switch try await learnMode(paymentID: paymentID, bill: bill, generation: generation) {
            case .known(let mode):
                confirmation.paymentMode = mode
                bill.paymentMode = mode
            case .unknown:
                break
            case .unavailable(let error):
                try await record(billPaymentID, generation: generation, status: "PENDING", error: error, flag: nil)
                return .retry(error, target: target)
            }
        }
        let event = SetuPaymentConfirmation(
            orderID: bill.setuOrderID, transactionID: confirmation.transactionID, paidAt: confirmation.paidAt.microsecondsSinceEpoch / 1_000_000,
            amount: confirmation.amount, mode: SetuPaymentMode(rawValue: confirmation.paymentMode) ?? .upi,
            outcome: confirmation.outcome == "SUCCESS" ? .success
                : .failure(code: confirmation.failureCode ?? "PAYMENT_FAILED", message: confirmation.failureMessage ?? "the payment failed"),
            remarks: confirmation.bankReference.map { "UTR/RRN \($0)" })
        do {
            try await setu.confirmPayment(event, allowedModes: bill.allowedModes.compactMap(SetuPaymentMode.init(rawValue:)))
        } catch let error as ProviderError {
            let text = "\(error.providerCode.map { "\($0): " } ?? "")\(error.message)"
            switch error.code.outcome {
            case .refused:
                // No HTTP status: PayQL refused before sending (a mode the bill does not allow); else Setu's 4xx.
                let flag = error.httpStatus == nil ? "MODE_NOT_ALLOWED: \(text)" : "SETU_REFUSED_CONFIRMATION: \(text)"
                try await record(billPaymentID, generation: generation, status: "REFUSED", error: text, flag: flag)
                if confirmation.outcome == "SUCCESS", Self.warrantsRefund(error), let paymentID = confirmation.paymentID {
                    await refund(paymentID: paymentID, bill: bill)
                }
                return .refused(text, statusCode: error.httpStatus, target: target)
            case .notDone, .unknown:
                try await record(billPaymentID, generation: generation, status: "PENDING", error: text, flag: nil)
                return .retry(text, statusCode: error.httpStatus, target: target)
            }
        } catch {
            try await record(billPaymentID, generation: generation, status: "PENDING", error: "\(error)", flag: nil)
            return .retry("\(error)", target: target)
        }
        try await record(billPaymentID, generation: generation, status: "ACKNOWLEDGED", error: nil, flag: nil)
        return .delivered(statusCode: 200, target: target)
    }

    /// What the provider says of a payment's method.
    enum LearnedMode {
        /// The Setu mode of the payment's method (stored on the payment, the confirmation and the bill payment).
        case known(String)
        /// The method was known already, or the provider does not say: the confirmation's mode stands.
        case unknown
        /// The provider could not be asked now.
        case unavailable(String)
    }

    /// Fetches the method of a payment stored without one (Razorpay payment, Cashfree order payments).
    private func learnMode(paymentID: UUID, bill: BillPaymentRecord, generation: Int) async throws -> LearnedMode {
        guard let payment = try await PaymentStore(pool: pool).payments(ids: [paymentID])[paymentID], payment.method == nil else { return .unknown }
        let method: String?
        do {
            switch payment.provider {
            case .razorpay:
                method = try await providers.razorpay?.fetchPayment(id: payment.providerPaymentID).method
            case .cashfree:
                guard let orderID = try await pool.query("SELECT provider_order_id FROM orders WHERE id = \(payment.orderID)").single(String?.self) ?? nil else {
                    return .unknown
                }
                method = try await providers.cashfree?.fetchPayments(orderID: orderID).first { $0.id == payment.providerPaymentID }?.method
            case .instamojo, .setu:
                method = nil
            }
        } catch let error as ProviderError where error.code.outcome != .refused {
            return .unavailable("payment method: \(error.message)")
        } catch {
            return .unknown
        }
        guard let method, let mode = BillPaymentModes.setuMode(forMethod: method, allowed: bill.allowedModes) else { return .unknown }
        try await pool.withTransaction { connection in
            _ = try await connection.query("UPDATE payments SET method = \(method), updated_at = now() WHERE id = \(paymentID) AND method IS NULL")
            _ = try await connection.query("""
                UPDATE bill_payment_confirmations SET payment_mode = \(mode), updated_at = now()
                WHERE bill_payment_id = \(bill.id) AND generation = \(Int32(generation))
                """)
            _ = try await connection.query("UPDATE bill_payments SET payment_mode = \(mode), updated_at = now() WHERE id = \(bill.id)")
            try await BillPayStore.notify(bill.id, on: connection)
        }
        return .known(mode)
    }

    /// Setu refused the amount, or PayQL refused to report a mode the bill does not allow (decision 7): refund.
    static func warrantsRefund(_ error: ProviderError) -> Bool {
        let said = "\(error.providerCode ?? "") \(error.field ?? "") \(error.message)".lowercased()
        return said.contains("amount") || said.contains("paymentmode") || said.contains("payment-mode") || said.contains("payment mode")
    }

    /// Writes an attempt's result for `generation` (a newer generation is left alone) and moves the bill payment.
    private func record(_ billPaymentID: UUID, generation: Int, status: String, error: String?, flag: String?) async throws {
        try await pool.withTransaction { connection in
            let updated = try await connection.query("""
                UPDATE bill_payment_confirmations SET status = \(status), last_error = \(error),
                    acknowledged_at = CASE WHEN \(status) = 'ACKNOWLEDGED' THEN now() ELSE acknowledged_at END, updated_at = now()
                WHERE bill_payment_id = \(billPaymentID) AND generation = \(Int32(generation)) RETURNING outcome
                """).single(String.self)
            guard let outcome = updated else { return }
            if status == "ACKNOWLEDGED", outcome == "SUCCESS" {
                let confirmed = try await connection.query("""
                    UPDATE bill_payments SET status = 'CONFIRMED', updated_at = now() WHERE id = \(billPaymentID) AND status = 'PAID'
                    RETURNING amount_minor, currency, order_id
                    """).single((Int64, String, UUID?).self)
                // The merchant hears of it once this commits (bill_payment.confirmed, docs/api.md "Merchant webhooks").
                if let (minor, code, orderID) = confirmed, let currency = Currency.known(code) {
                    try await MerchantWebhooks.billPaymentConfirmed(
                        billPaymentID: billPaymentID, globalID: GlobalID(.billPayment, billPaymentID).description, orderID: orderID,
                        amount: Amount(minorUnits: minor, currency: currency), status: "CONFIRMED", on: connection)
                }
            }
            if let flag {
                _ = try await connection.query("""
                    UPDATE bill_payments SET flagged_reason = \(String(flag.prefix(1000))), flagged_at = now(), updated_at = now() WHERE id = \(billPaymentID)
                    """)
            }
            try await BillPayStore.notify(billPaymentID, on: connection)
        }
    }

    /// Refunds the payment that paid a refused bill (once: the refund's reference is derived from the bill payment).
    private func refund(paymentID: UUID, bill: BillPaymentRecord) async {
        let reference = "bpr_" + bill.id.uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
        let context = GatewayRequestContext(principal: Principal(apiKeyID: UUID(uuid: UUID.zero), scopes: [.ops], session: nil), idempotencyHeader: nil)
        do {
            if try await pool.query("SELECT 1 FROM refunds WHERE reference = \(String(reference))").single(Int32.self) != nil { return }
            _ = try await refunds.create(RefundService.CreateRequest(
                paymentID: paymentID, amountMinor: nil, currency: "INR", reason: "BILL_PAYMENT_FAILED",
                note: "Setu refused the bill payment confirmation", speed: "NORMAL", reference: String(reference)), context: context)
        } catch {
            // The flag stays: ops see the bill payment and refund it by hand (createRefund).
            _ = try? await pool.query("""
                UPDATE bill_payments SET flagged_reason = flagged_reason || ' (automatic refund failed)', updated_at = now() WHERE id = \(bill.id)
                """)
        }
    }
}
