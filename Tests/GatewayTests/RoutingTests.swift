import Foundation
@testable import Gateway
import HTTPClient
import JSON
import PaymentsCore
import Providers
import Sandbox
import Testing

/// Routing end to end (F28) through real HTTP `/graphql`, PostgreSQL and the sandbox: rules
/// (OPS writes, validation), `routingExplain` against the decision `createOrder` stores,
/// capability routing, and failover — only when the first provider certainly created nothing.
@Suite struct RoutingTests {
    static let ruleFields = "id name priority enabled providers conditions { flows methods minAmount { amount } maxAmount { amount } }"
    static let decisionFields = """
        provider reason failoverOrder rule { id name } candidates { provider eligible rejectionReasons health }
        failovers { from to errorCode message }
        """

    static func upsert(_ h: GatewayHarness, _ input: String, key: String? = nil) async throws -> GatewayHarness.Answer {
        try await h.graphQL("mutation { upsertRoutingRule(input: \(input)) { routingRule { \(ruleFields) } userErrors { code field message } } }",
                            key: .some(key ?? h.opsKey))
    }

    /// `createOrder` without a provider; the whole answer.
    static func routedOrder(_ h: GatewayHarness, amount: String = "50000", flow: String = "STANDARD", customer: String?,
                            receipt: String? = nil, extra: String = "") async throws -> GatewayHarness.Answer {
        try await h.graphQL("""
            mutation($c: ID, $r: String) { createOrder(input: {amount: {amount: "\(amount)"}, flow: \(flow), customerId: $c, receipt: $r \(extra)}) {
              order { id receipt provider providerOrderId status needsReconciliation checkout { __typename }
                      routing { \(decisionFields) } timeline { kind message } }
              userErrors { code message field } } }
            """, variables: ["c": customer.map(JSONValue.string) ?? .null, "r": receipt.map(JSONValue.string) ?? .null])
    }

    /// Whether the Cashfree sandbox holds an order with this `order_id` (PayQL's receipt).
    static func cashfreeHas(_ h: GatewayHarness, receipt: String) async throws -> Bool {
        let response = try await h.client.execute(.init(method: "GET", url: h.sandbox.baseURL + "/_sandbox/cashfree/orders/\(receipt)"))
        return response.status == 200
    }

