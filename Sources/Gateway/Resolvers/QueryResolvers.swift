import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres
import Providers

/// `Query` fields: reads, with a client session seeing only its own customer's objects.
enum QueryResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        set.sync("Query", "viewer") { input in
            let principal = try input.gateway.principal
            return ViewerView(principal: principal, environment: services.providers.environments.values.contains(.live) ? "LIVE" : "TEST")
        }
        set.async("Query", "customer") { input in
            let principal = try input.gateway.principal
            guard let id = input[argument: "id"]?.stringValue.flatMap({ GlobalID($0, of: .customer) }),
                  principal.maySee(customerID: id.uuid),
                  let record = try await services.customerStore.find(id: id.uuid) else { return nil }
            return CustomerView(record: record)
        }
        set.async("Query", "customers") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let filter = InputReader(input[argument: "filter"]?.objectValue ?? JSONObject(), path: ["filter"])
            let rows = try await services.customerStore.list(
                filter: CustomerFilter(phone: filter.string("phone"), email: filter.string("email"), namePrefix: filter.string("namePrefix"),
                                       createdAfter: filter.string("createdAfter"), createdBefore: filter.string("createdBefore")),
                after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { CustomerView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        set.async("Query", "order") { input in
            guard let id = input[argument: "id"]?.stringValue.flatMap({ GlobalID($0, of: .order) }) else { return nil }
            let nodes = input.info.fieldNodes
            var related = OrderStore.Related(customer: ResolveInput.selects("customer", in: nodes),
                                             payments: ResolveInput.selects("payments", in: nodes))
            guard related != OrderStore.Related() else {
                return try await visibleOrder(id.uuid, input: input, services: services).map(OrderView.init(record:))
            }
            // The customer or the payments are selected: read them with the order (one statement, one snapshot),
            // and the order's jsonb payloads only if they may be selected.
            related.payloads = !ResolveInput.certainlyOmits(OrderStore.Related.payloadFields, in: nodes)
            let principal = try input.gateway.principal
            guard let read = try await services.orderStore.find(id: id.uuid, with: related),
                  principal.maySee(customerID: read.order.customerID) else { return nil }
            return OrderView(read)
        }
        set.async("Query", "orders") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let filter = try orderFilter(input[argument: "filter"]?.objectValue)
            let rows = try await services.orderStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { OrderView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        set.async("Query", "orderStatusCounts") { input in
            let filter = try orderFilter(input[argument: "filter"]?.objectValue)
            return try await services.orderStore.statusCounts(filter: filter).map { StatusCountView(status: $0, count: $1) } as [any Sendable]
        }
        set.async("Query", "payment") { input in
            guard let id = input[argument: "id"]?.stringValue.flatMap({ GlobalID($0, of: .payment) }),
                  let payment = try await services.paymentStore.payments(ids: [id.uuid])[id.uuid],
                  try await visibleOrder(payment.orderID, input: input, services: services) != nil else { return nil }
            return PaymentView(record: payment)
        }
        set.async("Query", "refund") { input in
            guard let id = input[argument: "id"]?.stringValue.flatMap({ GlobalID($0, of: .refund) }),
                  let refund = try await services.paymentStore.refunds(ids: [id.uuid])[id.uuid], let orderID = refund.orderID,
                  try await visibleOrder(orderID, input: input, services: services) != nil else { return nil }
            return RefundView(record: refund)
        }
        set.async("Query", "node") { input in
            guard let text = input[argument: "id"]?.stringValue else { return nil }
            return try await node(text, input: input, services: services)
        }
        set.async("Query", "nodes") { input in
            let ids = input[argument: "ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard ids.count <= 100 else { throw GatewayRequestError.badInput("nodes takes at most 100 ids, got \(ids.count)") }
            var found: [any Sendable] = []
            for id in ids { found.append(try await node(id, input: input, services: services) as any Sendable) }
            return found
        }
        set.sync("Query", "providers") { _ in
            ProviderName.allCases.filter { $0 != .setu || services.providers.isConfigured(.setu) }.map {
                ProviderInfoView(provider: $0, registry: services.providers)
            } as [any Sendable]
        }
        set.resolveType("Node", TypeResolver { value, _ in (value as? any GraphQLTypeNamed)?.graphQLTypeName })
        set.resolveType("Checkout", TypeResolver { value, _ in (value as? any GraphQLTypeNamed)?.graphQLTypeName })
    }

    /// The order if it exists and the caller may see it (others' orders are null, not an error).
    static func visibleOrder(_ id: UUID, input: ResolveInput, services: GatewayServices) async throws -> OrderRecord? {
        let principal = try input.gateway.principal
        guard let order = try await services.orderStore.find(id: id), principal.maySee(customerID: order.customerID) else { return nil }
        return order
    }

    private static func node(_ text: String, input: ResolveInput, services: GatewayServices) async throws -> (any Sendable)? {
        guard let id = GlobalID(text) else { return nil }
        let principal = try input.gateway.principal
        switch id.type {
        case .customer:
            guard principal.maySee(customerID: id.uuid), let record = try await services.customerStore.find(id: id.uuid) else { return nil }
            return CustomerView(record: record)
        case .order:
            return try await visibleOrder(id.uuid, input: input, services: services).map(OrderView.init)
        case .payment:
            guard let payment = try await services.paymentStore.payments(ids: [id.uuid])[id.uuid],
                  try await visibleOrder(payment.orderID, input: input, services: services) != nil else { return nil }
            return PaymentView(record: payment)
        case .refund:
            guard let refund = try await services.paymentStore.refunds(ids: [id.uuid])[id.uuid], let orderID = refund.orderID,
                  try await visibleOrder(orderID, input: input, services: services) != nil else { return nil }
            return RefundView(record: refund)
        case .webhookEvent:
            return try await WebhookEventResolvers.node(id.uuid, principal: principal, services: services)
        case .bankAccount:
            return try await BankAccountResolvers.node(id.uuid, principal: principal, services: services)
        case .linkedUpiAccount:
            return try await TurboUpiResolvers.node(id.uuid, principal: principal, services: services)
        case .rewardOffer, .reward:
            return try await RewardResolvers.node(id, principal: principal, services: services)
        case .billPayLink, .billPayment:
            return try await BillPayResolvers.node(id, principal: principal, services: services)
        case .routingRule:
            return try await RoutingResolvers.node(id.uuid, principal: principal, services: services)
        case .merchantWebhookDelivery:
            return try await MerchantWebhookResolvers.node(id.uuid, principal: principal, services: services)
        case .upiCollect:
            return try await InstamojoResolvers.node(id.uuid, principal: principal, services: services)
        case .clientSession, .apiKey:
            return nil
        }
    }

    /// `OrderFilter` to the store's filter.
    static func orderFilter(_ object: JSONObject?) throws -> OrderFilter {
        guard let object else { return OrderFilter() }
        let reader = InputReader(object, path: ["filter"])
        var filter = OrderFilter()
        filter.statuses = reader.strings("status") ?? []
        filter.providers = (reader.strings("provider") ?? []).map { $0.lowercased() }
        filter.flows = reader.strings("flow") ?? []
        filter.methods = reader.strings("method") ?? []
        if let customer = reader.string("customerId") {
            // An id of another type matches nothing (not an error for a filter).
            filter.customerID = GlobalID(customer, of: .customer)?.uuid ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        }
        filter.receipt = reader.string("receipt")
        filter.providerOrderID = reader.string("providerOrderId")
        filter.needsReconciliation = reader.bool("needsReconciliation")
        do {
            filter.minAmountMinor = try reader.money("minAmount")?.minorUnits
            filter.maxAmountMinor = try reader.money("maxAmount")?.minorUnits
        } catch {
            throw GatewayRequestError.badInput(error.message)
        }
        filter.createdAfter = reader.string("createdAfter")
        filter.createdBefore = reader.string("createdBefore")
        return filter
    }
}

/// `Viewer`.
struct ViewerView: GraphQLFieldReadable {
    var principal: Principal
    var environment: String

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "apiKeyId": GlobalID(.apiKey, principal.apiKeyID).description
        case "scopes": principal.scopes.sorted().map(\.rawValue)
        case "environment": environment
        default: nil
        }
    }
}

