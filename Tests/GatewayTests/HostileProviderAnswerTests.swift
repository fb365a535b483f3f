import Foundation
@testable import Gateway
import JSON
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
            // Refunds never exceed the payment, whatever the answers said.
            let rows = try await h.pool.query("SELECT amount_minor, amount_refunded_minor FROM payments")
            for row in rows {
                #expect(try row.decode(Int64.self, at: 1) <= row.decode(Int64.self, at: 0))
            }
        }
    }
}
