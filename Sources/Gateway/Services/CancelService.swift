import Foundation
import PaymentsCore
import Postgres
import Providers

/// `cancelOrder`: an unpaid order stops being payable.
///
/// Cashfree has a cancel API (`PATCH /orders/{id}` → `TERMINATED`): the order is CANCELLED
/// when Cashfree says so. Razorpay and Instamojo have none: PayQL first re-reads the order
/// and its payments from the provider (so a payment it has not heard of is not missed) and
/// cancels locally only if nothing was paid or authorized. Such an order can still be paid
/// at the provider; a payment confirmed afterwards moves it to PAID with a LATE_PAYMENT
/// timeline entry (decision 10, ``StatusTransitions``).
struct CancelService: Sendable {
    let orders: OrderStore
    let payments: PaymentStore
    let orderService: OrderService
    let providers: ProviderRegistry

    /// The order after the call, and what went wrong, if anything.
    struct Cancelled: Sendable {
        var order: OrderRecord
        var userErrors: [UserError]
    }

    func cancel(orderID: UUID, reason: String?, context: GatewayRequestContext) async throws -> Cancelled {
        let reason = try Validation.text(reason, field: ["input", "reason"])
        guard let order = try await orders.find(id: orderID), context.principal.maySee(customerID: order.customerID) else {
            throw UserError(.notFound, "no such order", field: ["input", "orderId"])
        }
        if order.status == .cancelled { return Cancelled(order: order, userErrors: []) }
        try Self.checkCancellable(order)
        switch order.provider {
        case .cashfree:
            return try await terminateAtCashfree(order, reason: reason, context: context)
        case .razorpay, .instamojo:
            let synced = try await orderService.sync(order: order, context: context)
            guard synced.userErrors.isEmpty else {
                // Whether something was paid cannot be told now: nothing is cancelled.
                return Cancelled(order: synced.order, userErrors: synced.userErrors)
            }
            try Self.checkCancellable(synced.order)
            let held = (try await payments.payments(orderIDs: [order.id])[order.id] ?? []).filter {
                $0.status == "AUTHORIZED" || StatusTransitions.isCaptured($0.status)
            }
            guard held.isEmpty else {
                throw UserError(.invalidState, "the order has an authorized or captured payment; capture or refund it instead",
                                field: ["input", "orderId"])
            }
            let cancelled = try await markCancelled(order.id, providerStatus: nil, source: "API",
                                                    message: Self.message("cancelled in PayQL only (\(order.provider.graphQLName) has no cancel API)", reason))
            return Cancelled(order: cancelled, userErrors: [])
        case .setu:
            throw UserError(.capabilityNotSupported, "SETU orders are not cancelled through PayQL", field: ["input", "orderId"])
        }
    }

    private func terminateAtCashfree(_ order: OrderRecord, reason: String?, context: GatewayRequestContext) async throws -> Cancelled {
        guard let cashfree = providers.cashfree else { throw UserError(.noRoute, "CASHFREE is not configured", provider: .cashfree) }
        guard let providerOrderID = order.providerOrderID else {
            throw UserError(.invalidState, "the order's creation at CASHFREE is not confirmed yet; sync it first", field: ["input", "orderId"])
        }
        do {
            let terminated = try await context.timingProvider { try await cashfree.terminateOrder(id: providerOrderID) }
            guard terminated.status == .cancelled else {
                // Cashfree did not stop it (paid or expired meanwhile): apply what it says.
                let synced = try await orderService.sync(order: order, context: context)
                return Cancelled(order: synced.order, userErrors: [UserError(.invalidState, "CASHFREE answered \(terminated.rawStatus)",
                                                                             field: ["input", "orderId"], provider: .cashfree)])
            }
            let cancelled = try await markCancelled(order.id, providerStatus: terminated.rawStatus, source: "PROVIDER_RESPONSE",
                                                    message: Self.message("terminated at CASHFREE", reason))
            return Cancelled(order: cancelled, userErrors: [])
        } catch let error as ProviderError {
            if error.code.outcome == .refused {
                // Refused: most likely paid or already final at Cashfree; learn which.
                let synced = try? await orderService.sync(order: order, context: context)
                return Cancelled(order: synced?.order ?? order, userErrors: [UserError.provider(error)])
            }
            return Cancelled(order: order, userErrors: [UserError.provider(error)])
        }
    }

    /// Under the order's lock: CANCELLED unless it moved meanwhile (then INVALID_STATE).
    private func markCancelled(_ orderID: UUID, providerStatus: String?, source: String, message: String) async throws -> OrderRecord {
        try await orders.pool.withTransaction { connection in
            guard let locked = try await OrderStore.lock(orderID: orderID, on: connection) else { throw UserError(.notFound, "no such order") }
            if locked.status == .cancelled { return locked }
            try Self.checkCancellable(locked)
            return try await OrderStore.cancel(locked, providerStatus: providerStatus, source: source, message: message, on: connection)
        }
    }

    /// PAID, FAILED and EXPIRED orders, and orders with money received, cannot be cancelled.
    static func checkCancellable(_ order: OrderRecord) throws(UserError) {
        if order.status.isFinal, order.status != .cancelled {
            throw UserError(.invalidState, "the order is \(order.status.rawValue)", field: ["input", "orderId"])
        }
        if order.amountPaidMinor > 0 {
            throw UserError(.invalidState, "the order has received \(order.amountPaidMinor); refund it instead", field: ["input", "orderId"])
        }
    }

    private static func message(_ text: String, _ reason: String?) -> String {
        reason.map { "\(text): \($0)" } ?? text
    }
}
