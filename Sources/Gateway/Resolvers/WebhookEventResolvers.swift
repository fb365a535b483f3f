import Foundation
import GraphQL
import JSON

/// `Query.webhookEvents` (OPS), `Order.webhookEvents` (SECRET, OPS) and the objects a delivery touched.
enum WebhookEventResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        let store = WebhookEventStore(pool: services.pool)
        registerReprocess(&set, services: services)
        set.async("Query", "webhookEvents") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let reader = InputReader(input[argument: "filter"]?.objectValue ?? JSONObject(), path: ["filter"])
            var filter = WebhookEventFilter()
            filter.providers = (reader.strings("provider") ?? []).map { $0.lowercased() }
            filter.eventType = reader.string("eventType")
            filter.outcomes = (reader.strings("outcome") ?? []).map { $0 == "PENDING" ? "PROCESSING" : $0 }
            if let order = reader.string("orderId") { filter.orderID = GlobalID(order, of: .order)?.uuid ?? UUID(uuid: UUID.zero) }
            filter.receivedAfter = reader.string("receivedAfter")
            filter.receivedBefore = reader.string("receivedBefore")
            let rows = try await store.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { WebhookEventView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.receivedAt, id: $0.id) })
        }
        set.async("Order", "webhookEvents") { input in
            guard let order = input.source as? OrderView else { return nil }
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue, order: nil)
            let rows = try await store.list(filter: WebhookEventFilter(orderID: order.record.id), after: page.after, limit: page.first,
                                            newestFirst: true)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { WebhookEventView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.receivedAt, id: $0.id) })
        }
        set.async("WebhookEvent", "order") { input in
            guard let event = input.source as? WebhookEventView, let id = event.record.orderID else { return nil }
            return try await services.orderStore.find(id: id).map(OrderView.init)
        }
        set.async("WebhookEvent", "payment") { input in
            guard let event = input.source as? WebhookEventView, let id = event.record.paymentID else { return nil }
            return try await services.paymentStore.payments(ids: [id])[id].map(PaymentView.init)
        }
        set.async("WebhookEvent", "refund") { input in
            guard let event = input.source as? WebhookEventView, let id = event.record.refundID else { return nil }
            return try await services.paymentStore.refunds(ids: [id])[id].map(RefundView.init)
        }
    }

    /// `node(id:)` for a WebhookEvent id: OPS and SECRET only (payloads are OPS only, field by field).
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> (any Sendable)? {
        guard principal.holdsAny(of: [.secret, .ops]) else { return nil }
        return try await WebhookEventStore(pool: services.pool).find(id: id).map(WebhookEventView.init)
    }
}
