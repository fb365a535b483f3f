import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// The Instamojo custom UI in the schema (flows F14, F15, F18): `Order.paymentOptions`,
/// `startRedirectPayment`, `requestUpiCollect`, `Query.upiCollect`, `Order.upiCollects`,
/// `UpiCollect.order` / `.payment`, and `node(id:)` for UpiCollect ids.
enum InstamojoResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        set.async("Order", "paymentOptions") { input in
            guard let order = input.source as? OrderView else { return nil }
            // One upstream call per order: never for each row of a list (API README, "Routing").
            if Self.isUnderList(input.info.path) {
                throw GatewayRequestError.badInput("Order.paymentOptions is resolved on single-order reads only (order(id:), node(id:)), not per row of a list")
            }
            do {
                return try await services.paymentOptions.options(for: order.record, context: try input.gateway)
                    .map { PaymentOptionsView(fetched: $0, provider: order.record.provider) }
            } catch let error as UserError {
                // A final order offers nothing; a provider failure is this field's error.
                if error.code == .invalidState { return nil }
                throw GatewayRequestError(code: error.code.rawValue, message: error.message)
            }
        }

        MutationResolvers.mutation(&set, "startRedirectPayment", services) { input, context in
            let (order, redirect) = try await redirect(input, context: context, services: services)
            return MutationResolvers.MutationResult(members: ["redirect": RedirectPaymentView(redirect: redirect), "order": OrderView(record: order)],
                                                    ids: ["order": order.id])
        } replayWithInput: { _, input, context in
            // The form is never stored: the same (hash-checked) input builds it again.
            let (order, redirect) = try await redirect(input, context: context, services: services)
            return ["redirect": RedirectPaymentView(redirect: redirect), "order": OrderView(record: order)]
        }

        MutationResolvers.mutation(&set, "requestUpiCollect", services) { input, context in
            // The VPA first: a malformed one is refused before anything is read or written.
            _ = try UpiCollectService.validatedVPA(try input.requiredString("vpa"))
            let order = try await MutationResolvers.ownOrder(try input.requiredID("orderId", of: .order), context: context, services: services)
            let collect = try await services.upiCollects.request(order: order, vpa: try input.requiredString("vpa"), context: context)
            return MutationResolvers.MutationResult(members: ["upiCollect": view(collect, services)], ids: ["upiCollect": collect.id])
        } replay: { ids in
            ["upiCollect": try await ids.uuid("upiCollect").asyncMap { try await services.upiCollectStore.find(id: $0) }?.map { view($0, services) }]
        }

        set.async("Query", "upiCollect") { input in
            guard let id = input[argument: "id"]?.stringValue.flatMap({ GlobalID($0, of: .upiCollect) }) else { return nil }
            guard let stored = try await services.upiCollectStore.find(id: id.uuid),
                  try await QueryResolvers.visibleOrder(stored.orderID, input: input, services: services) != nil else { return nil }
            return try await services.upiCollects.read(id: id.uuid).map { view($0, services) }
        }

        set.sync("Order", "upiCollects") { input in
            guard let order = input.source as? OrderView else { return [] as [any Sendable] }
            return input.loaders.loader("orderUpiCollects") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.upiCollectStore.list(orderIDs: ids)
                    return ids.map { (found[$0] ?? []).map { view($0, services) } as [any Sendable] }
                }
            }.load(order.record.id)
        }
        set.sync("UpiCollect", "order") { input in
            guard let collect = input.source as? UpiCollectView else { return nil }
            return ObjectResolvers.orderLoader(input, services).load(collect.record.orderID)
        }
        set.async("UpiCollect", "payment") { input in
            guard let collect = input.source as? UpiCollectView else { return nil }
            if let id = collect.record.paymentID {
                return try await services.paymentStore.payments(ids: [id])[id].map(PaymentView.init)
            }
            // Final but not linked yet (the order's sync failed): the order's payment with the collect's provider id.
            guard !collect.record.isPending, let providerID = collect.record.providerPaymentID else { return nil }
            let payments = try await services.paymentStore.payments(orderIDs: [collect.record.orderID])[collect.record.orderID] ?? []
            return payments.first { $0.providerPaymentID == providerID }.map(PaymentView.init)
        }
    }

    /// Decodes `startRedirectPayment`'s input and builds the form.
    private static func redirect(_ input: InputReader, context: GatewayRequestContext,
                                 services: GatewayServices) async throws -> (OrderRecord, PaymentOptionsService.Redirect) {
        let order = try await MutationResolvers.ownOrder(try input.requiredID("orderId", of: .order), context: context, services: services)
        do {
            let redirect = try await services.paymentOptions.redirect(for: order, method: try input.requiredString("method"),
                                                                      bankCode: input.string("bankCode"), walletID: input.string("walletId"),
                                                                      context: context)
            return (order, redirect)
        } catch var error as UserError where error.field == nil && error.code == .invalidState {
            error.field = ["input", "orderId"]
            throw error
        }
    }

    /// The view of a collect.
    static func view(_ record: UpiCollectRecord, _ services: GatewayServices) -> UpiCollectView {
        UpiCollectView(record: record, pollIntervalSeconds: services.configuration.upiCollects.clientPollIntervalSeconds)
    }

    /// Whether a field sits inside a list (a list index on its path).
    static func isUnderList(_ path: ResponsePath) -> Bool {
        var step: ResponsePath? = path.parent
        while let current = step {
            if case .index = current.key { return true }
            step = current.parent
        }
        return false
    }

    /// `node(id:)` for an UpiCollect id: null when absent or its order is not the caller's to see.
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> UpiCollectView? {
        guard let record = try await services.upiCollectStore.find(id: id),
              let order = try await services.orderStore.find(id: record.orderID), principal.maySee(customerID: order.customerID) else { return nil }
        return view(record, services)
    }
}