    @Test func rulesAreWrittenByOpsOnlyAndValidated() async throws {
        try await GatewayHarness.run(providers: { $0.instamojo = nil }) { h in
            let forbidden = try await Self.upsert(h, #"{name: "r", priority: 1, conditions: {}, providers: [RAZORPAY]}"#, key: h.secretKey)
            #expect(forbidden.errorCodes == ["FORBIDDEN"], "\(forbidden.json)")
            #expect(try await h.count("routing_rules") == 0)

            let created = try await Self.upsert(h, #"""
                {name: "big cards", priority: 10, conditions: {flows: [STANDARD], methods: [CARD], minAmount: {amount: "1000000"}}, providers: [CASHFREE, RAZORPAY]}
                """#)
            #expect(created.userErrorCodes("upsertRoutingRule") == [], "\(created.json)")
            let rule = try #require(created.data("upsertRoutingRule")?["routingRule"])
            let id = try #require(rule["id"]?.stringValue)
            #expect(rule["providers"] == ["CASHFREE", "RAZORPAY"])
            #expect(rule["conditions"]?["minAmount"]?["amount"]?.stringValue == "1000000")
            #expect(rule["conditions"]?["maxAmount"]?.isNull == true)

            // Each bad input: a userError naming the field, nothing written.
            let bad: [(String, String, [String])] = [
                (#"{name: "dup", priority: 10, conditions: {}, providers: [RAZORPAY]}"#, "ALREADY_EXISTS", ["input", "priority"]),
                (#"{name: "w", priority: 11, conditions: {minAmount: {amount: "500"}, maxAmount: {amount: "400"}}, providers: [RAZORPAY]}"#,
                 "AMOUNT_OUT_OF_RANGE", ["input", "conditions", "maxAmount"]),
                (#"{name: "s", priority: 13, conditions: {}, providers: [SETU]}"#, "CAPABILITY_NOT_SUPPORTED", ["input", "providers", "0"]),
                (#"{name: "u", priority: 14, conditions: {}, providers: [RAZORPAY, INSTAMOJO]}"#, "NOT_FOUND", ["input", "providers", "1"]),
                (#"{name: "d", priority: 15, conditions: {}, providers: [RAZORPAY, RAZORPAY]}"#, "VALIDATION_FAILED", ["input", "providers", "1"]),
                (#"{name: "f", priority: 16, conditions: {flows: [CARD_COMPONENT]}, providers: [RAZORPAY]}"#, "CAPABILITY_NOT_SUPPORTED",
                 ["input", "providers", "0"]),
                (#"{name: "e", priority: 17, conditions: {}, providers: []}"#, "REQUIRED", ["input", "providers"]),
                (#"{name: " ", priority: 18, conditions: {}, providers: [RAZORPAY]}"#, "VALIDATION_FAILED", ["input", "name"]),
                (#"{name: "n", priority: -1, conditions: {}, providers: [RAZORPAY]}"#, "VALIDATION_FAILED", ["input", "priority"]),
            ]
            for (input, code, field) in bad {
                let answer = try await Self.upsert(h, input)
                #expect(answer.userErrorCodes("upsertRoutingRule") == [code], "\(input): \(answer.json)")
                let errorField = answer.data("upsertRoutingRule")?["userErrors"]?.arrayValue?.first?["field"]?.arrayValue?.compactMap(\.stringValue)
                #expect(errorField == field, "\(input)")
                #expect(answer.data("upsertRoutingRule")?["routingRule"]?.isNull == true)
            }
            #expect(try await h.count("routing_rules") == 1)

            // Edit in place (keeping its own priority), list, node, delete.
            let edited = try await Self.upsert(h, #"{id: "\#(id)", name: "big", priority: 10, enabled: false, conditions: {}, providers: [RAZORPAY]}"#)
            #expect(edited.userErrorCodes("upsertRoutingRule") == [], "\(edited.json)")
            #expect(edited.data("upsertRoutingRule")?["routingRule"]?["enabled"]?.boolValue == false)
            _ = try await Self.upsert(h, #"{name: "second", priority: 5, conditions: {}, providers: [CASHFREE]}"#)
            let listed = try await h.graphQL("{ routingRules { name priority } }", key: h.opsKey)
            #expect(listed.data("routingRules")?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["second", "big"])
            let node = try await h.graphQL(#"{ node(id: "\#(id)") { __typename ... on RoutingRule { name } } }"#, key: h.opsKey)
            #expect(node.data("node")?["name"]?.stringValue == "big")
            let publishable = try await h.graphQL("{ routingRules { name } }", key: h.publishableKey)
            #expect(publishable.errorCodes == ["FORBIDDEN"])

            let deleted = try await h.graphQL(#"mutation { deleteRoutingRule(input: {routingRuleId: "\#(id)"}) { deletedRoutingRuleId userErrors { code } } }"#,
                                              key: h.opsKey)
            #expect(deleted.data("deleteRoutingRule")?["deletedRoutingRuleId"]?.stringValue == id)
            let again = try await h.graphQL(#"mutation { deleteRoutingRule(input: {routingRuleId: "\#(id)"}) { deletedRoutingRuleId userErrors { code } } }"#,
                                            key: h.opsKey)
            #expect(again.userErrorCodes("deleteRoutingRule") == ["NOT_FOUND"])
            #expect(try await h.count("routing_rules") == 1)
        }
    }

    @Test func twoRulesRacingForOnePriorityLeaveOne() async throws {
        try await GatewayHarness.run { h in
            // The unique constraint decides when both pass the look-up at once: one rule, one ALREADY_EXISTS.
            async let first = Self.upsert(h, #"{name: "a", priority: 7, conditions: {}, providers: [RAZORPAY]}"#)
            async let second = Self.upsert(h, #"{name: "b", priority: 7, conditions: {}, providers: [CASHFREE]}"#)
            let codes = [try await first, try await second].map { $0.userErrorCodes("upsertRoutingRule") }
            #expect(codes.sorted { $0.count < $1.count } == [[], ["ALREADY_EXISTS"]], "\(codes)")
            #expect(try await h.count("routing_rules") == 1)
        }
    }

    @Test func explainAgreesWithTheDecisionCreateOrderStores() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            _ = try await Self.upsert(h, #"{name: "upi to cashfree", priority: 1, conditions: {methods: [UPI]}, providers: [CASHFREE, INSTAMOJO]}"#)
            let rule = try #require(try await h.graphQL("{ routingRules { id } }", key: h.opsKey).data("routingRules")?.arrayValue?.first?["id"]?.stringValue)
            let explained = try await h.graphQL("""
                query($c: ID) { routingExplain(input: {amount: {amount: "50000"}, method: UPI, customerId: $c}) { \(Self.decisionFields) } }
                """, variables: ["c": .string(customer)])
            let explanation = try #require(explained.data("routingExplain"), "\(explained.json)")
            #expect(explanation["provider"]?.stringValue == "CASHFREE")
            #expect(explanation["rule"]?["id"]?.stringValue == rule)
            // Instamojo needs a returnUrl this order does not have; Razorpay is not in the rule.
            #expect(explanation["failoverOrder"] == [])
            let candidates = try #require(explanation["candidates"]?.arrayValue)
            #expect(candidates.first { $0["provider"] == "RAZORPAY" }?["rejectionReasons"] == ["EXCLUDED_BY_RULE"])
            #expect(candidates.first { $0["provider"] == "INSTAMOJO" }?["rejectionReasons"] == ["CUSTOMER_DATA_MISSING"])

            let created = try await Self.routedOrder(h, customer: customer, extra: ", method: UPI")
            #expect(created.userErrorCodes("createOrder") == [], "\(created.json)")
            let order = try #require(created.data("createOrder")?["order"])
            #expect(order["provider"]?.stringValue == "CASHFREE")
            #expect(order["checkout"]?["__typename"]?.stringValue == "CashfreeCheckout")
            #expect(order["routing"] == explanation, "\(order["routing"] ?? .null) vs \(explanation)")

            // TPV by netbanking (the UPI rule does not match) goes to Razorpay by capability, Cashfree next.
            let tpv = try await h.graphQL("""
                query($c: ID) { routingExplain(input: {amount: {amount: "50000"}, flow: TPV, method: NETBANKING, customerId: $c}) { provider failoverOrder rule { id } } }
                """, variables: ["c": .string(customer)])
            #expect(tpv.data("routingExplain")?["provider"]?.stringValue == "RAZORPAY", "\(tpv.json)")
            #expect(tpv.data("routingExplain")?["failoverOrder"] == ["CASHFREE"])
            #expect(tpv.data("routingExplain")?["rule"]?.isNull == true)
            // Explanations are SECRET/OPS only and bad input is a clear error.
            let publishable = try await h.graphQL(#"{ routingExplain(input: {amount: {amount: "100"}}) { provider } }"#, key: h.publishableKey)
            #expect(publishable.errorCodes == ["FORBIDDEN"])
            let zero = try await h.graphQL(#"{ routingExplain(input: {amount: {amount: "0"}}) { provider } }"#)
            #expect(zero.errorCodes == ["BAD_USER_INPUT"], "\(zero.json)")
        }
    }

    @Test func capabilitiesRouteEachFlow() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            // A rule for everything does not override a capability: Razorpay has no card component.
            _ = try await Self.upsert(h, #"{name: "all razorpay", priority: 1, conditions: {}, providers: [RAZORPAY]}"#)
            let card = try await Self.routedOrder(h, flow: "CARD_COMPONENT", customer: customer)
            #expect(card.userErrorCodes("createOrder") == [], "\(card.json)")
            #expect(card.data("createOrder")?["order"]?["provider"]?.stringValue == "CASHFREE")
            let custom = try await Self.routedOrder(h, flow: "CUSTOM_UI", customer: customer, extra: #", returnUrl: "https://shop.example/back""#)
            #expect(custom.userErrorCodes("createOrder") == [], "\(custom.json)")
            #expect(custom.data("createOrder")?["order"]?["provider"]?.stringValue == "INSTAMOJO")
            let standard = try await Self.routedOrder(h, customer: customer)
            #expect(standard.data("createOrder")?["order"]?["provider"]?.stringValue == "RAZORPAY")
            #expect(standard.data("createOrder")?["order"]?["routing"]?["rule"]?["name"]?.stringValue == "all razorpay")
            let turbo = try await h.graphQL("""
                query($c: ID) { routingExplain(input: {amount: {amount: "50000"}, flow: TURBO_UPI, customerId: $c}) { provider } }
                """, variables: ["c": .string(customer)])
            #expect(turbo.data("routingExplain")?["provider"]?.stringValue == "RAZORPAY")
            // No provider can serve: NO_ROUTE with the reason, nothing written.
            let before = try await h.count("orders")
            let none = try await Self.routedOrder(h, flow: "CUSTOM_UI", customer: customer)
            #expect(none.userErrorCodes("createOrder") == ["NO_ROUTE"], "\(none.json)")
            #expect(try await h.count("orders") == before)
        }
    }

    @Test func aProviderRefusingConnectionsFailsOverToTheNext() async throws {
        // Nothing listens on port 9: every call to Razorpay is refused before anything is sent.
        try await GatewayHarness.run(providers: { $0.razorpay?.baseURL = "http://127.0.0.1:9/razorpay" }) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let answer = try await Self.routedOrder(h, customer: customer, receipt: "failover_1")
            #expect(answer.userErrorCodes("createOrder") == [], "\(answer.json)")
            let order = try #require(answer.data("createOrder")?["order"])
            #expect(order["provider"]?.stringValue == "CASHFREE")
            #expect(order["checkout"]?["__typename"]?.stringValue == "CashfreeCheckout")
            #expect(order["providerOrderId"]?.isNull == false)
            let routing = try #require(order["routing"])
            #expect(routing["provider"]?.stringValue == "RAZORPAY")
            #expect(routing["failovers"]?.arrayValue?.first?["from"]?.stringValue == "RAZORPAY")
            #expect(routing["failovers"]?.arrayValue?.first?["to"]?.stringValue == "CASHFREE")
            #expect(routing["failovers"]?.arrayValue?.first?["errorCode"]?.stringValue == "PROVIDER_UNAVAILABLE")
            #expect(order["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } == ["CREATED", "FAILED_OVER"])
            #expect(try await Self.cashfreeHas(h, receipt: "failover_1"))
            #expect(try await h.count("orders") == 1)

            // Razorpay is now DOWN: the next order goes to Cashfree first, Razorpay last.
            let next = try await Self.routedOrder(h, customer: customer, receipt: "failover_2")
            let decision = try #require(next.data("createOrder")?["order"]?["routing"])
            #expect(decision["provider"]?.stringValue == "CASHFREE", "\(next.json)")
            #expect(decision["failoverOrder"] == ["RAZORPAY"])
            #expect(decision["candidates"]?.arrayValue?.first { $0["provider"] == "RAZORPAY" }?["rejectionReasons"] == ["UNHEALTHY"])
            #expect(decision["failovers"] == [])

            // A provider named by the caller is never failed over.
            let named = try await h.createOrder(provider: "RAZORPAY", receipt: "named_1", customer: customer)
            #expect(named.userErrorCodes("createOrder") == ["PROVIDER_UNAVAILABLE"], "\(named.json)")
            #expect(!(try await Self.cashfreeHas(h, receipt: "named_1")))
            #expect(try await h.count("orders") == 2)
        }
    }

    @Test func aThrottledProviderFailsOverToo() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            // A sandbox "before" fault: Razorpay answers 429 and does nothing, for as long as the rule stands.
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"rate_limit","retry_after":1}"#)
            let answer = try await Self.routedOrder(h, customer: customer, receipt: "throttled_1")
            #expect(answer.userErrorCodes("createOrder") == [], "\(answer.json)")
            let order = try #require(answer.data("createOrder")?["order"])
            #expect(order["provider"]?.stringValue == "CASHFREE")
            #expect(order["routing"]?["failovers"]?.arrayValue?.first?["errorCode"]?.stringValue == "PROVIDER_RATE_LIMITED")
            #expect(try await Self.cashfreeHas(h, receipt: "throttled_1"))
            try await h.sandboxControl("/faults", method: "DELETE")
            #expect(try await h.razorpayOrders(receipt: "throttled_1").isEmpty)
        }
    }

    /// The circuit breaker end to end: a throttled Razorpay is failed over and its circuit opens;
    /// while open, orders go straight to Cashfree; after the cooldown one trial order goes back to
    /// Razorpay, which answers again, and from then on orders are Razorpay's.
    @Test func aDownProvidersCircuitOpensThenOneTrialClosesIt() async throws {
        let clock = ProviderHealthTests.ManualClock()
        try await GatewayHarness.run(providers: { $0.circuitCooldown = .seconds(30); $0.healthClock = { clock.now } }) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            func health() async throws -> JSONValue? {
                let answer = try await h.graphQL("{ providers { provider health { status circuitOpen } } }")
                return answer.data("providers")?.arrayValue?.first { $0["provider"] == "RAZORPAY" }?["health"]
            }
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"rate_limit","retry_after":1}"#)
            let first = try await Self.routedOrder(h, customer: customer, receipt: "circuit_1")
            #expect(first.data("createOrder")?["order"]?["provider"]?.stringValue == "CASHFREE", "\(first.json)")
            #expect(try await health()?["status"] == "DOWN")
            #expect(try await health()?["circuitOpen"] == true)

            // Open: straight to Cashfree, no attempt at Razorpay.
            let second = try await Self.routedOrder(h, customer: customer, receipt: "circuit_2")
            let decision = try #require(second.data("createOrder")?["order"]?["routing"])
            #expect(decision["provider"]?.stringValue == "CASHFREE", "\(second.json)")
            #expect(decision["failovers"] == [])
            #expect(decision["candidates"]?.arrayValue?.first { $0["provider"] == "RAZORPAY" }?["rejectionReasons"] == ["UNHEALTHY"])

            // Razorpay is back; after the cooldown the circuit is half-open and the next order is its trial.
            try await h.sandboxControl("/faults", method: "DELETE")
            #expect(try await health()?["circuitOpen"] == true)
            clock.advance(.seconds(31))
            #expect(try await health()?["circuitOpen"] == false)
            #expect(try await health()?["status"] == "DOWN")
            let trial = try await Self.routedOrder(h, customer: customer, receipt: "circuit_3")
            #expect(trial.data("createOrder")?["order"]?["provider"]?.stringValue == "RAZORPAY", "\(trial.json)")
            #expect(try await h.razorpayOrders(receipt: "circuit_3").count == 1)
            #expect(try await health()?["circuitOpen"] == false)
            #expect(try await health()?["status"] != "DOWN")
            let after = try await Self.routedOrder(h, customer: customer, receipt: "circuit_4")
            #expect(after.data("createOrder")?["order"]?["provider"]?.stringValue == "RAZORPAY", "\(after.json)")
        }
    }

    /// A shorter attempt than the `timeout_after` hold, so the client gives up first.
    static let transport = ProviderTransportSettings(attemptTimeout: .milliseconds(800), operationDeadline: .seconds(3))

    @Test func aTimeoutAfterCreatingIsReconciledAtTheFirstProviderNeverFailedOver() async throws {
        try await GatewayHarness.run(transport: Self.transport) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"timeout_after","ms":3000,"times":1}"#)
            // The immediate look-up by receipt fails too, so the order is left to the reconciler.
            try await h.sandboxControl("/faults", body: #"{"route":"GET /razorpay/v1/orders","kind":"status","status":503}"#)
            let answer = try await Self.routedOrder(h, customer: customer, receipt: "unknown_1")
            #expect(answer.userErrorCodes("createOrder") == ["PROVIDER_TIMEOUT"], "\(answer.json)")
            let order = try #require(answer.data("createOrder")?["order"])
            let id = try #require(order["id"]?.stringValue)
            #expect(order["provider"]?.stringValue == "RAZORPAY")
            #expect(order["needsReconciliation"]?.boolValue == true)
            #expect(order["routing"]?["failoverOrder"] == ["CASHFREE"])
            #expect(order["routing"]?["failovers"] == [])
            // Nothing at the second provider: one order, at Razorpay, once.
            #expect(!(try await Self.cashfreeHas(h, receipt: "unknown_1")))
            try await h.sandboxControl("/faults", method: "DELETE")
            #expect(try await h.razorpayOrders(receipt: "unknown_1").count == 1)

            let clock = TestClock()
            clock.advance(.seconds(10))
            let log = ReconcilerLog()
            #expect(try await h.reconciler(clock: clock, log: log).runOnce() == 1)
            #expect(log.failures == [])
            let reconciled = try #require(try await h.order(id))
            #expect(reconciled["needsReconciliation"]?.boolValue == false)
            #expect(reconciled["providerOrderId"]?.stringValue == (try await h.razorpayOrders(receipt: "unknown_1").first?["id"]?.stringValue))
            #expect(try await h.razorpayOrders(receipt: "unknown_1").count == 1)
            #expect(!(try await Self.cashfreeHas(h, receipt: "unknown_1")))
        }
    }
}
