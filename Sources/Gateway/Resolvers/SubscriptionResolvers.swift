import Foundation
import GraphQL
import GraphQLHTTP
import JSON

/// `Subscription` fields, served over Server-Sent Events (docs/api.md, "Live updates").
///
/// Each root resolver runs once when the subscription starts and again after every
/// event on the topic it watches (`LiveSubscription.watch`, see `LiveEvents`): it
/// re-reads the object with the caller's own visibility, so every `next` carries the
/// subscription's selection set as it is now. It watches before it reads, so a change
/// committed in between is not missed.
enum SubscriptionResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        set.async("Subscription", "orderUpdated") { input in
            guard let id = input[argument: "orderId"]?.stringValue.flatMap({ GlobalID($0, of: .order) }) else {
                throw GatewayRequestError.badInput("orderId is not an Order id.")
            }
            (input.source as? LiveSubscription)?.watch("Order:\(id.uuid.uuidString.lowercased())")
            guard let order = try await services.orderStore.find(id: id.uuid) else {
                throw GatewayRequestError.badInput("No order with this id.")
            }
            // The contract: another customer's object is FORBIDDEN (a session sees only its own customer's).
            guard try input.gateway.principal.maySee(customerID: order.customerID) else {
                throw GatewayRequestError(code: "FORBIDDEN", message: "This order is not visible to this caller.")
            }
            return OrderView(record: order)
        }
        // Announced by the bill-pay code (pg_notify 'BillPayment:<uuid>' in the transaction that
        // changes what a client sees). No final state ends it: a refund or a confirmation retry can follow.
        set.async("Subscription", "billPaymentUpdated") { input in
            guard let id = input[argument: "billPaymentId"]?.stringValue.flatMap({ GlobalID($0, of: .billPayment) }) else {
                throw GatewayRequestError.badInput("billPaymentId is not a BillPayment id.")
            }
            (input.source as? LiveSubscription)?.watch("BillPayment:\(id.uuid.uuidString.lowercased())")
            guard let record = try await services.billPayStore.payments(ids: [id.uuid])[id.uuid] else {
                throw GatewayRequestError.badInput("No bill payment with this id.")
            }
            guard try input.gateway.principal.maySee(customerID: record.customerID) else {
                throw GatewayRequestError(code: "FORBIDDEN", message: "This bill payment is not visible to this caller.")
            }
            return BillPaymentView(record: record)
        }
        // Its table is built by another part of issue 12's work; until it lands, a clear
        // error (the stream then completes at once), never a stream that waits forever.
        for field in ["upiCollectUpdated"] {
            set.sync("Subscription", field) { _ in
                throw GatewayRequestError(code: "NOT_IMPLEMENTED", message: "Subscription.\(field) is not available yet on this server.")
            }
        }
    }

}
