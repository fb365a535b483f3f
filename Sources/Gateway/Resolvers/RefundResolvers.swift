import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Money going back and money held: `createRefund`, `capturePayment`, `cancelOrder`, and the
/// `payments` / `refunds` lists (docs/api.md, "Refunds, captures and cancellations").
enum RefundResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        let refunds = RefundService(refunds: RefundStore(pool: services.pool), payments: services.paymentStore, orders: services.orderStore,
                                    providers: services.providers)
        let captures = CaptureService(payments: services.paymentStore, orders: services.orderStore, providers: services.providers)
        let cancels = CancelService(orders: services.orderStore, payments: services.paymentStore, orderService: services.orders,
                                    providers: services.providers)

        MutationResolvers.mutation(&set, "createRefund", services) { input, context in
            let money = try input.money("amount")
            let created = try await refunds.create(RefundService.CreateRequest(
                paymentID: try input.requiredID("paymentId", of: .payment), amountMinor: money?.minorUnits, currency: money?.currency,
                reason: input.string("reason") ?? "OTHER", note: input.string("note"), speed: input.string("speed") ?? "NORMAL",
                reference: input.string("reference")), context: context)
            // A refund that exists (even PENDING after a lost answer) keeps its key: a retry returns it.
            return MutationResolvers.MutationResult(members: ["refund": RefundView(record: created.refund)], ids: ["refund": created.refund.id],
                                  userErrors: created.userErrors, keepKey: true)
        } replay: { ids in
            ["refund": try await ids.uuid("refund").asyncMap { try await services.paymentStore.refunds(ids: [$0])[$0] }?.map(RefundView.init)]
        }

        MutationResolvers.mutation(&set, "capturePayment", services) { input, context in
            let money = try input.money("amount")
            let captured = try await captures.capture(paymentID: try input.requiredID("paymentId", of: .payment), amountMinor: money?.minorUnits,
                                                      currency: money?.currency, context: context)
            return MutationResolvers.MutationResult(members: ["payment": PaymentView(record: captured.payment)], ids: ["payment": captured.payment.id],
                                  userErrors: captured.userErrors)
        } replay: { ids in
            ["payment": try await ids.uuid("payment").asyncMap { try await services.paymentStore.payments(ids: [$0])[$0] }?.map(PaymentView.init)]
        }

        MutationResolvers.mutation(&set, "cancelOrder", services) { input, context in
            let cancelled = try await cancels.cancel(orderID: try input.requiredID("orderId", of: .order), reason: input.string("reason"),
                                                     context: context)
            return MutationResolvers.MutationResult(members: ["order": OrderView(record: cancelled.order)], ids: ["order": cancelled.order.id],
                                  userErrors: cancelled.userErrors)
        } replay: { ids in
            ["order": try await ids.uuid("order").asyncMap { try await services.orderStore.find(id: $0) }?.map(OrderView.init)]
        }

        set.async("Query", "payments") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let filter = paymentFilter(input[argument: "filter"]?.objectValue)
            let rows = try await services.paymentStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { PaymentView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        set.async("Query", "refunds") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let filter = refundFilter(input[argument: "filter"]?.objectValue)
            let rows = try await services.paymentStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { RefundView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
    }

    /// An id argument of a filter: an id of another type matches nothing (not an error for a filter).
    private static func filterID(_ text: String?, of type: NodeType) -> UUID? {
        guard let text else { return nil }
        return GlobalID(text, of: type)?.uuid ?? UUID(uuid: UUID.zero)
    }

    /// `PaymentFilter` to the store's filter.
    static func paymentFilter(_ object: JSONObject?) -> PaymentFilter {
        guard let object else { return PaymentFilter() }
        let reader = InputReader(object, path: ["filter"])
        var filter = PaymentFilter()
        filter.statuses = reader.strings("status") ?? []
        filter.providers = (reader.strings("provider") ?? []).map { $0.lowercased() }
        filter.methods = reader.strings("method") ?? []
        filter.orderID = filterID(reader.string("orderId"), of: .order)
        filter.customerID = filterID(reader.string("customerId"), of: .customer)
        filter.providerPaymentID = reader.string("providerPaymentId")
        filter.verified = reader.bool("verified")
        filter.createdAfter = reader.string("createdAfter")
        filter.createdBefore = reader.string("createdBefore")
        return filter
    }

    /// `RefundFilter` to the store's filter.
    static func refundFilter(_ object: JSONObject?) -> RefundFilter {
        guard let object else { return RefundFilter() }
        let reader = InputReader(object, path: ["filter"])
        var filter = RefundFilter()
        filter.statuses = reader.strings("status") ?? []
        filter.providers = (reader.strings("provider") ?? []).map { $0.lowercased() }
        filter.paymentID = filterID(reader.string("paymentId"), of: .payment)
        filter.orderID = filterID(reader.string("orderId"), of: .order)
        filter.initiatedBy = reader.strings("initiatedBy") ?? []
        filter.createdAfter = reader.string("createdAfter")
        filter.createdBefore = reader.string("createdBefore")
        return filter
    }
}
