import Foundation
import PaymentsCore
import Postgres
import Providers

/// Routing with its inputs gathered: the rules from the database, each provider's configuration and
/// health, the customer's data; the decision itself is ``ProviderRouter/decide(_:providers:rules:now:)``.
///
/// The entry point for every flow that creates an order without a named provider
/// (`createOrder`, `routingExplain`, a bill payment's order): ``decide(_:)``.
struct RoutingService: Sendable {
    let store: RoutingStore
    let customers: CustomerStore
    let providers: ProviderRegistry

    /// What a flow asks routing.
    struct Request: Sendable {
        var amountMinor: Int64
        var currency: String = "INR"
        /// The contract's `CheckoutFlow` name.
        var flow: String = "STANDARD"
        /// The contract's `PaymentMethod` name.
        var method: String?
        var customerID: UUID?
        var hasReturnURL: Bool = false
        /// A provider the caller names (then routing only reports on it and there is no failover).
        var provider: ProviderName?
        /// The decision will be acted on (a `createOrder`, not `routingExplain`): a DOWN provider
        /// whose circuit is half-open may be given this request as its one trial (``ProviderHealth``).
        var claimsTrial = false
    }

    /// The decision for `request`; throws NOT_FOUND (field `customerId`) for an unknown customer.
    func decide(_ request: Request) async throws -> RoutingDecision {
        var customer: CustomerRecord?
        if let id = request.customerID {
            customer = try await customers.find(id: id)
            guard customer != nil else { throw UserError(.notFound, "no such customer", field: ["input", "customerId"]) }
        }
        return try await decide(request, customer: customer)
    }

    /// The decision for `request` with its customer already read.
    func decide(_ request: Request, customer: CustomerRecord?) async throws -> RoutingDecision {
        // A named provider is not routed: the rules are not read for it.
        let rules = request.provider == nil ? try await store.all().map(\.spec) : []
        let states = providerStates(claimingTrial: request.claimsTrial && request.provider == nil)
        return ProviderRouter.decide(routingRequest(request, customer: customer), providers: states, rules: rules,
                             now: PostgresTimestamp(Date()))
    }

    func routingRequest(_ request: Request, customer: CustomerRecord?) -> RoutingRequest {
        RoutingRequest(amountMinor: request.amountMinor, currency: request.currency, flow: request.flow, method: request.method,
                       customer: customer.map { RoutingRequest.Customer(hasName: $0.name != nil, hasEmail: $0.email != nil, phone: $0.phone) },
                       hasReturnURL: request.hasReturnURL, provider: request.provider)
    }

    /// Each provider as routing sees it now; with `claimingTrial`, a half-open circuit's trial is taken
    /// for this decision (``ProviderHealth/routingHealth(_:claimingTrial:)``).
    func providerStates(claimingTrial: Bool = false) -> [ProviderName: RoutingProviderState] {
        var states: [ProviderName: RoutingProviderState] = [:]
        for provider in ProviderName.allCases {
            let rules = providers.orderAmountRules(provider)
            states[provider] = RoutingProviderState(
                provider: provider, configured: providers.isConfigured(provider),
                health: providers.health.routingHealth(provider, claimingTrial: claimingTrial),
                minimumMinor: rules?.minimum, maximumMinor: rules?.maximum, currencies: rules?.currencies ?? [])
        }
        return states
    }

    // MARK: Rules

    /// `upsertRoutingRule`'s input, decoded.
    struct UpsertRequest: Sendable {
        var id: UUID?
        var name: String
        var priority: Int64
        var enabled: Bool
        var flows: [String]
        var methods: [String]
        var minAmount: (minorUnits: Int64, currency: String)?
        var maxAmount: (minorUnits: Int64, currency: String)?
        var providers: [String]
    }

    /// Highest priority a rule may have (keeps priorities readable and inside PostgreSQL's integer).
    static let maxPriority: Int64 = 1_000_000

