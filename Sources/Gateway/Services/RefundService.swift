import Crypto
import Foundation
import PaymentsCore
import Postgres
import Providers

/// `createRefund`: money going back, on every provider that refunds (Razorpay, Cashfree, Instamojo).
///
/// The same protocol as an order's creation: the refund row (PENDING, with its unique
/// merchant `reference`) is committed first and reserves the amount under the payment's
/// row lock (``RefundStore/reserve(_:field:)``); then the provider gets the reference
/// (Razorpay `receipt` + `X-Refund-Idempotency`, Cashfree `refund_id` + `x-idempotency-key`,
/// Instamojo `transaction_id`). When the request certainly never left, the row is removed;
/// when the provider refused, the refund is FAILED and its reservation released; when the
/// outcome is unknown, it stays PENDING with `needsReconciliation` (still reserved), to be
/// found again by its reference.
struct RefundService: Sendable {
    let refunds: RefundStore
    let payments: PaymentStore
    let orders: OrderStore
    let providers: ProviderRegistry

    /// `createRefund`'s input, decoded.
    struct CreateRequest: Sendable {
        var paymentID: UUID
        var amountMinor: Int64?
        var currency: String?
        var reason: String
        var note: String?
        var speed: String
        var reference: String?
        /// `MERCHANT`, or `SETU` when Setu asked (`POST /setu/v1/refund`).
        var initiatedBy: String = "MERCHANT"
    }

    /// The refund and what went wrong at the provider, if anything.
    struct Created: Sendable {
        var refund: RefundRecord
        var userErrors: [UserError]
    }

    /// Razorpay refunds at least ₹1.00 (the sandbox and the dashboard refuse less).
    static let razorpayMinimumMinor: Int64 = 100

    func create(_ request: CreateRequest, context: GatewayRequestContext) async throws -> Created {
        let amountField = ["input", "amount"]
        if let amount = request.amountMinor, amount <= 0 {
            throw UserError(.invalidAmount, "amount must be more than 0", field: amountField + ["amount"])
        }
        let currencyCode = request.currency ?? "INR"
        guard let currency = Currency.known(currencyCode), currency == .inr else {
            throw UserError(.unsupportedCurrency, "only INR is supported", field: amountField + ["currency"])
        }
        let reference = try request.reference.map { r throws(UserError) in try Validation.receipt(r, field: ["input", "reference"]) }
            ?? Self.generatedReference()
        let note = try Validation.text(request.note, field: ["input", "note"])
        guard let payment = try await payments.payments(ids: [request.paymentID])[request.paymentID],
              let order = try await orders.find(id: payment.orderID), context.principal.maySee(customerID: order.customerID) else {
            throw UserError(.notFound, "no such payment", field: ["input", "paymentId"])
        }
        switch payment.provider {
        case .setu:
            throw UserError(.capabilityNotSupported, "SETU collects no money itself: refund the payment that paid the bill", field: ["input", "paymentId"])
        case .razorpay:
            if let amount = request.amountMinor, amount < Self.razorpayMinimumMinor {
                throw UserError(.amountOutOfRange, "RAZORPAY refunds at least 1.00 INR", field: amountField + ["amount"], provider: .razorpay)
            }
        case .cashfree:
            if let note, !(3...100).contains(note.count) {
                throw UserError(.validationFailed, "CASHFREE takes a refund note of 3–100 characters", field: ["input", "note"], provider: .cashfree)
            }
        case .instamojo:
            // Instamojo's refund API takes no speed: refusing beats a silent normal refund.
            if request.speed == "INSTANT" {
                throw UserError(.capabilityNotSupported, "INSTAMOJO has no instant refunds", field: ["input", "speed"], provider: .instamojo)
            }
        }
        guard providers.isConfigured(payment.provider) else {
            throw UserError(.noRoute, "\(payment.provider.graphQLName) is not configured", provider: payment.provider)
        }
        let reservation = try await refunds.reserve(RefundStore.NewRefund(
            paymentID: payment.id, amountMinor: request.amountMinor, currency: currency, reference: reference, reason: request.reason,
            note: note, speedRequested: request.speed == "INSTANT" ? "INSTANT" : nil, initiatedBy: request.initiatedBy), field: amountField)
        let refund = reservation.refund
        do {
            let answer = try await context.timingProvider { try await send(refund, payment: reservation.payment, order: reservation.order) }
            let applied = try await refunds.apply(RefundStore.Update(answer), refundID: refund.id, orderID: order.id, source: "PROVIDER_RESPONSE")
            let errors = applied.needsReconciliation
                ? [UserError(.providerMalformedResponse, "the provider answered refund status '\(answer.rawStatus)', which PayQL does not know; the refund will be reconciled",
                             provider: payment.provider, retryable: true)]
                : []
            return Created(refund: applied, userErrors: errors)
        } catch let error as UserError {
            // Refused before anything was sent (the provider is not configured).
            try await refunds.deleteUnsent(refundID: refund.id)
            throw error
        } catch let error as ProviderError {
            switch error.code.outcome {
            case .notDone:
                // Never reached the provider: nothing to reconcile; the reference may be used again.
                try await refunds.deleteUnsent(refundID: refund.id)
                throw UserError.provider(error)
            case .refused:
                let failed = try await refunds.apply(RefundStore.Update(status: "FAILED", providerStatus: nil, failureReason: error.message),
                                                     refundID: refund.id, orderID: order.id, source: "PROVIDER_RESPONSE")
                return Created(refund: failed, userErrors: [UserError.provider(error)])
            case .unknown:
                let pending = try await refunds.markNeedsReconciliation(refundID: refund.id, orderID: order.id, reason: error.code.label)
                return Created(refund: pending, userErrors: [UserError.provider(error)])
            }
        }
    }

