import Foundation
@testable import Gateway
import JSON
import Postgres
import Testing

/// `createTurboUpiSession` end to end against the Razorpay sandbox: the token through a client
/// session and through SECRET, the customer's mobile as `customer_reference`, replays that mint a
/// fresh token, and the TPV linking parameter combinations (seed 000 L352-359).
@Suite struct TurboUpiSessionTests {
    static let sessionFields = "session { token expiresAt customerReference } tpvLinking { mobileNumber razorpayOrderId razorpayCustomerId whitelistedAccounts { id maskedAccountNumber } } userErrors { code message field }"

    static func create(_ h: GatewayHarness, input: String, variables: JSONObject = [:], key: String?? = .none) async throws -> GatewayHarness.Answer {
        // Only the variables the input uses (an unused declared variable is a validation error).
        let used = variables.members.filter { name, _ in input.contains("$" + name) }
        let declared = used.map { name, _ in "$\(name): ID" }.joined(separator: ", ")
        var sent = JSONObject()
        for (name, value) in used { sent.append(name, value) }
        return try await h.graphQL("""
            mutation\(declared.isEmpty ? "" : "(\(declared))") { createTurboUpiSession(input: {\(input)}) { \(sessionFields) } }
            """, variables: sent, key: key)
    }

    static func clientSession(_ h: GatewayHarness, customer: String) async throws -> String {
        let answer = try await h.graphQL("mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { token } } }",
                                         variables: ["c": .string(customer)])
        return try #require(answer.data("createClientSession")?["session"]?["token"]?.stringValue)
    }

