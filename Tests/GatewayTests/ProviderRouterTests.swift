import Foundation
@testable import Gateway
import PaymentsCore
import Postgres
import Testing

/// The routing decision as a pure function (``ProviderRouter``): capabilities, rules, health and the
/// stored form, without I/O.
@Suite struct ProviderRouterTests {
    static let now = PostgresTimestamp(microsecondsSinceEpoch: 1_764_000_000_000_000)

    /// Every order provider configured with its default window, health as given.
    static func states(health: [ProviderName: String] = [:], unconfigured: Set<ProviderName> = []) -> [ProviderName: RoutingProviderState] {
        let windows: [ProviderName: (Int64, Int64)] = [.razorpay: (100, 9_007_199_254_740_991), .cashfree: (100, 999_999_999_999_999),
                                                       .instamojo: (900, 20_000_000)]
        var states: [ProviderName: RoutingProviderState] = [:]
        for provider in ProviderName.allCases {
            let window = windows[provider]
            states[provider] = RoutingProviderState(provider: provider, configured: !unconfigured.contains(provider) && window != nil,
                                                    health: health[provider] ?? "UNKNOWN", minimumMinor: window?.0, maximumMinor: window?.1,
                                                    currencies: window == nil ? [] : ["INR"])
        }
        return states
    }

    static let fullCustomer = RoutingRequest.Customer(hasName: true, hasEmail: true, phone: "+919876543210")

    static func request(_ amount: Int64 = 50_000, flow: String = "STANDARD", method: String? = nil,
                        customer: RoutingRequest.Customer? = fullCustomer, returnURL: Bool = true,
                        provider: ProviderName? = nil) -> RoutingRequest {
        RoutingRequest(amountMinor: amount, currency: "INR", flow: flow, method: method, customer: customer, hasReturnURL: returnURL,
                       provider: provider)
    }

    static func rule(_ name: String, priority: Int, flows: [String] = [], methods: [String] = [], min: Int64? = nil, max: Int64? = nil,
                     enabled: Bool = true, _ providers: [ProviderName]) -> RoutingRuleSpec {
        RoutingRuleSpec(id: UUID(), name: name, priority: priority, enabled: enabled, flows: flows, methods: methods, currency: "INR",
                        minAmountMinor: min, maxAmountMinor: max, providers: providers)
    }

    @Test func capabilitiesDecideWithoutRules() {
        let cases: [(String, ProviderName, [ProviderName])] = [
            ("TPV", .razorpay, [.cashfree]), ("TURBO_UPI", .razorpay, []), ("CARD_COMPONENT", .cashfree, []),
            ("CUSTOM_UI", .instamojo, []), ("STANDARD", .razorpay, [.cashfree, .instamojo]),
        ]
        for (flow, first, failover) in cases {
            let decision = ProviderRouter.decide(Self.request(flow: flow), providers: Self.states(), rules: [], now: Self.now)
            #expect(decision.provider == first, "\(flow): \(decision.reason)")
            #expect(decision.failoverOrder == failover, "\(flow)")
            #expect(decision.ruleID == nil)
        }
        let card = ProviderRouter.decide(Self.request(flow: "CARD_COMPONENT"), providers: Self.states(), rules: [], now: Self.now)
        #expect(card.candidates.first { $0.provider == .razorpay }?.rejections == [.capabilityMissing])
    }

    @Test func rulesApplyInPriorityOrderAndExcludeTheRest() {
        let big = Self.rule("big", priority: 20, min: 1_000_000, [.cashfree])
        let upi = Self.rule("upi", priority: 10, methods: ["UPI"], [.instamojo, .razorpay])
        let rules = [big, upi]
        // A large UPI order matches both; the lower priority wins.
        let both = ProviderRouter.decide(Self.request(2_000_000, method: "UPI"), providers: Self.states(), rules: rules, now: Self.now)
        #expect(both.provider == .instamojo)
        #expect(both.ruleID == upi.id)
        #expect(both.failoverOrder == [.razorpay])
        #expect(both.candidates.first { $0.provider == .cashfree }?.rejections == [.excludedByRule])
        // A large card order matches only "big"; a small one none (defaults).
        #expect(ProviderRouter.decide(Self.request(2_000_000, method: "CARD"), providers: Self.states(), rules: rules, now: Self.now).ruleID == big.id)
        let small = ProviderRouter.decide(Self.request(500, method: "CARD"), providers: Self.states(), rules: rules, now: Self.now)
        #expect(small.ruleID == nil)
        #expect(small.provider == .razorpay)
        // Instamojo cannot take ₹5 (minimum ₹9): not in the failover order.
        #expect(small.failoverOrder == [.cashfree])
        #expect(small.candidates.first { $0.provider == .instamojo }?.rejections == [.amountBelowMinimum])
        // A disabled rule is ignored.
        var off = upi
        off.enabled = false
        #expect(ProviderRouter.decide(Self.request(method: "UPI"), providers: Self.states(), rules: [off], now: Self.now).ruleID == nil)
    }