    /// Validates and stores a rule: nothing is written when a check fails (the thrown `UserError` says which).
    func upsert(_ request: UpsertRequest) async throws -> RoutingRuleRecord {
        let spec = try validate(request)
        if let holder = try await store.find(priority: spec.priority), holder.id != request.id {
            throw UserError(.alreadyExists, "rule \"\(holder.spec.name)\" already has priority \(spec.priority)", field: ["input", "priority"])
        }
        do {
            guard let stored = try await store.upsert(spec, existing: request.id) else {
                throw UserError(.notFound, "no routing rule with this id", field: ["input", "id"])
            }
            return stored
        } catch let error as PostgresError where error.code == .uniqueViolation {
            // Another rule took the priority between the check and the write.
            throw UserError(.alreadyExists, "another rule already has priority \(spec.priority)", field: ["input", "priority"])
        }
    }

    /// The checks of ``upsert(_:)``, without I/O.
    func validate(_ request: UpsertRequest) throws(UserError) -> RoutingRuleSpec {
        let name = request.name.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(name.count) else { throw UserError(.validationFailed, "name must be 1 to 200 characters", field: ["input", "name"]) }
        guard (0...Self.maxPriority).contains(request.priority) else {
            throw UserError(.validationFailed, "priority must be between 0 and \(Self.maxPriority)", field: ["input", "priority"])
        }
        let currency = request.minAmount?.currency ?? request.maxAmount?.currency ?? "INR"
        for (field, money) in [("minAmount", request.minAmount), ("maxAmount", request.maxAmount)] {
            guard let money else { continue }
            guard money.currency == "INR" else {
                throw UserError(.unsupportedCurrency, "only INR amounts can be routed", field: ["input", "conditions", field, "currency"])
            }
            guard money.minorUnits >= 0 else {
                throw UserError(.invalidAmount, "\(field) must not be negative", field: ["input", "conditions", field, "amount"])
            }
        }
        if let low = request.minAmount?.minorUnits, let high = request.maxAmount?.minorUnits, low > high {
            throw UserError(.amountOutOfRange, "minAmount is above maxAmount", field: ["input", "conditions", "maxAmount"])
        }
        guard !request.providers.isEmpty else { throw UserError(.required, "a rule needs at least one provider", field: ["input", "providers"]) }
        var providers: [ProviderName] = []
        for (index, text) in request.providers.enumerated() {
            let field = ["input", "providers", String(index)]
            guard let provider = ProviderName(graphQLName: text), provider != .setu else {
                throw UserError(.capabilityNotSupported, "\(text) takes no orders (RAZORPAY, CASHFREE or INSTAMOJO)", field: field)
            }
            guard self.providers.isConfigured(provider) else {
                throw UserError(.notFound, "\(provider.graphQLName) is not configured in this PayQL", field: field, provider: provider)
            }
            guard !providers.contains(provider) else { throw UserError(.validationFailed, "\(text) is listed twice", field: field) }
            if !request.flows.isEmpty, !request.flows.contains(where: { ProviderRouter.capable(flow: $0).contains(provider) }) {
                throw UserError(.capabilityNotSupported, "\(provider.graphQLName) serves none of the rule's flows",
                                field: field, provider: provider)
            }
            providers.append(provider)
        }
        return RoutingRuleSpec(id: request.id ?? UUID(uuid: UUID.zero), name: name, priority: Int(request.priority), enabled: request.enabled,
                               flows: Array(Set(request.flows)).sorted(), methods: Array(Set(request.methods)).sorted(), currency: currency,
                               minAmountMinor: request.minAmount?.minorUnits, maxAmountMinor: request.maxAmount?.minorUnits, providers: providers)
    }

    /// Deletes a rule; NOT_FOUND when there is none with this id.
    func delete(id: UUID) async throws {
        guard try await store.delete(id: id) else { throw UserError(.notFound, "no routing rule with this id", field: ["input", "routingRuleId"]) }
    }
}
