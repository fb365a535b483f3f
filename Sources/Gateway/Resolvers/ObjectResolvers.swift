import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Fields of `Customer`, `Order`, `Payment`, `Refund`, `OrderEvent` and `RazorpayCheckout` that load
/// related objects. Lists of N parents cost one query per field, not N (batch loaders per request).
enum ObjectResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        // Customer
        set.sync("Customer", "providerCustomerIds") { input in
            guard let customer = input.source as? CustomerView else { return [] as [any Sendable] }
            return loader(input, "customerRefs") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.customerStore.providerReferences(customerIDs: ids)
                    return ids.map { id in (found[id] ?? []).map { ProviderCustomerIDView(provider: $0.provider.graphQLName, id: $0.id,
                                                                                          createdAt: $0.createdAt.rfc3339) } as [any Sendable] }
                }
            }.load(customer.record.id)
        }
        set.sync("Customer", "linkedUpiAccounts") { _ in [] as [any Sendable] }
        set.async("Customer", "orders") { input in
            guard let customer = input.source as? CustomerView else { return nil }
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            var filter = try QueryResolvers.orderFilter(input[argument: "filter"]?.objectValue)
            filter.customerID = customer.record.id
            let rows = try await services.orderStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { OrderView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }

        // Order
        set.sync("Order", "customer") { input in
            guard let order = input.source as? OrderView, let customerID = order.record.customerID else { return nil }
            if let customer = order.customer, customer.id == customerID {
                // Read with the order: the same visibility rule as the loader's.
                let principal = (input.context as? GatewayRequestContext)?.principal
                return principal?.maySee(customerID: customerID) == true ? CustomerView(record: customer) : nil
            }
            return customerLoader(input, services).load(customerID)
        }
        set.sync("Order", "payments") { input in
            guard let order = input.source as? OrderView else { return [] as [any Sendable] }
            // Read with the order (`order(id)`).
            if let payments = order.payments { return payments.map(PaymentView.init) as [any Sendable] }
            return loader(input, "orderPayments") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.paymentStore.payments(orderIDs: ids)
                    return ids.map { (found[$0] ?? []).map(PaymentView.init) as [any Sendable] }
                }
            }.load(order.record.id)
        }
        set.sync("Order", "refunds") { input in
            guard let order = input.source as? OrderView else { return [] as [any Sendable] }
            return loader(input, "orderRefunds") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.paymentStore.refunds(orderIDs: ids)
                    return ids.map { (found[$0] ?? []).map(RefundView.init) as [any Sendable] }
                }
            }.load(order.record.id)
        }
        set.async("Order", "timeline") { input in
            guard let order = input.source as? OrderView else { return [] as [any Sendable] }
            return try await services.orderStore.events(orderID: order.record.id).map(OrderEventView.init) as [any Sendable]
        }

        // Checkout prefill: from the order's customer.
        set.sync("RazorpayCheckout", "prefill") { input in
            guard let checkout = input.source as? CheckoutView, let customerID = checkout.order.customerID else { return PrefillView() }
            let deferred = customerLoader(input, services).load(customerID)
            return Deferred {
                let customer = try await deferred.run() as? CustomerView
                return PrefillView(name: customer?.record.name, email: customer?.record.email, contact: customer?.record.phone)
            }
        }
        set.sync("RazorpayCheckout", "customerId") { input in
            guard let checkout = input.source as? CheckoutView, let customerID = checkout.order.customerID else { return nil }
            let deferred = loader(input, "customerRefs.razorpay") {
                BatchLoader<UUID, String> { ids in
                    let found = try await services.customerStore.providerReferences(customerIDs: ids)
                    return ids.map { id in found[id]?.first(where: { $0.provider == .razorpay })?.id }
                }
            }.load(customerID)
            return deferred
        }

        // Payment, Refund, OrderEvent
        set.sync("Payment", "order") { input in
            guard let payment = input.source as? PaymentView else { return nil }
            return orderLoader(input, services).load(payment.record.orderID)
        }
        set.sync("Payment", "refunds") { input in
            guard let payment = input.source as? PaymentView else { return [] as [any Sendable] }
            return loader(input, "paymentRefunds") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.paymentStore.refunds(paymentIDs: ids)
                    return ids.map { (found[$0] ?? []).map(RefundView.init) as [any Sendable] }
                }
            }.load(payment.record.id)
        }
        set.sync("Refund", "payment") { input in
            guard let refund = input.source as? RefundView else { return nil }
            return paymentLoader(input, services).load(refund.record.paymentID)
        }
        set.sync("Refund", "order") { input in
            guard let refund = input.source as? RefundView, let orderID = refund.record.orderID else { return nil }
            return orderLoader(input, services).load(orderID)
        }
        set.sync("OrderEvent", "payment") { input in
            guard let event = input.source as? OrderEventView, let id = event.record.paymentID else { return nil }
            return paymentLoader(input, services).load(id)
        }
        set.sync("OrderEvent", "refund") { input in
            guard let event = input.source as? OrderEventView, let id = event.record.refundID else { return nil }
            return loader(input, "refunds") {
                BatchLoader<UUID, RefundView> { ids in
                    let found = try await services.paymentStore.refunds(ids: ids)
                    return ids.map { found[$0].map(RefundView.init) }
                }
            }.load(id)
        }
    }

    private static func loader<Loader: Sendable>(_ input: ResolveInput, _ id: String, _ make: () -> Loader) -> Loader {
        input.loaders.loader(id, make: make)
    }

    /// Customers by id, for this request; a session sees only its own customer.
    static func customerLoader(_ input: ResolveInput, _ services: GatewayServices) -> BatchLoader<UUID, CustomerView> {
        let principal = (input.context as? GatewayRequestContext)?.principal
        return loader(input, "customers") {
            BatchLoader<UUID, CustomerView> { ids in
                let found = try await services.customerStore.find(ids: ids)
                return ids.map { id in principal?.maySee(customerID: id) == true ? found[id].map(CustomerView.init) : nil }
            }
        }
    }

    /// Orders by id, for this request (no visibility check: callers reach them through a visible object).
    static func orderLoader(_ input: ResolveInput, _ services: GatewayServices) -> BatchLoader<UUID, OrderView> {
        loader(input, "orders") {
            BatchLoader<UUID, OrderView> { ids in
                let found = try await services.orderStore.find(ids: ids)
                return ids.map { found[$0].map(OrderView.init) }
            }
        }
    }

    private static func paymentLoader(_ input: ResolveInput, _ services: GatewayServices) -> BatchLoader<UUID, PaymentView> {
        loader(input, "payments") {
            BatchLoader<UUID, PaymentView> { ids in
                let found = try await services.paymentStore.payments(ids: ids)
                return ids.map { found[$0].map(PaymentView.init) }
            }
        }
    }
}
