import Foundation
import PaymentsCore
import Postgres

/// Why routing skipped a provider (the contract's `RoutingRejectionReason`).
enum RoutingRejection: String, Sendable, Hashable, CaseIterable {
    case disabled = "DISABLED"
    case capabilityMissing = "CAPABILITY_MISSING"
    case methodNotSupported = "METHOD_NOT_SUPPORTED"
    case amountBelowMinimum = "AMOUNT_BELOW_MINIMUM"
    case amountAboveMaximum = "AMOUNT_ABOVE_MAXIMUM"
    case currencyNotSupported = "CURRENCY_NOT_SUPPORTED"
    case customerDataMissing = "CUSTOMER_DATA_MISSING"
    case unhealthy = "UNHEALTHY"
    case excludedByRule = "EXCLUDED_BY_RULE"
}

/// What routing is asked: the facts of one order-to-be (no ids, no I/O).
struct RoutingRequest: Sendable, Hashable {
    /// What routing needs to know of the paying customer.
    struct Customer: Sendable, Hashable {
        var hasName: Bool
        var hasEmail: Bool
        /// E.164 (`+919876543210`), as stored.
        var phone: String?
    }

    var amountMinor: Int64
    var currency: String
    /// The contract's `CheckoutFlow` name (`STANDARD`, `TPV`, …).
    var flow: String
    /// The contract's `PaymentMethod` name, when the order is restricted to one.
    var method: String?
    /// The customer, when the order names one.
    var customer: Customer?
    /// Whether the order carries a browser return URL (Instamojo needs one).
    var hasReturnURL: Bool
    /// The provider the caller asked for; routing then only reports on it.
    var provider: ProviderName?
}

/// What routing knows of one provider at decision time.
struct RoutingProviderState: Sendable, Hashable {
    var provider: ProviderName
    /// Whether this PayQL has credentials for it.
    var configured: Bool
    /// `ProviderHealthStatus`: UP, DEGRADED, DOWN or UNKNOWN.
    var health: String
    /// Order amount window in minor units (inclusive) and currencies; nil when not configured.
    var minimumMinor: Int64?
    var maximumMinor: Int64?
    var currencies: Set<String>
}

/// The conditions and preference order of a routing rule (the part of a stored rule that routing reads).
struct RoutingRuleSpec: Sendable, Hashable {
    var id: UUID
    var name: String
    /// Lower runs first; unique.
    var priority: Int
    var enabled: Bool
    /// `CheckoutFlow` names; empty matches any.
    var flows: [String]
    /// `PaymentMethod` names; empty matches any (a non-empty list needs the order to name a method).
    var methods: [String]
    /// The currency of the amount window.
    var currency: String
    var minAmountMinor: Int64?
    var maxAmountMinor: Int64?
    /// Preference order.
    var providers: [ProviderName]

    /// Whether the rule's conditions hold for `request` (enabled or not).
    func matches(_ request: RoutingRequest) -> Bool {
        if !flows.isEmpty, !flows.contains(request.flow) { return false }
        if !methods.isEmpty { guard let method = request.method, methods.contains(method) else { return false } }
        if minAmountMinor != nil || maxAmountMinor != nil {
            guard request.currency == currency else { return false }
            if let minAmountMinor, request.amountMinor < minAmountMinor { return false }
            if let maxAmountMinor, request.amountMinor > maxAmountMinor { return false }
        }
        return true
    }
}

/// Which provider an order goes to, and why: the answer of ``ProviderRouter/decide(_:providers:rules:now:)``,
/// stored with the order (`Order.routing`) and returned by `routingExplain`.
struct RoutingDecision: Sendable, Equatable {
    /// One provider considered.
    struct Candidate: Sendable, Equatable {
        var provider: ProviderName
        var eligible: Bool
        var rejections: [RoutingRejection]
        /// What is missing or out of range, in words.
        var detail: String?
        /// `ProviderHealthStatus` at decision time.
        var health: String
    }

    /// A failover that happened while creating the order.
    struct Failover: Sendable, Equatable {
        var from: ProviderName
        var to: ProviderName
        /// The contract's `UserErrorCode` that proved nothing was created.
        var errorCode: String
        var message: String?
        var at: PostgresTimestamp
    }

    /// The provider to try first; nil when none can serve (NO_ROUTE).
    var provider: ProviderName?
    /// The rule that decided; nil when the defaults (or the caller) did.
    var ruleID: UUID?
    /// Human-readable explanation.
    var reason: String
    var candidates: [Candidate]
    /// Where to go next, in order, when the previous provider certainly created nothing.
    var failoverOrder: [ProviderName]
    /// Failovers that happened (set by `createOrder`, empty from an explanation).
    var failovers: [Failover] = []
    var evaluatedAt: PostgresTimestamp

