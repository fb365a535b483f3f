import JSON
import Testing

/// Razorpay TPV orders in the simulator: the order keeps its `bank_account` (shown by the control API,
/// never by Razorpay's own answers), and a payment from another account fails.
@Suite struct RazorpayTPVSandboxTests {
    static let order = #"{"amount":500,"currency":"INR","method":"upi","receipt":"BILL13375649","bank_account":{"account_number":"765432123456789","name":"Gaurav Kumar","ifsc":"HDFC0000053"}}"#

    @Test func theOrderKeepsItsAccountOutOfItsAnswers() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order)
            #expect(created.status == 200)
            #expect(!created.text.contains("765432123456789"))
            let id = try #require(created["id"]?.stringValue)
            let fetched = try await h.send("GET", "/razorpay/v1/orders/\(id)", headers: h.razorpayAuth)
            #expect(!fetched.text.contains("765432123456789"))
            let inspected = try await h.send("GET", "/_sandbox/razorpay/orders/\(id)")
            #expect(inspected["bank_account"]?["account_number"]?.stringValue == "765432123456789")
            #expect(inspected["bank_account"]?["ifsc"]?.stringValue == "HDFC0000053")
            #expect(inspected["method"]?.stringValue == "upi")
            #expect(try await h.send("GET", "/_sandbox/razorpay/orders/order_unknown").status == 404)
            #expect(try await h.send("GET", "/_sandbox/instamojo/orders/\(id)").status == 404)
        }
    }

    @Test func aPaymentFromAnotherAccountFails() async throws {
        try await SandboxHarness.run { h in
            let id = try #require(try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order)["id"]?.stringValue)
            let wrong = try await h.complete("razorpay", id, #""status":"paid","account_number":"111122223333""#)
            #expect(wrong["payment"]?["status"]?.stringValue == "failed")
            #expect(wrong["payment"]?["error_reason"]?.stringValue == "bank_account_mismatch")
            #expect(wrong["order"]?["status"]?.stringValue == "attempted")
            let right = try await h.complete("razorpay", id, #""status":"paid","account_number":"765432123456789""#)
            #expect(right["payment"]?["status"]?.stringValue == "captured")
            #expect(right["order"]?["status"]?.stringValue == "paid")
        }
    }
}