    @Test func aClientSessionGetsATokenForItsCustomersMobile() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "+919876543210")
            let token = try await Self.clientSession(h, customer: customer)
            let answer = try await Self.create(h, input: "", key: token)
            #expect(answer.userErrorCodes("createTurboUpiSession") == [], "\(answer.json)")
            let session = try #require(answer.data("createTurboUpiSession")?["session"])
            // Decision 3: the 10-digit national number, as a string.
            #expect(session["customerReference"]?.stringValue == "9876543210")
            #expect(session["token"]?.stringValue?.hasPrefix("turbo_") == true)
            #expect(session["expiresAt"]?.stringValue?.hasSuffix("Z") == true)
            #expect(answer.data("createTurboUpiSession")?["tpvLinking"] == .null)

            // fetchToken fires again: a new token each time (nothing cached or replayed).
            let again = try await Self.create(h, input: "", key: token)
            let second = again.data("createTurboUpiSession")?["session"]?["token"]?.stringValue
            #expect(second != nil && second != session["token"]?.stringValue)

            // The session's own customer id and mobile are fine; another customer's are FORBIDDEN.
            let own = try await Self.create(h, input: #"customerId: $c, mobileNumber: "9876543210""#, variables: ["c": .string(customer)], key: token)
            #expect(own.userErrorCodes("createTurboUpiSession") == [])
            let other = try await OrderLifecycleTests.createCustomer(h, phone: "9123456780")
            let foreign = try await Self.create(h, input: "customerId: $c", variables: ["c": .string(other)], key: token)
            #expect(foreign.errorCodes == ["FORBIDDEN"])
            #expect(foreign.data("createTurboUpiSession")?["session"]?["token"] == nil)
            let foreignMobile = try await Self.create(h, input: #"mobileNumber: "9123456780""#, key: token)
            #expect(foreignMobile.errorCodes == ["FORBIDDEN"])
            // A bare PUBLISHABLE key is not bound to a customer: it gets no token for anyone.
            let bare = try await Self.create(h, input: #"mobileNumber: "9123456780""#, key: h.publishableKey)
            #expect(bare.errorCodes == ["FORBIDDEN"])
            #expect(bare.data("createTurboUpiSession")?["session"]?["token"] == nil)
        }
    }

    @Test func aSecretKeyGetsATokenByCustomerOrMobile() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "9876543210")
            let byCustomer = try await Self.create(h, input: "customerId: $c", variables: ["c": .string(customer)])
            #expect(byCustomer.data("createTurboUpiSession")?["session"]?["customerReference"]?.stringValue == "9876543210")
            let byMobile = try await Self.create(h, input: #"mobileNumber: "+919988776655""#)
            #expect(byMobile.userErrorCodes("createTurboUpiSession") == [])
            #expect(byMobile.data("createTurboUpiSession")?["session"]?["customerReference"]?.stringValue == "9988776655")

            // Refused before Razorpay is asked: no identity, a non-Indian number, a mobile that is not the customer's.
            #expect(try await Self.create(h, input: "").userErrorCodes("createTurboUpiSession") == ["REQUIRED"])
            #expect(try await Self.create(h, input: #"mobileNumber: "+14155550100""#).userErrorCodes("createTurboUpiSession") == ["INVALID_PHONE"])
            let mismatch = try await Self.create(h, input: #"customerId: $c, mobileNumber: "9123456780""#, variables: ["c": .string(customer)])
            #expect(mismatch.userErrorCodes("createTurboUpiSession") == ["INVALID_PARAMETER_COMBINATION"])
            let phoneless = try await h.graphQL("mutation { createCustomer(input: {name: \"No Phone\", email: \"np@example.com\"}) { customer { id } } }")
            let phonelessID = try #require(phoneless.data("createCustomer")?["customer"]?["id"]?.stringValue)
            #expect(try await Self.create(h, input: "customerId: $c", variables: ["c": .string(phonelessID)]).userErrorCodes("createTurboUpiSession")
                == ["REQUIRED"])
        }
    }

    /// README "Idempotency, precisely": a replayed call mints a fresh token; the token is stored nowhere.
    @Test func aReplayMintsAFreshTokenAndNothingStoresIt() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let input = #"customerId: $c, idempotencyKey: "turbo-1""#
            let first = try await Self.create(h, input: input, variables: ["c": .string(customer)])
            let replay = try await Self.create(h, input: input, variables: ["c": .string(customer)])
            let one = try #require(first.data("createTurboUpiSession")?["session"]?["token"]?.stringValue)
            let two = try #require(replay.data("createTurboUpiSession")?["session"]?["token"]?.stringValue)
            #expect(one != two)
            #expect(replay.data("createTurboUpiSession")?["session"]?["customerReference"]?.stringValue == "9876543210")
            // Same key, other input: refused as usual.
            let reused = try await Self.create(h, input: #"mobileNumber: "9123456780", idempotencyKey: "turbo-1""#)
            #expect(reused.userErrorCodes("createTurboUpiSession") == ["IDEMPOTENCY_KEY_REUSED"])
            // No table holds either token (idempotency records keep ids only).
            for token in [one, two] {
                let rows = try await h.pool.query("SELECT count(*) FROM idempotency_records r WHERE r::text LIKE \("%" + token + "%")")
                    .single(Int64.self)
                #expect(rows == 0)
            }
        }
    }

    /// Razorpay failing: a PROVIDER_* userError and no token; the key is released, so the retry gets one.
    @Test func aProviderFailureReleasesTheKeyForTheRetry() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            try await h.sandboxControl("/faults", body: #"{"route": "POST /razorpay/v1/upi/turbo/customer/session", "kind": "status", "status": 503}"#)
            let input = #"customerId: $c, idempotencyKey: "turbo-fail-1""#
            let failed = try await Self.create(h, input: input, variables: ["c": .string(customer)])
            let codes = failed.userErrorCodes("createTurboUpiSession")
            #expect(codes.count == 1 && codes.first?.hasPrefix("PROVIDER_") == true, "\(failed.json)")
            #expect(failed.data("createTurboUpiSession")?["session"] == .null)
            try await h.sandboxControl("/faults", method: "DELETE")
            let retried = try await Self.create(h, input: input, variables: ["c": .string(customer)])
            #expect(retried.userErrorCodes("createTurboUpiSession") == [])
            #expect(retried.data("createTurboUpiSession")?["session"]?["token"]?.stringValue?.hasPrefix("turbo_") == true)
        }
    }

    @Test func tpvLinkingTakesAnOrderOrAnAccountNeverBoth() async throws {
        try await GatewayHarness.run(configuration: TPVBankAccountTests.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let account = try await TPVBankAccountTests.added(h, customer: customer)
            let accountID = try #require(account["id"]?.stringValue)
            let created = try await h.graphQL("""
                mutation($c: ID!, $a: ID!) { createOrder(input: {amount: {amount: "50000"}, customerId: $c, flow: TPV, method: UPI,
                  tpvBankAccountId: $a}) { order { id providerOrderId } userErrors { code } } }
                """, variables: ["c": .string(customer), "a": .string(accountID)])
            let order = try #require(created.data("createOrder")?["order"])
            let orderID = try #require(order["id"]?.stringValue)
            let vars: JSONObject = ["c": .string(customer), "o": .string(orderID), "a": .string(accountID)]

            // By order: the Razorpay order id, no customer id (setOrderId; no account details).
            let byOrder = try await Self.create(h, input: "customerId: $c, tpv: {orderId: $o}", variables: vars)
            #expect(byOrder.userErrorCodes("createTurboUpiSession") == [], "\(byOrder.json)")
            let linking = try #require(byOrder.data("createTurboUpiSession")?["tpvLinking"])
            #expect(linking["razorpayOrderId"] == order["providerOrderId"])
            #expect(linking["razorpayCustomerId"] == .null)
            #expect(linking["mobileNumber"]?.stringValue == "9876543210")
            #expect(linking["whitelistedAccounts"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [accountID])
            #expect(!TPVBankAccountTests.text(byOrder).contains(TPVBankAccountTests.number))

            // By customer: the Razorpay customer id and the whitelisted account (setCustomerId + account).
            let byAccount = try await Self.create(h, input: "customerId: $c, tpv: {bankAccountId: $a}", variables: vars)
            #expect(byAccount.userErrorCodes("createTurboUpiSession") == [], "\(byAccount.json)")
            #expect(byAccount.data("createTurboUpiSession")?["tpvLinking"]?["razorpayCustomerId"]?.stringValue?.hasPrefix("cust_") == true)
            #expect(byAccount.data("createTurboUpiSession")?["tpvLinking"]?["razorpayOrderId"] == .null)

            // Both, neither, or an account without a customer: INVALID_PARAMETER_COMBINATION / REQUIRED, and no token.
            let both = try await Self.create(h, input: "customerId: $c, tpv: {orderId: $o, bankAccountId: $a}", variables: vars)
            #expect(both.userErrorCodes("createTurboUpiSession") == ["INVALID_PARAMETER_COMBINATION"])
            #expect(both.data("createTurboUpiSession")?["session"] == .null)
            let neither = try await Self.create(h, input: "customerId: $c, tpv: {}", variables: vars)
            #expect(neither.userErrorCodes("createTurboUpiSession") == ["INVALID_PARAMETER_COMBINATION"])
            let noCustomer = try await Self.create(h, input: #"mobileNumber: "9876543210", tpv: {bankAccountId: $a}"#, variables: ["a": .string(accountID)])
            #expect(noCustomer.userErrorCodes("createTurboUpiSession") == ["REQUIRED"])

            // Another customer's order or account; a non-TPV order.
            let other = try await OrderLifecycleTests.createCustomer(h, phone: "9123456780")
            let otherVars: JSONObject = ["c": .string(other), "o": .string(orderID), "a": .string(accountID)]
            #expect(try await Self.create(h, input: "customerId: $c, tpv: {orderId: $o}", variables: otherVars)
                .userErrorCodes("createTurboUpiSession") == ["INVALID_STATE"])
            #expect(try await Self.create(h, input: "customerId: $c, tpv: {bankAccountId: $a}", variables: otherVars)
                .userErrorCodes("createTurboUpiSession") == ["NOT_FOUND"])
            let plain = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)
            let plainID = try #require(plain["id"]?.stringValue)
            #expect(try await Self.create(h, input: "customerId: $c, tpv: {orderId: $o}", variables: ["c": .string(customer), "o": .string(plainID)])
                .userErrorCodes("createTurboUpiSession") == ["INVALID_STATE"])

            // A client session of the owner links by its own order; the other customer's session cannot see it.
            let ownerToken = try await Self.clientSession(h, customer: customer)
            #expect(try await Self.create(h, input: "tpv: {orderId: $o}", variables: ["o": .string(orderID)], key: ownerToken)
                .userErrorCodes("createTurboUpiSession") == [])
            let otherToken = try await Self.clientSession(h, customer: other)
            #expect(try await Self.create(h, input: "tpv: {orderId: $o}", variables: ["o": .string(orderID)], key: otherToken)
                .userErrorCodes("createTurboUpiSession") == ["NOT_FOUND"])

            // A removed account can no longer be linked.
            _ = try await h.graphQL("mutation($id: ID!) { removeTpvBankAccount(input: {bankAccountId: $id}) { userErrors { code } } }",
                                    variables: ["id": .string(accountID)])
            #expect(try await Self.create(h, input: "customerId: $c, tpv: {bankAccountId: $a}", variables: vars)
                .userErrorCodes("createTurboUpiSession") == ["INVALID_STATE"])
        }
    }
}
