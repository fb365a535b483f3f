import Foundation
import PaymentsCore
import Postgres
import Providers

/// Re-reads an order's PENDING refunds from their provider (part of `syncOrder`), so a refund
/// whose answer was lost, or that waits for a webhook, reaches the provider's status.
///
/// Per provider: Cashfree by the merchant `refund_id` (a refund Cashfree does not know never
/// reached it: FAILED, its reservation released); Razorpay by its `rfnd_` id, or — when the
/// create's answer was lost before PayQL learnt that id — by sending the same request again with
/// the same `X-Refund-Idempotency` key, which returns the refund Razorpay made (or makes the one
/// the merchant asked for and PayQL reserved); Instamojo by its case id once known. A refund
/// that cannot be read now stays as it is.
struct RefundReconciliation: Sendable {
    let pool: PostgresPool
    let providers: ProviderRegistry

    /// Refreshes every PENDING refund of `order`; returns how many changed status.
    @discardableResult
    func refresh(order: OrderRecord, context: GatewayRequestContext) async throws -> Int {
        let pending = try await pool.query("""
            SELECT \(sql: PaymentStore.refundColumns) FROM refunds WHERE order_id = \(order.id) AND status = 'PENDING' ORDER BY created_at, id
            """).map(PaymentStore.refund)
        guard !pending.isEmpty else { return 0 }
        let payments = try await PaymentStore(pool: pool).payments(ids: pending.map(\.paymentID))
        let store = RefundStore(pool: pool)
        var changed = 0
        for refund in pending {
            guard let payment = payments[refund.paymentID] else { continue }
            let update: RefundStore.Update
            do {
                guard let answer = try await context.timingProvider({ try await read(refund, payment: payment, order: order) }) else { continue }
                update = RefundStore.Update(answer)
            } catch let error as ProviderError where error.code == .notFound && refund.provider == .cashfree {
                update = RefundStore.Update(status: "FAILED", providerStatus: nil, failureReason: "CASHFREE has no refund \(refund.reference)")
            } catch is ProviderError {
                continue
            }
            let applied = try await store.apply(update, refundID: refund.id, orderID: order.id, source: "PROVIDER_RESPONSE")
            if applied.status != refund.status { changed += 1 }
        }
        return changed
    }

    /// The provider's refund, or nil when it cannot be asked for (no id to ask by).
    private func read(_ refund: RefundRecord, payment: PaymentRecord, order: OrderRecord) async throws -> ProviderRefund? {
        switch refund.provider {
        case .cashfree:
            guard let cashfree = providers.cashfree, let providerOrderID = order.providerOrderID else { return nil }
            return try await cashfree.fetchRefund(orderID: providerOrderID, refundID: refund.reference)
        case .razorpay:
            guard let razorpay = providers.razorpay else { return nil }
            if let id = refund.providerRefundID { return try await razorpay.fetchRefund(id: id) }
            guard refund.reference.utf8.count >= 10 else { return nil }
            // The same request as the first (RefundService.send): Razorpay answers a repeated key with the same refund.
            return try await razorpay.createRefund(RefundService.providerRequest(refund, payment: payment, order: order))
        case .instamojo:
            guard let instamojo = providers.instamojo, let id = refund.providerRefundID else { return nil }
            return try await instamojo.fetchRefund(id: id)
        case .setu:
            return nil
        }
    }
}