    /// Every provider `createOrder` may try, in order.
    var attemptOrder: [ProviderName] { (provider.map { [$0] } ?? []) + failoverOrder }
}

/// Routing as a pure function (API README, "Routing"; inventory F28): capabilities first
/// (TPV and Turbo UPI → Razorpay, the card component → Cashfree, custom UI → Instamojo),
/// then the rules in priority order, skipping providers that are not configured, cannot take
/// the amount, method or customer, or are DOWN. Used alike by `createOrder` and `routingExplain`,
/// so an explanation is the decision an order would get.
enum ProviderRouter {
    /// The providers that take orders, in the default preference order.
    static let orderProviders: [ProviderName] = [.razorpay, .cashfree, .instamojo]

    /// The providers able to serve `flow`, in default preference order.
    static func capable(flow: String) -> [ProviderName] {
        switch flow {
        // Razorpay whitelists TPV accounts; Cashfree takes the account per order (decision 9: a second TPV route).
        case "TPV": [.razorpay, .cashfree]
        case "TURBO_UPI": [.razorpay]
        case "CARD_COMPONENT": [.cashfree]
        // Payment options, redirect payments and UPI collect exist on Instamojo only; its hosted page is the order's payment URL.
        case "CUSTOM_UI", "UPI_COLLECT", "HOSTED_PAGE": [.instamojo]
        default: orderProviders
        }
    }

    /// The `PaymentMethod`s an order at `provider` may be restricted to (docs/providers/*.md: Razorpay and
    /// Instamojo payment entities' `method` / `instrument_type`; Cashfree §3 `order_meta.payment_methods`).
    static func methods(_ provider: ProviderName) -> Set<String> {
        switch provider {
        case .razorpay, .instamojo: ["UPI", "CARD", "NETBANKING", "WALLET", "EMI"]
        case .cashfree: ["UPI", "CARD", "NETBANKING", "WALLET", "EMI", "PAY_LATER", "BANK_TRANSFER"]
        case .setu: []
        }
    }

    /// The routing decision for `request`. `rules` in any order (sorted here by priority).
    static func decide(_ request: RoutingRequest, providers: [ProviderName: RoutingProviderState], rules: [RoutingRuleSpec],
                       now: PostgresTimestamp) -> RoutingDecision {
        let fit = Dictionary(uniqueKeysWithValues: orderProviders.map { ($0, evaluate($0, request, providers[$0])) })
        if let asked = request.provider {
            return explicit(asked, request, fit: fit, providers: providers, now: now)
        }
        let usable = { (provider: ProviderName) in fit[provider]?.rejections.isEmpty == true }
        var notes: [String] = []
        var chosenRule: RoutingRuleSpec?
        for rule in rules.sorted(by: { $0.priority < $1.priority }) where rule.enabled && rule.matches(request) {
            if rule.providers.contains(where: usable) {
                chosenRule = rule
                break
            }
            notes.append("rule \"\(rule.name)\" matched but none of its providers can serve")
        }
        let preference = chosenRule?.providers ?? capable(flow: request.flow)
        var candidates: [RoutingDecision.Candidate] = []
        for provider in preference + orderProviders.filter({ !preference.contains($0) }) {
            guard let found = fit[provider] else { continue }
            var rejections = found.rejections
            if chosenRule != nil, !preference.contains(provider) { rejections.append(.excludedByRule) }
            candidates.append(.init(provider: provider, eligible: rejections.isEmpty, rejections: rejections, detail: found.detail,
                                    health: found.health))
        }
        // Healthy ones first; a DOWN provider is still tried last, so an outage of every route is not made permanent.
        let healthy = preference.filter(usable)
        let downButAble = preference.filter { fit[$0]?.rejections == [.unhealthy] }
        let order = healthy + downButAble
        guard let first = order.first else {
            let why = candidates.map { $0.detail ?? "\($0.provider.graphQLName): \($0.rejections.map(\.rawValue).joined(separator: ", "))" }
            return RoutingDecision(provider: nil, ruleID: nil, reason: (notes + ["no provider can serve the \(request.flow) flow: " + why.joined(separator: "; ")])
                                    .joined(separator: "; "), candidates: candidates, failoverOrder: [], evaluatedAt: now)
        }
        var reason = chosenRule.map { "rule \"\($0.name)\" (priority \($0.priority)) chose \(first.graphQLName)" }
            ?? "no rule applies; the \(request.flow) flow's default order chose \(first.graphQLName)"
        if healthy.isEmpty { reason += " although it is DOWN (every eligible provider is)" }
        if order.count > 1 { reason += "; failover: " + order.dropFirst().map(\.graphQLName).joined(separator: ", ") }
        return RoutingDecision(provider: first, ruleID: chosenRule?.id, reason: (notes + [reason]).joined(separator: "; "),
                               candidates: candidates, failoverOrder: Array(order.dropFirst()), evaluatedAt: now)
    }

