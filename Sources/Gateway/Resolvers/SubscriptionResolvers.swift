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
        // Their tables are built by other parts of issue 12's work; until they land, a clear
        // error (the stream then completes at once), never a stream that waits forever.
        for field in ["upiCollectUpdated", "billPaymentUpdated"] {
            set.sync("Subscription", field) { _ in
                throw GatewayRequestError(code: "NOT_IMPLEMENTED", message: "Subscription.\(field) is not available yet on this server.")
            }
        }
    }

}
