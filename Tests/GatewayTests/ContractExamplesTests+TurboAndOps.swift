import Foundation
import JSON
import Testing

/// The contract's TPV + Turbo UPI example (seed 000) and its ops dashboard example,
/// each operation run against the sandbox as an app or a dashboard would send it.
extension ContractExamplesTests {
    @Test func theTurboTPVExampleRunsAgainstTheSandbox() async throws {
        let text = try #require(try Self.examples().first { $0.name == "turbo_tpv.graphql" }?.text)
        try await GatewayHarness.run(configuration: TPVBankAccountTests.configuration) { h in
            let mobile = "9876543210"
            let customerAnswer = try await h.graphQLNamed(text, operation: "CreateCustomer", variables: [
                "in": ["name": "Gaurav Kumar", "email": "gaurav@example.com", "phone": .string(mobile), "idempotencyKey": "example-customer"],
            ])
            #expect(customerAnswer.userErrorCodes("createCustomer") == [], "\(customerAnswer.json)")
            let customer = try #require(customerAnswer.data("createCustomer")?["customer"]?["id"]?.stringValue)

            let tpv = try await h.graphQLNamed(text, operation: "AddTpv", variables: [
                "in": ["customerId": .string(customer), "accountNumber": .string(TPVBankAccountTests.number), "ifsc": "UTIB0000194",
                       "beneficiaryName": "Gaurav Kumar"],
            ])
            #expect(tpv.userErrorCodes("addTpvBankAccount") == [], "\(tpv.json)")
            let account = try #require(tpv.data("addTpvBankAccount")?["bankAccount"])
            #expect(account["last4"]?.stringValue == String(TPVBankAccountTests.number.suffix(4)))
            let accountID = try #require(account["id"]?.stringValue)

            let created = try await h.graphQLNamed(text, operation: "CreateTpvOrder", variables: [
                "in": ["amount": ["amount": "50000"], "customerId": .string(customer), "provider": "RAZORPAY", "flow": "TPV", "method": "UPI",
                       "tpvBankAccountId": .string(accountID)],
            ])
            #expect(created.userErrorCodes("createOrder") == [], "\(created.json)")
            let order = try #require(created.data("createOrder")?["order"])
            let orderID = try #require(order["id"]?.stringValue)
            #expect(order["checkout"]?["__typename"]?.stringValue == "RazorpayCheckout")
            #expect(order["checkout"]?["tpv"]?.boolValue == true)
            #expect(order["tpvBankAccount"]?["last4"] == account["last4"])
            let providerOrderID = try #require(order["checkout"]?["orderId"]?.stringValue)

            // The SDK's fetchToken: a session for this customer, linked to the TPV order.
            let session = try await h.graphQLNamed(text, operation: "Session", variables: [
                "in": ["customerId": .string(customer), "tpv": ["orderId": .string(orderID)]],
            ])
            #expect(session.userErrorCodes("createTurboUpiSession") == [], "\(session.json)")
            #expect(session.data("createTurboUpiSession")?["session"]?["token"]?.stringValue?.isEmpty == false)
            #expect(session.data("createTurboUpiSession")?["session"]?["customerReference"]?.stringValue == mobile)
            #expect(session.data("createTurboUpiSession")?["tpvLinking"]?["razorpayOrderId"]?.stringValue == providerOrderID)

            // The SDK reports the accounts it linked.
            let linked = try await h.graphQLNamed(text, operation: "Linked", variables: [
                "in": ["mobileNumber": .string(mobile), "customerId": .string(customer), "source": "LINK_NEW_ACCOUNT",
                       "accounts": .array([LinkedUpiAccountTests.account("XXXXXXXXXXX5661", ifsc: "UTIB0000194", bank: "Axis Bank")])],
            ])
            #expect(linked.userErrorCodes("syncLinkedUpiAccounts") == [], "\(linked.json)")
            #expect(linked.data("syncLinkedUpiAccounts")?["linkedUpiAccounts"]?.arrayValue?.count == 1)

            // Paid from the whitelisted account; the app's success callback is verified by PayQL.
            let completion = try await h.sandboxControl("/razorpay/orders/\(providerOrderID)/complete",
                                                        body: #"{"status":"paid","account_number":"\#(TPVBankAccountTests.number)"}"#)
            let checkout = try #require(completion["checkout"])
            let verify = try await h.graphQLNamed(text, operation: "Verify", variables: [
                "in": ["orderId": .string(orderID), "clientOutcome": "SUCCESS_CALLBACK",
                       "razorpay": ["razorpayPaymentId": checkout["razorpay_payment_id"] ?? .null,
                                    "razorpayOrderId": .string(providerOrderID),
                                    "razorpaySignature": checkout["razorpay_signature"] ?? .null]],
            ])
            #expect(verify.userErrorCodes("verifyOrderPayment") == [], "\(verify.json)")
            #expect(verify.data("verifyOrderPayment")?["verified"]?.boolValue == true)
            #expect(verify.data("verifyOrderPayment")?["order"]?["status"]?.stringValue == "PAID")
            #expect(verify.data("verifyOrderPayment")?["payment"]?["verified"]?.boolValue == true)

            let rewards = try await h.graphQLNamed(text, operation: "Rewards", variables: ["m": .string(mobile)])
            #expect(rewards.json["errors"] == nil, "\(rewards.json)")
            #expect(rewards.data("rewardEligibility")?["eligible"]?.boolValue != nil)
            #expect(rewards.data("linkedUpiAccounts")?.arrayValue?.count == 1)
        }
    }

    @Test func theOpsExampleRunsAgainstTheSandbox() async throws {
        let text = try #require(try Self.examples().first { $0.name == "ops.graphql" }?.text)
        try await GatewayHarness.run { h in
            let (_, payment) = try await RefundTests.paidOrder(h, provider: "RAZORPAY")
            let dash = try await h.graphQLNamed(text, operation: "Dash", variables: ["after": .null], key: h.opsKey)
            #expect(dash.json["errors"] == nil, "\(dash.json)")
            #expect(dash.data("orders")?["edges"]?.arrayValue != nil)
            let counts = dash.data("orderStatusCounts")?.arrayValue ?? []
            #expect(counts.contains { $0["status"]?.stringValue == "PAID" && $0["count"]?.intValue == 1 }, "\(counts)")
            #expect(dash.data("providers")?.arrayValue?.count == 4)
            // The example explains a TPV route without a customer: no provider can take it, and the answer says why.
            let explain = try #require(dash.data("routingExplain"))
            #expect(explain["provider"] == .null, "\(explain)")
            #expect(explain["reason"]?.stringValue?.contains("TPV") == true)
            let razorpay = explain["candidates"]?.arrayValue?.first { $0["provider"]?.stringValue == "RAZORPAY" }
            #expect(razorpay?["rejectionReasons"] == .array(["CUSTOMER_DATA_MISSING"]), "\(explain)")

            let refund = try await h.graphQLNamed(text, operation: "Refund", variables: ["p": .string(payment), "key": "ops-refund-1"], key: h.opsKey)
            #expect(refund.userErrorCodes("createRefund") == [], "\(refund.json)")
            #expect(refund.data("createRefund")?["refund"]?["amount"]?["amount"]?.stringValue == "10000")

            let node = try await h.graphQLNamed(text, operation: "N", variables: ["id": .string(payment)], key: h.opsKey)
            #expect(node.data("node")?["__typename"]?.stringValue == "Payment", "\(node.json)")
        }
    }
}
