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
            let id = try watchedID(input, argument: "orderId", of: .order)
            guard let order = try await services.orderStore.find(id: id) else {
                throw GatewayRequestError.badInput("No order with this id.")
            }
            try checkVisible(input, customerID: order.customerID, "order")
            return OrderView(record: order)
        }
        // Announced by the bill-pay code (pg_notify 'BillPayment:<uuid>' in the transaction that
        // changes what a client sees). No final state ends it: a refund or a confirmation retry can follow.
        set.async("Subscription", "billPaymentUpdated") { input in
            let id = try watchedID(input, argument: "billPaymentId", of: .billPayment)
            guard let record = try await services.billPayStore.payments(ids: [id])[id] else {
                throw GatewayRequestError.badInput("No bill payment with this id.")
            }
            try checkVisible(input, customerID: record.customerID, "bill payment")
            return BillPaymentView(record: record)
        }
        // Announced by the UPI collect code (pg_notify 'UpiCollect:<uuid>' in each transaction that
        // changes the collect). Each read may run the collect's due status check (one for all readers).
        set.async("Subscription", "upiCollectUpdated") { input in
            let id = try watchedID(input, argument: "upiCollectId", of: .upiCollect)
            guard let record = try await services.upiCollects.read(id: id),
                  let order = try await services.orderStore.find(id: record.orderID) else {
                throw GatewayRequestError.badInput("No UPI collect with this id.")
            }
            try checkVisible(input, customerID: order.customerID, "UPI collect")
            return InstamojoResolvers.view(record, services)
        }
    }

    /// The `type` id in argument `name`, its topic (`<Type>:<uuid>`, what the notifying code sends)
    /// watched before anything is read; BAD_USER_INPUT for an id of another type.
    private static func watchedID(_ input: ResolveInput, argument name: String, of type: NodeType) throws -> UUID {
        guard let id = input[argument: name]?.stringValue.flatMap({ GlobalID($0, of: type) }) else {
            throw GatewayRequestError.badInput("\(name) is not \("AEIOU".contains(type.rawValue.prefix(1)) ? "an" : "a") \(type.rawValue) id.")
        }
        (input.source as? LiveSubscription)?.watch("\(type.rawValue):\(id.uuid.uuidString.lowercased())")
        return id.uuid
    }

    /// The contract: another customer's object is FORBIDDEN (a session sees only its own customer's).
    private static func checkVisible(_ input: ResolveInput, customerID: UUID?, _ what: String) throws {
        guard try input.gateway.principal.maySee(customerID: customerID) else {
            throw GatewayRequestError(code: "FORBIDDEN", message: "This \(what) is not visible to this caller.")
        }
    }
}
