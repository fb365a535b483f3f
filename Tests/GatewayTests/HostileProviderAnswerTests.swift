import Foundation
@testable import Gateway
import JSON
import PaymentsCore
import Postgres
import Testing

/// Providers answering nonsense in well-formed JSON: the sandbox's `hostile_after` fault does the
/// work, then replaces values of the real answer (numbers beyond every integer, fractions of a
/// paisa, wrong types, NUL characters, huge strings, deep nesting) and drops members. A provider's
/// answer is an input like any other: whatever it says, PayQL must answer its own client without a
/// server error, keep its rows consistent, and once the provider answers sanely again find the
/// real state (the reconciler's and `syncOrder`'s job). `PAYQL_HOSTILE_ROUNDS` (default 40 per
/// provider) and `PAYQL_HOSTILE_SEED` run it longer or differently.
@Suite struct HostileProviderAnswerTests {
    static func setting(_ name: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? value
    }

    /// One mutation's answer: no server error, and either data or top-level errors that carry a code.
    static func checked(_ answer: GatewayHarness.Answer, _ what: String) {
        #expect(answer.status < 500, "\(what): HTTP \(answer.status) \(answer.json)")
        for error in answer.json["errors"]?.arrayValue ?? [] {
            #expect(error["extensions"]?["code"]?.stringValue != nil, "\(what): an error without a code: \(error)")
            #expect(error["extensions"]?["code"]?.stringValue != "INTERNAL", "\(what): \(error)")
        }
    }

    @Test(arguments: ["RAZORPAY", "CASHFREE", "INSTAMOJO"])
    func hostileAnswersAreAnsweredCleanlyAndTheRealStateIsFoundAfterwards(provider: String) async throws {
        let rounds = Self.setting("PAYQL_HOSTILE_ROUNDS", default: 40)
        let seed = Self.setting("PAYQL_HOSTILE_SEED", default: 7)
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let extra = provider == "INSTAMOJO" ? #"returnUrl: "https://shop.example/done""# : ""
            // A paid order to refund while the provider misbehaves.
            let (_, payment) = try await RefundTests.paidOrder(h, provider: provider)

            let base = ["RAZORPAY": "/razorpay/**", "CASHFREE": "/cashfree/**", "INSTAMOJO": "/instamojo/**"][provider] ?? "/**"
            var orders: [String] = []
            var seen: [String: Int] = [:]   // what the calls answered, printed for the log
            func note(_ answer: GatewayHarness.Answer, _ field: String) {
                let codes = answer.userErrorCodes(field) + answer.errorCodes
                seen["\(field): \(codes.isEmpty ? "ok" : codes.joined(separator: ","))", default: 0] += 1
            }
            for round in 0..<rounds {
                _ = try await h.sandboxControl("/faults", method: "DELETE")
                _ = try await h.sandboxControl("/faults", body: #"{"route":"\#(base)","kind":"hostile_after","seed":\#(seed + round)}"#)
                let created = try await h.graphQL("""
                    mutation($c: ID) { createOrder(input: {amount: {amount: "50000"}, provider: \(provider), customerId: $c \(extra)}) {
                      order { id status providerOrderId needsReconciliation } userErrors { code message } } }
                    """, variables: ["c": .string(customer)])
                Self.checked(created, "createOrder round \(round)")
                note(created, "createOrder")
                if let id = created.data("createOrder")?["order"]?["id"]?.stringValue {
                    orders.append(id)
                    let synced = try await h.graphQL("mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { status } userErrors { code } } }",
                                                     variables: ["o": .string(id)])
                    Self.checked(synced, "syncOrder round \(round)")
                    note(synced, "syncOrder")
                }
                let refunded = try await RefundTests.refund(h, payment: payment, amount: "100", reference: "hostile-\(round)")
                Self.checked(refunded, "createRefund round \(round)")
                note(refunded, "createRefund")
            }
            print("HostileProviderAnswerTests \(provider): \(seen.sorted { $0.key < $1.key })")
            _ = try await h.sandboxControl("/faults", method: "DELETE")

            // The provider is sane again: every order PayQL acknowledged reads back whole, and a sync
            // finds the provider's real order (by its id, or by receipt when the answer was lost).
            for id in orders {
                let synced = try await h.graphQL("""
                    mutation($o: ID!) { syncOrder(input: {orderId: $o}) { order { id status providerOrderId needsReconciliation amount { amount } } userErrors { code } } }
                    """, variables: ["o": .string(id)])
                Self.checked(synced, "syncOrder afterwards")
                let order = try await OrderLifecycleTests.order(h, id)
                #expect(order["amount"]?["amount"]?.stringValue == "50000")
                let providerOrderID = try #require(order["providerOrderId"]?.stringValue, "\(order)")
                if provider != "INSTAMOJO" {   // the control API shows Razorpay's and Cashfree's orders
                    // Razorpay's ids and Cashfree's (PayQL's receipt) are letters, digits, `_` and `-`.
                    let plain = providerOrderID.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
                    #expect(plain, "\(provider) order id \(providerOrderID) is no provider's")
                    guard plain else { continue }
                    let known = try await h.sandboxControl("/\(provider.lowercased())/orders/\(providerOrderID)", method: "GET")
                    #expect(known["error"] == nil, "\(provider) order \(providerOrderID) is not the provider's: \(known)")
                }
            }
            // Each refund is of what was asked (1 rupee), with an id a provider could give or none yet.
            let refunds = try await h.pool.query("SELECT amount_minor, coalesce(provider_refund_id, '') FROM refunds")
            for row in refunds {
                let amount = try row.decode(Int64.self, at: 0)
                #expect(amount == 100, "a refund of \(amount)")
                let id = try row.decode(String.self, at: 1)
                #expect(id.isEmpty || OrderService.isOrderID(id, provider: .cashfree), "refund id \(id)")
            }
            // Refunds never exceed the payment, whatever the answers said.
            let rows = try await h.pool.query("SELECT amount_minor, amount_refunded_minor FROM payments")
            for row in rows {
                #expect(try row.decode(Int64.self, at: 1) <= row.decode(Int64.self, at: 0))
            }
        }
    }