    /// The provider call, with the refund's reference as the provider's reference and idempotency key.
    private func send(_ refund: RefundRecord, payment: PaymentRecord, order: OrderRecord) async throws -> ProviderRefund {
        var request = Self.providerRequest(refund, payment: payment, order: order)
        switch payment.provider {
        case .razorpay:
            guard let razorpay = providers.razorpay else { throw UserError(.noRoute, "RAZORPAY is not configured") }
            // `X-Refund-Idempotency` takes 10 or more characters: a shorter merchant reference goes without
            // (the refund is then sent once, never repeated by the client on its own).
            if refund.reference.utf8.count < 10 { request.idempotencyKey = nil }
            return try await razorpay.createRefund(request)
        case .cashfree:
            guard let cashfree = providers.cashfree else { throw UserError(.noRoute, "CASHFREE is not configured") }
            return try await cashfree.createRefund(request)
        case .instamojo:
            guard let instamojo = providers.instamojo else { throw UserError(.noRoute, "INSTAMOJO is not configured") }
            // Instamojo has no idempotency key; a repeated `transaction_id` is refused, which prevents a second refund.
            request.idempotencyKey = nil
            return try await instamojo.createRefund(request, reason: Self.instamojoReason(refund.reason))
        case .setu:
            throw UserError(.capabilityNotSupported, "SETU collects no money itself")
        }
    }

    /// The request sent for a refund — built the same way when it is sent again to reconcile it, so that
    /// Razorpay and Cashfree see the same body under the same idempotency key. The speed is sent only when
    /// INSTANT was asked for (NORMAL is every provider's default; Razorpay reports speeds only if one was sent).
    static func providerRequest(_ refund: RefundRecord, payment: PaymentRecord, order: OrderRecord) -> RefundRequest {
        RefundRequest(paymentID: payment.providerPaymentID, orderID: order.providerOrderID, amount: refund.amount,
                      reference: refund.reference, note: refund.note, idempotencyKey: refund.reference,
                      speed: refund.speedRequested == "INSTANT" ? .instant : nil)
    }

    /// The contract's `RefundReason` as Instamojo's reason code.
    static func instamojoReason(_ reason: String?) -> InstamojoRefundReason {
        switch reason {
        case "DUPLICATE_OR_DELAYED_PAYMENT": .duplicatePayment
        case "PRODUCT_UNAVAILABLE": .unavailable
        case "CUSTOMER_NOT_SATISFIED": .notSatisfied
        case "PRODUCT_LOST_OR_DAMAGED": .lostOrDamaged
        case "DIGITAL_DOWNLOAD_ISSUE": .downloadProblem
        case "EVENT_CANCELLED": .eventCancelled
        default: .other
        }
    }

    /// `rf_` and 20 random characters of `[a-z0-9]`: fits every provider's reference and Razorpay's idempotency key.
    static func generatedReference() -> String {
        "rf_" + OrderService.generatedReceipt().dropFirst(3)
    }
}
