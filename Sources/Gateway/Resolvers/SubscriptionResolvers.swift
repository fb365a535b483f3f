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
        // Announced by the UPI collect code (pg_notify 'UpiCollect:<uuid>' in each transaction that
        // changes the collect). Each read may run the collect's due status check (one for all readers).
        set.async("Subscription", "upiCollectUpdated") { input in
            guard let id = input[argument: "upiCollectId"]?.stringValue.flatMap({ GlobalID($0, of: .upiCollect) }) else {
                throw GatewayRequestError.badInput("upiCollectId is not an UpiCollect id.")
            }
            (input.source as? LiveSubscription)?.watch("UpiCollect:\(id.uuid.uuidString.lowercased())")
            guard let record = try await services.upiCollects.read(id: id.uuid),
                  let order = try await services.orderStore.find(id: record.orderID) else {
                throw GatewayRequestError.badInput("No UPI collect with this id.")
            }
            guard try input.gateway.principal.maySee(customerID: order.customerID) else {
                throw GatewayRequestError(code: "FORBIDDEN", message: "This UPI collect is not visible to this caller.")
            }
            return InstamojoResolvers.view(record, services)
        }
    }

}