    /// The other calls that reach a provider — TPV accounts, captures and cancellations, the redirect and
    /// UPI-collect flows, Turbo UPI sessions, Setu's links — each under several seeds of hostile answers
    /// from every provider at once: none answers a server error or INTERNAL.
    @Test func everyOtherProviderCallAnswersCleanly() async throws {
        let seeds = Self.setting("PAYQL_HOSTILE_ROUNDS", default: 40) / 4
        let first = Self.setting("PAYQL_HOSTILE_SEED", default: 7)
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            var seen: [String: Int] = [:]
            func call(_ field: String, _ query: String, _ variables: JSONObject = [:]) async throws {
                let answer = try await h.graphQL(query, variables: variables)
                Self.checked(answer, "\(field)")
                let codes = answer.userErrorCodes(field) + answer.errorCodes
                seen["\(field): \(codes.isEmpty ? "ok" : codes.joined(separator: ","))", default: 0] += 1
            }
            for seed in first..<(first + seeds) {
                // Orders made while the providers are sane, so each call has something to work on.
                _ = try await h.sandboxControl("/faults", method: "DELETE")
                let razorpay = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)
                let cashfree = try await OrderLifecycleTests.createOrder(h, provider: "CASHFREE", customer: customer)
                let (instamojo, _) = try await InstamojoCustomUITests.order(h)
                _ = try await h.sandboxControl("/faults", body: #"{"route":"/**","kind":"hostile_after","seed":\#(seed)}"#)

                try await call("addTpvBankAccount", """
                    mutation($c: ID!) { addTpvBankAccount(input: {customerId: $c, accountNumber: "1234567890\(seed)", ifsc: "HDFC0000053",
                      beneficiaryName: "Ravi"}) { bankAccount { maskedAccountNumber } userErrors { code } } }
                    """, ["c": .string(customer)])
                try await call("cancelOrder", "mutation($o: ID!) { cancelOrder(input: {orderId: $o}) { order { status } userErrors { code } } }",
                               ["o": razorpay["id"] ?? .null])
                try await call("cancelOrder", "mutation($o: ID!) { cancelOrder(input: {orderId: $o}) { order { status } userErrors { code } } }",
                               ["o": cashfree["id"] ?? .null])
                try await call("verifyOrderPayment", """
                    mutation($o: ID!) { verifyOrderPayment(input: {orderId: $o, clientOutcome: REDIRECTED}) { order { status } userErrors { code } } }
                    """, ["o": .string(instamojo)])
                try await call("startRedirectPayment", """
                    mutation($o: ID!) { startRedirectPayment(input: {orderId: $o, method: NETBANKING, bankCode: "HDFC", idempotencyKey: "nb-\(seed)"}) {
                      redirect { url } userErrors { code } } }
                    """, ["o": .string(instamojo)])
                try await call("requestUpiCollect", """
                    mutation($o: ID!) { requestUpiCollect(input: {orderId: $o, vpa: "asha.rao@okaxis"}) { upiCollect { status } userErrors { code } } }
                    """, ["o": .string(instamojo)])
                try await call("createTurboUpiSession", """
                    mutation($c: ID!) { createTurboUpiSession(input: {customerId: $c, mobileNumber: "9876543210"}) { userErrors { code } } }
                    """, ["c": .string(customer)])
                try await call("createBillPayLink", """
                    mutation { createBillPayLink(input: {mobileNumber: "9876543210", category: "Water"}) { billPayLink { id } userErrors { code } } }
                    """)
            }
            _ = try await h.sandboxControl("/faults", method: "DELETE")
            print("HostileProviderAnswerTests other calls: \(seen.sorted { $0.key < $1.key })")
            // Still serving: a fresh order at each provider goes through.
            for provider in ["RAZORPAY", "CASHFREE"] {
                let order = try await OrderLifecycleTests.createOrder(h, provider: provider, customer: customer)
                #expect(order["status"]?.stringValue == "CREATED", "\(order)")
            }
        }
    }
}