    @Test func aRuleWhoseProvidersCannotServeFallsThrough() {
        // Cashfree needs a customer phone; without a customer the rule cannot serve and the defaults decide.
        let rules = [Self.rule("cf", priority: 1, [.cashfree])]
        let decision = ProviderRouter.decide(Self.request(customer: nil), providers: Self.states(), rules: rules, now: Self.now)
        #expect(decision.provider == .razorpay)
        #expect(decision.ruleID == nil)
        #expect(decision.reason.contains("rule \"cf\" matched but none of its providers can serve"))
        #expect(decision.candidates.first { $0.provider == .cashfree }?.rejections == [.customerDataMissing])
    }

    @Test func unconfiguredAndDownProvidersAreSkipped() {
        let decision = ProviderRouter.decide(Self.request(), providers: Self.states(health: [.razorpay: "DOWN"], unconfigured: [.instamojo]),
                                     rules: [], now: Self.now)
        #expect(decision.provider == .cashfree)
        // DOWN is tried last, after every healthy provider.
        #expect(decision.failoverOrder == [.razorpay])
        #expect(decision.candidates.first { $0.provider == .razorpay }?.rejections == [.unhealthy])
        #expect(decision.candidates.first { $0.provider == .instamojo }?.rejections == [.disabled])
        // When every able provider is DOWN, it is still tried (an outage is not made permanent).
        let allDown = ProviderRouter.decide(Self.request(flow: "CARD_COMPONENT"), providers: Self.states(health: [.cashfree: "DOWN"]), rules: [], now: Self.now)
        #expect(allDown.provider == .cashfree)
        #expect(allDown.reason.contains("DOWN"))
    }

    @Test func noRouteExplainsEveryProvider() {
        let decision = ProviderRouter.decide(Self.request(flow: "CUSTOM_UI", customer: nil), providers: Self.states(), rules: [], now: Self.now)
        #expect(decision.provider == nil)
        #expect(decision.failoverOrder == [])
        #expect(decision.candidates.allSatisfy { !$0.eligible })
        #expect(decision.reason.contains("INSTAMOJO: needs a customer"), "\(decision.reason)")
        let method = ProviderRouter.decide(Self.request(flow: "CARD_COMPONENT", method: "OTHER"), providers: Self.states(), rules: [], now: Self.now)
        #expect(method.provider == nil)
        #expect(method.candidates.first { $0.provider == .cashfree }?.rejections == [.methodNotSupported])
    }

    @Test func anExplicitProviderIsUsedWithoutFailover() {
        let rules = [Self.rule("cf", priority: 1, [.cashfree])]
        let decision = ProviderRouter.decide(Self.request(provider: .instamojo), providers: Self.states(), rules: rules, now: Self.now)
        #expect(decision.provider == .instamojo)
        #expect(decision.failoverOrder == [])
        #expect(decision.candidates.map(\.provider) == [.instamojo])
        let missing = ProviderRouter.decide(Self.request(provider: .instamojo), providers: Self.states(unconfigured: [.instamojo]), rules: [], now: Self.now)
        #expect(missing.provider == nil)
    }

    @Test func ruleConditionsMatch() {
        let rule = Self.rule("r", priority: 1, flows: ["TPV"], methods: ["UPI", "CARD"], min: 100, max: 1_000, [.razorpay])
        #expect(rule.matches(Self.request(100, flow: "TPV", method: "UPI")))
        #expect(rule.matches(Self.request(1_000, flow: "TPV", method: "CARD")))
        #expect(!rule.matches(Self.request(1_001, flow: "TPV", method: "UPI")))
        #expect(!rule.matches(Self.request(99, flow: "TPV", method: "UPI")))
        #expect(!rule.matches(Self.request(500, flow: "STANDARD", method: "UPI")))
        #expect(!rule.matches(Self.request(500, flow: "TPV", method: nil)))
        #expect(!rule.matches(Self.request(500, flow: "TPV", method: "NETBANKING")))
    }

    @Test func theStoredFormRoundTrips() throws {
        var decision = ProviderRouter.decide(Self.request(), providers: Self.states(health: [.cashfree: "DOWN"]),
                                     rules: [Self.rule("x", priority: 3, [.razorpay, .cashfree, .instamojo])], now: Self.now)
        decision.failovers.append(.init(from: .razorpay, to: .instamojo, errorCode: "PROVIDER_UNAVAILABLE", message: "m", at: Self.now))
        let read = try #require(RoutingDecision(jsonb: decision.jsonb))
        #expect(read == decision)
        #expect(RoutingDecision(jsonb: PostgresJSONB(text: #"{"reason":1}"#)) == nil)
    }
}