    /// The caller named a provider: it is used whenever it is configured (its other shortcomings are
    /// reported by `createOrder` as user errors), and there is no failover.
    private static func explicit(_ asked: ProviderName, _ request: RoutingRequest, fit: [ProviderName: Fit],
                                 providers: [ProviderName: RoutingProviderState], now: PostgresTimestamp) -> RoutingDecision {
        let found = fit[asked] ?? evaluate(asked, request, providers[asked])
        let candidate = RoutingDecision.Candidate(provider: asked, eligible: found.rejections.isEmpty, rejections: found.rejections,
                                                  detail: found.detail, health: found.health)
        guard asked != .setu, providers[asked]?.configured == true else {
            let why = asked == .setu ? "SETU collects no money itself" : "\(asked.graphQLName) is not configured"
            return RoutingDecision(provider: nil, ruleID: nil, reason: why, candidates: [candidate], failoverOrder: [], evaluatedAt: now)
        }
        return RoutingDecision(provider: asked, ruleID: nil, reason: "the caller asked for \(asked.graphQLName); no failover",
                               candidates: [candidate], failoverOrder: [], evaluatedAt: now)
    }

    /// How one provider fits a request, before any rule.
    struct Fit: Sendable, Equatable {
        var rejections: [RoutingRejection]
        var detail: String?
        var health: String
    }

    /// Every reason `provider` cannot take `request` (empty: it can).
    static func evaluate(_ provider: ProviderName, _ request: RoutingRequest, _ state: RoutingProviderState?) -> Fit {
        let name = provider.graphQLName
        let health = state?.health ?? "UNKNOWN"
        var rejections: [RoutingRejection] = []
        var details: [String] = []
        guard let state, state.configured, provider != .setu else {
            return Fit(rejections: [.disabled], detail: provider == .setu ? "SETU collects no money itself" : "\(name) is not configured",
                       health: health)
        }
        if !capable(flow: request.flow).contains(provider) {
            rejections.append(.capabilityMissing)
            details.append("no \(request.flow) flow")
        }
        if let method = request.method, !methods(provider).contains(method) {
            rejections.append(.methodNotSupported)
            details.append("no \(method) orders")
        }
        if !state.currencies.contains(request.currency) {
            rejections.append(.currencyNotSupported)
            details.append("no \(request.currency)")
        } else if let minimum = state.minimumMinor, request.amountMinor < minimum {
            rejections.append(.amountBelowMinimum)
            details.append("amount below \(DecimalText.format(minorUnits: minimum, exponent: 2)) \(request.currency)")
        } else if let maximum = state.maximumMinor, request.amountMinor > maximum {
            rejections.append(.amountAboveMaximum)
            details.append("amount above \(DecimalText.format(minorUnits: maximum, exponent: 2)) \(request.currency)")
        }
        if let missing = missingCustomerData(provider, request) {
            rejections.append(.customerDataMissing)
            details.append(missing)
        }
        if health == "DOWN" {
            rejections.append(.unhealthy)
            details.append("DOWN: its recent calls all failed")
        }
        return Fit(rejections: rejections, detail: details.isEmpty ? nil : "\(name): " + details.joined(separator: "; "), health: health)
    }

    /// What `provider` needs of the customer (and order) that `request` lacks, in words.
    static func missingCustomerData(_ provider: ProviderName, _ request: RoutingRequest) -> String? {
        let customer = request.customer
        switch provider {
        case .cashfree:
            // customer_details needs a customer id and a 10-digit phone (docs/providers/cashfree.md §3, Create order).
            guard let phone = customer?.phone, OrderService.nationalPhone(phone)?.count == 10 else {
                return "needs a customer with a 10-digit phone"
            }
        case .instamojo:
            // Gateway orders carry the buyer's name, email and phone, and a redirect URL (decision 6).
            guard let customer, customer.hasName, customer.hasEmail, customer.phone != nil, request.hasReturnURL else {
                return "needs a customer with name, email and phone, and a returnUrl"
            }
        case .razorpay:
            if request.flow == "TURBO_UPI", !(customer?.hasEmail == true && customer?.phone != nil) {
                return "Turbo UPI needs a customer with email and phone"
            }
        case .setu:
            break
        }
        if request.flow == "TPV", customer == nil { return "a TPV order needs its customer" }
        return nil
    }
}
