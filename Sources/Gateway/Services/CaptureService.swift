import Foundation
import PaymentsCore
import Postgres
import Providers

/// `capturePayment`: takes the money of a Razorpay payment left AUTHORIZED (an account
/// without auto-capture). The captured payment is recorded like any payment the provider
/// reports, so the order becomes PAID once its verified captures cover it.
struct CaptureService: Sendable {
    let payments: PaymentStore
    let orders: OrderStore
    let providers: ProviderRegistry

    /// The payment after the call, and what went wrong at the provider, if anything.
    struct Captured: Sendable {
        var payment: PaymentRecord
        var userErrors: [UserError]
    }

    func capture(paymentID: UUID, amountMinor: Int64?, currency: String?, context: GatewayRequestContext) async throws -> Captured {
        guard let payment = try await payments.payments(ids: [paymentID])[paymentID],
              let order = try await orders.find(id: payment.orderID), context.principal.maySee(customerID: order.customerID) else {
            throw UserError(.notFound, "no such payment", field: ["input", "paymentId"])
        }
        guard payment.provider == .razorpay else {
            throw UserError(.capabilityNotSupported, "only RAZORPAY payments wait for a capture; \(payment.provider.graphQLName) captures on its own",
                            field: ["input", "paymentId"], provider: payment.provider)
        }
        guard let razorpay = providers.razorpay else { throw UserError(.noRoute, "RAZORPAY is not configured", provider: .razorpay) }
        guard payment.status == "AUTHORIZED" else {
            throw UserError(.invalidState, "the payment is \(payment.status); only an AUTHORIZED payment can be captured", field: ["input", "paymentId"])
        }
        if let currency, currency != payment.amount.currency.code {
            throw UserError(.amountMismatch, "the payment is in \(payment.amount.currency.code)", field: ["input", "amount", "currency"])
        }
        // Razorpay's capture reference (api/payments/capture) documents `amount` as the amount to capture, which
        // "should be equal to the authorised amount"; it offers no partial capture on this API, so any other amount
        // is refused here, before the call, as the contract's AMOUNT_MISMATCH.
        if let amountMinor, amountMinor != payment.amount.minorUnits {
            throw UserError(.amountMismatch, "a capture must equal the authorized amount (\(payment.amount.minorUnits))",
                            field: ["input", "amount", "amount"])
        }
        let reported: ProviderPayment
        do {
            reported = try await context.timingProvider { try await razorpay.capturePayment(id: payment.providerPaymentID, amount: payment.amount) }
        } catch let error as ProviderError {
            // Refused ("already captured") or unknown: what Razorpay says of the payment now is the truth.
            if let fetched = try? await context.timingProvider({ try await razorpay.fetchPayment(id: payment.providerPaymentID) }) {
                let recorded = try await record(fetched, orderID: order.id)
                if StatusTransitions.isCaptured(recorded.status) { return Captured(payment: recorded, userErrors: []) }
                return Captured(payment: recorded, userErrors: [UserError.provider(error)])
            }
            return Captured(payment: payment, userErrors: [UserError.provider(error)])
        }
        return Captured(payment: try await record(reported, orderID: order.id), userErrors: [])
    }

    /// Records the provider's payment under the order's lock (the order moves to PAID when covered).
    private func record(_ reported: ProviderPayment, orderID: UUID) async throws -> PaymentRecord {
        try await orders.pool.withTransaction { connection in
            guard let locked = try await OrderStore.lock(orderID: orderID, on: connection) else { throw GatewayRequestError.internal("order vanished") }
            return try await PaymentStore.record(reported, for: locked, verification: .providerStatusCheck, source: "PROVIDER_RESPONSE",
                                                 on: connection).0
        }
    }
}
