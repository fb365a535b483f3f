import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Routing in the schema (F28): `upsertRoutingRule`, `deleteRoutingRule` (OPS), `routingRules`,
/// `routingExplain`, `Order.routing` (SECRET/OPS, by the SDL's directives), `RoutingDecision.rule`
/// and `node(id:)` for RoutingRule ids.
enum RoutingResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        let routing = services.orders.routing

        MutationResolvers.mutation(&set, "upsertRoutingRule", services) { input, _ in
            let conditions = input.nested("conditions") ?? InputReader(JSONObject(), path: input.path + ["conditions"])
            let rule = try await routing.upsert(RoutingService.UpsertRequest(
                id: try input.id("id", of: .routingRule), name: try input.requiredString("name"), priority: input.int("priority") ?? 0,
                enabled: input.bool("enabled") ?? true, flows: conditions.strings("flows") ?? [], methods: conditions.strings("methods") ?? [],
                minAmount: try conditions.money("minAmount"), maxAmount: try conditions.money("maxAmount"),
                providers: input.strings("providers") ?? []))
            return MutationResolvers.MutationResult(members: ["routingRule": RoutingRuleView(record: rule)], ids: ["rule": rule.id])
        } replay: { ids in
            ["routingRule": try await ids.uuid("rule").asyncMap { try await routing.store.find(ids: [$0])[$0] }?.map(RoutingRuleView.init)]
        }

        MutationResolvers.mutation(&set, "deleteRoutingRule", services) { input, _ in
            let id = try input.requiredID("routingRuleId", of: .routingRule)
            try await routing.delete(id: id)
            return MutationResolvers.MutationResult(members: ["deletedRoutingRuleId": GlobalID(.routingRule, id).description], ids: ["rule": id])
        } replay: { ids in
            ["deletedRoutingRuleId": ids.uuid("rule").map { GlobalID(.routingRule, $0).description }]
        }

        set.async("Query", "routingRules") { _ in
            try await routing.store.all().map(RoutingRuleView.init) as [any Sendable]
        }

        set.async("Query", "routingExplain") { input in
            let reader = InputReader(arguments: input.arguments)
            let request: RoutingService.Request
            do throws(UserError) {
                guard let amount = try reader.money("amount") else { throw UserError.required("amount") }
                guard amount.minorUnits > 0 else { throw UserError(.invalidAmount, "amount must be more than 0", field: ["input", "amount", "amount"]) }
                _ = try reader.id("tpvBankAccountId", of: .bankAccount)
                request = RoutingService.Request(amountMinor: amount.minorUnits, currency: amount.currency, flow: reader.string("flow") ?? "STANDARD",
                                                 method: reader.string("method"), customerID: try reader.id("customerId", of: .customer),
                                                 hasReturnURL: reader.string("returnUrl") != nil, provider: reader.provider("provider"))
            } catch {
                throw GatewayRequestError.badInput(error.message)
            }
            do {
                return RoutingDecisionView(decision: try await routing.decide(request))
            } catch let error as UserError {
                throw GatewayRequestError.badInput(error.message)
            }
        }

        set.sync("Order", "routing") { input in
            guard let order = input.source as? OrderView else { return nil }
            let deferred = input.loaders.loader("orderRouting") {
                BatchLoader<UUID, RoutingDecisionView> { ids in
                    let found = try await routing.store.decisions(orderIDs: ids)
                    return ids.map { found[$0].map(RoutingDecisionView.init) }
                }
            }.load(order.record.id)
            return deferred
        }

        set.sync("RoutingDecision", "rule") { input in
            guard let view = input.source as? RoutingDecisionView, let id = view.decision.ruleID else { return nil }
            return input.loaders.loader("routingRules") {
                BatchLoader<UUID, RoutingRuleView> { ids in
                    let found = try await routing.store.find(ids: ids)
                    return ids.map { found[$0].map(RoutingRuleView.init) }
                }
            }.load(id)
        }
    }

    /// `node(id:)` for RoutingRule ids (SECRET/OPS only, as `routingRules`).
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> (any Sendable)? {
        guard principal.holdsAny(of: [.secret, .ops]) else { return nil }
        return try await services.orders.routing.store.find(ids: [id])[id].map(RoutingRuleView.init)
    }
}

/// `RoutingRule`.
struct RoutingRuleView: GraphQLFieldReadable, GraphQLTypeNamed {
    /// The stored rule.
    var record: RoutingRuleRecord
    var graphQLTypeName: String { "RoutingRule" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        let spec = record.spec
        switch name {
        case "id": return GlobalID(.routingRule, spec.id).description
        case "name": return spec.name
        case "priority": return spec.priority
        case "enabled": return spec.enabled
        case "conditions": return RoutingConditionsView(spec: spec)
        case "providers": return spec.providers.map(\.graphQLName)
        case "createdAt": return record.createdAt.rfc3339
        case "updatedAt": return record.updatedAt.rfc3339
        default: return nil
        }
    }
}

/// `RoutingConditions`.
struct RoutingConditionsView: GraphQLFieldReadable {
    var spec: RoutingRuleSpec

    func graphQLField(_ name: String) -> (any Sendable)? {
        let currency = Currency.known(spec.currency) ?? .inr
        switch name {
        case "flows": return spec.flows
        case "methods": return spec.methods
        case "minAmount": return spec.minAmountMinor.map { MoneyView(minorUnits: $0, currency: currency) }
        case "maxAmount": return spec.maxAmountMinor.map { MoneyView(minorUnits: $0, currency: currency) }
        default: return nil
        }
    }
}

/// `RoutingDecision` (its `rule` is resolved by ``RoutingResolvers``).
struct RoutingDecisionView: GraphQLFieldReadable {
    var decision: RoutingDecision

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": decision.provider?.graphQLName
        case "reason": decision.reason
        case "candidates": decision.candidates.map(RoutingCandidateView.init) as [any Sendable]
        case "failoverOrder": decision.failoverOrder.map(\.graphQLName)
        case "failovers": decision.failovers.map(RoutingFailoverView.init) as [any Sendable]
        case "evaluatedAt": decision.evaluatedAt.rfc3339
        default: nil
        }
    }
}

/// `RoutingCandidate`.
struct RoutingCandidateView: GraphQLFieldReadable {
    var candidate: RoutingDecision.Candidate

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": candidate.provider.graphQLName
        case "eligible": candidate.eligible
        case "rejectionReasons": candidate.rejections.map(\.rawValue)
        case "detail": candidate.detail
        case "health": candidate.health
        default: nil
        }
    }
}

/// `RoutingFailover`.
struct RoutingFailoverView: GraphQLFieldReadable {
    var failover: RoutingDecision.Failover

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "from": failover.from.graphQLName
        case "to": failover.to.graphQLName
        case "errorCode": failover.errorCode
        case "message": failover.message
        case "at": failover.at.rfc3339
        default: nil
        }
    }
}
