import Foundation
import HTTPClient
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import JSON
import Testing

/// Who may call what, idempotency, and bad input: each a clear error and nothing written.
@Suite struct AuthAndInputTests {
    @Test func noKeyOrAnUnknownKeyIsUnauthenticated() async throws {
        try await GatewayHarness.run { h in
            let none = try await h.graphQL("{ viewer { scopes } }", key: .some(nil))
            #expect(none.status == 401)
            #expect(none.errorCodes == ["UNAUTHENTICATED"])
            let wrong = try await h.graphQL("{ viewer { scopes } }", key: "pq_sk_not-a-key")
            #expect(wrong.status == 401)
            let viewer = try await h.graphQL("{ viewer { scopes } }")
            #expect(viewer.data("viewer")?["scopes"] == ["SECRET"])
        }
    }

    @Test func scopesAreCheckedBeforeAnythingRuns() async throws {
        try await GatewayHarness.run { h in
            let answer = try await h.graphQL(#"mutation { createCustomer(input: {name: "X"}) { customer { id } } }"#, key: h.publishableKey)
            #expect(answer.status == 403)
            #expect(answer.errorCodes == ["FORBIDDEN"])
            #expect(try await h.count("customers") == 0)
            let ops = try await h.graphQL("{ orders { nodes { id } } }", key: h.opsKey)
            #expect(ops.status == 200)
            // Two root fields, the second forbidden: the first does not run either.
            let mixed = try await h.graphQL(#"mutation { a: createCustomer(input: {name: "Y"}) { customer { id } } b: upsertRoutingRule(input: {name: "r", priority: 1, conditions: {}, providers: [RAZORPAY]}) { userErrors { code } } }"#)
            #expect(mixed.errorCodes == ["FORBIDDEN"], "\(mixed.json)")
            #expect(try await h.count("customers") == 0)
        }
    }

    @Test func aClientSessionSeesOnlyItsCustomerAndIsCapped() async throws {
        try await GatewayHarness.run { h in
            let mine = try await OrderLifecycleTests.createCustomer(h, phone: "9000000001")
            let theirs = try await OrderLifecycleTests.createCustomer(h, phone: "9000000002")
            let theirOrder = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: theirs)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c, maxOrderAmount: "100000"}) {
                  session { id token maxOrderAmount { amount } customer { id } } userErrors { code } } }
                """, variables: ["c": .string(mine)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            #expect(token.hasPrefix("pq_cs_"))
            // Another customer's order resolves to null, not an error.
            let hidden = try await h.graphQL("query($id: ID!) { order(id: $id) { id } }",
                                             variables: ["id": try #require(theirOrder["id"])], key: token)
            #expect(hidden.status == 200)
            #expect(hidden.data("order") == .null)
            let own = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { order { id customer { id } } userErrors { code } } }"#,
                                          key: token)
            #expect(own.data("createOrder")?["order"]?["customer"]?["id"]?.stringValue == mine)
            let tooMuch = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "100001"}, provider: RAZORPAY}) { order { id } userErrors { code } } }"#,
                                              key: token)
            #expect(tooMuch.userErrorCodes("createOrder") == ["AMOUNT_OUT_OF_RANGE"])
            let forOther = try await h.graphQL("mutation($c: ID) { createOrder(input: {amount: {amount: \"50000\"}, provider: RAZORPAY, customerId: $c}) { order { id } } }",
                                               variables: ["c": .string(theirs)], key: token)
            #expect(forOther.errorCodes.contains("FORBIDDEN"))
            let list = try await h.graphQL("{ orders { nodes { id } } }", key: token)
            #expect(list.errorCodes == ["FORBIDDEN"])
        }
    }

    @Test func theSameIdempotencyKeyReturnsTheFirstResult() async throws {
        try await GatewayHarness.run { h in
            let create = #"mutation($k: String, $a: MinorUnits!) { createOrder(input: {amount: {amount: $a}, provider: RAZORPAY, idempotencyKey: $k}) { order { id providerOrderId } userErrors { code } } }"#
            let first = try await h.graphQL(create, variables: ["k": "order-1", "a": "50000"])
            let again = try await h.graphQL(create, variables: ["k": "order-1", "a": "50000"])
            #expect(first.data("createOrder")?["order"]?["id"] != nil)
            #expect(first.data("createOrder")?["order"] == again.data("createOrder")?["order"])
            let reused = try await h.graphQL(create, variables: ["k": "order-1", "a": "60000"])
            #expect(reused.userErrorCodes("createOrder") == ["IDEMPOTENCY_KEY_REUSED"])
            #expect(try await h.count("orders") == 1)
            // The header works too, for a single mutation field.
            let header = try await h.graphQL(create, variables: ["k": .null, "a": "70000"], headers: [("Idempotency-Key", "order-2")])
            let headerAgain = try await h.graphQL(create, variables: ["k": .null, "a": "70000"], headers: [("Idempotency-Key", "order-2")])
            #expect(header.data("createOrder")?["order"] == headerAgain.data("createOrder")?["order"])
            #expect(try await h.count("orders") == 2)
        }
    }

    @Test func badAmountsAndIdsAreClearErrorsAndWriteNothing() async throws {
        try await GatewayHarness.run { h in
            let create = #"mutation($a: MinorUnits!, $c: ID) { createOrder(input: {amount: {amount: $a}, provider: RAZORPAY, customerId: $c}) { order { id } userErrors { code field } } }"#
            #expect(try await h.graphQL(create, variables: ["a": "0"]).userErrorCodes("createOrder") == ["INVALID_AMOUNT"])
            #expect(try await h.graphQL(create, variables: ["a": "50"]).userErrorCodes("createOrder") == ["AMOUNT_OUT_OF_RANGE"])
            for bad: JSONValue in ["-1", "1.5", "05", "9223372036854775808", 500, "1e3", ""] {
                let answer = try await h.graphQL(create, variables: ["a": bad])
                #expect(answer.errorCodes == ["BAD_USER_INPUT"], "\(bad): \(answer.json)")
            }
            let customerAsOrder = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let wrongType = try await h.graphQL(create, variables: ["a": "50000", "c": try #require(customerAsOrder["id"])])
            #expect(wrongType.userErrorCodes("createOrder") == ["NOT_FOUND"])
            let notes = (1...16).map { "{key: \"k\($0)\", value: \"v\"}" }.joined(separator: ", ")
            let tooMany = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY, notes: [\#(notes)]}) { userErrors { code } } }"#)
            #expect(tooMany.userErrorCodes("createOrder") == ["TOO_MANY_NOTES"])
            let badPhone = try await h.graphQL(#"mutation { createCustomer(input: {name: "A", phone: "98765 43210"}) { customer { id } } }"#)
            #expect(badPhone.errorCodes == ["GRAPHQL_VALIDATION_FAILED"])
            let badEmail = try await h.graphQL(#"mutation { createCustomer(input: {name: "A", email: "not-an-email"}) { userErrors { code } } }"#)
            #expect(badEmail.userErrorCodes("createCustomer") == ["INVALID_EMAIL"])
            #expect(try await h.count("orders") == 1)
            #expect(try await h.count("customers") == 0)
            let unknown = try await h.graphQL("query($id: ID!) { order(id: $id) { id } }", variables: ["id": "T3JkZXI6bm9wZQ"])
            #expect(unknown.data("order") == .null)
        }
    }

    @Test func createCustomerReturnsTheExistingCustomer() async throws {
        try await GatewayHarness.run { h in
            let create = #"mutation($f: Boolean) { createCustomer(input: {name: "A", email: "a@example.com", phone: "9876500000", failIfExists: $f}) { customer { id } existing userErrors { code } } }"#
            let first = try await h.graphQL(create, variables: ["f": false])
            let second = try await h.graphQL(create, variables: ["f": false])
            #expect(first.data("createCustomer")?["existing"] == false)
            #expect(second.data("createCustomer")?["existing"] == true)
            #expect(first.data("createCustomer")?["customer"] == second.data("createCustomer")?["customer"])
            let refused = try await h.graphQL(create, variables: ["f": true])
            #expect(refused.userErrorCodes("createCustomer") == ["ALREADY_EXISTS"])
            #expect(try await h.count("customers") == 1)
        }
    }
}