/// `OrderStatusCount`.
struct StatusCountView: GraphQLFieldReadable {
    var status: String
    var count: Int64
    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "status": status
        // GraphQL Int is 32-bit: a count beyond it is clamped (a dashboard figure, not money).
        case "count": Int(min(count, Int64(Int32.max)))
        default: nil
        }
    }
}

/// `ProviderInfo`.
struct ProviderInfoView: GraphQLFieldReadable {
    var provider: ProviderName
    var registry: ProviderRegistry

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": return provider.graphQLName
        case "enabled": return registry.isConfigured(provider)
        case "environment": return registry.environment(provider).rawValue
        case "capabilities": return registry.capabilityNames(provider)
        case "minAmount":
            return registry.orderAmountRules(provider).map { MoneyView(minorUnits: $0.minimum, currency: .inr) }
        case "maxAmount":
            return registry.orderAmountRules(provider).map { MoneyView(minorUnits: $0.maximum, currency: .inr) }
        case "health": return ProviderHealthView(snapshot: registry.health.snapshot(provider))
        default: return nil
        }
    }
}

/// `ProviderHealth`: from this instance's recent calls (see ``ProviderHealth``).
struct ProviderHealthView: GraphQLFieldReadable {
    var snapshot: ProviderHealth.Snapshot

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "status": snapshot.status
        case "successRate": snapshot.successRate
        case "p99LatencyMs": snapshot.p99Milliseconds
        case "lastError": snapshot.lastError
        case "circuitOpen": snapshot.circuitOpen
        case "checkedAt": PostgresTimestamp(Date()).rfc3339
        default: nil
        }
    }
}
