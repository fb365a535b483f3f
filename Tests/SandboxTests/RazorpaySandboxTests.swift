import Crypto
import Foundation
import HTTPServer
import HTTPTestSupport
import JSON
import Sandbox
import Testing

@Suite("Razorpay simulator over HTTP")
struct RazorpaySandboxTests {
    @Test func refusesMissingOrWrongCredentials() async throws {
        try await SandboxHarness.run { h in
            let none = try await h.send("GET", "/razorpay/v1/orders")
            #expect(none.status == 401)
            #expect(none["error"]?["code"]?.stringValue == "BAD_REQUEST_ERROR")
            let wrongSecret = "Basic " + Encoding.base64(Array("\(h.credentials.razorpayKeyID):nope".utf8))
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: [("Authorization", wrongSecret)]).status == 401)
            // The scheme word must be exactly `Basic`.
            let lower = h.razorpayAuth[0].value.replacingOccurrences(of: "Basic", with: "basic")
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: [("Authorization", lower)]).status == 401)
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: h.razorpayAuth).status == 200)
        }
    }

    @Test func validatesOrdersWithRazorpaysErrorShape() async throws {
        try await SandboxHarness.run { h in
            let small = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":99,"currency":"INR"}"#)
            #expect(small.status == 400)
            let error = try #require(small["error"])
            #expect(error["description"]?.stringValue == "The amount must be at least INR 1.00")
            #expect(error["field"]?.stringValue == "amount")
            #expect(error["reason"]?.stringValue == "input_validation_failed")
            #expect(error["metadata"]?.objectValue?.count == 0)
            let noCurrency = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":5000}"#)
            #expect(noCurrency["error"]?["field"]?.stringValue == "currency")
            let fraction = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":100.5,"currency":"INR"}"#)
            #expect(fraction.status == 400)
            let longReceipt = String(repeating: "r", count: 41)
            let receipt = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                           json: #"{"amount":5000,"currency":"INR","receipt":"\#(longReceipt)"}"#)
            #expect(receipt["error"]?["field"]?.stringValue == "receipt")
            let tpvWithoutIFSC = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                                  json: #"{"amount":500,"currency":"INR","method":"upi","bank_account":{"account_number":"765432123456789","name":"Gaurav"}}"#)
            #expect(tpvWithoutIFSC["error"]?["field"]?.stringValue == "bank_account.ifsc")
            let unknown = try await h.send("GET", "/razorpay/v1/orders/order_DoesNotExist00", headers: h.razorpayAuth)
            #expect(unknown.status == 400)
            #expect(unknown["error"]?["description"]?.stringValue == "The id provided does not exist")
        }
    }

    @Test func customersCreateFetchListAndFailExisting() async throws {
        try await SandboxHarness.run { h in
            let body = #"{"name":"Gaurav Kumar","contact":"9123456780","email":"gaurav.kumar@example.com","notes":{"k":"v"}}"#
            let created = try await h.send("POST", "/razorpay/v1/customers", headers: h.razorpayAuth, json: body)
            #expect(created.status == 200)
            let id = try #require(created["id"]?.stringValue)
            #expect(id.hasPrefix("cust_") && id.count == 19)
            #expect(created.json?.objectValue?.keys == ["id", "entity", "name", "email", "contact", "gstin", "notes", "created_at"])
            // fail_existing defaults to "1": the same details again is an error …
            let again = try await h.send("POST", "/razorpay/v1/customers", headers: h.razorpayAuth, json: body)
            #expect(again.status == 400)
            // … and "0" returns the existing customer.
            let existing = try await h.send("POST", "/razorpay/v1/customers", headers: h.razorpayAuth,
                                            json: #"{"name":"Gaurav Kumar","contact":"9123456780","email":"gaurav.kumar@example.com","fail_existing":"0"}"#)
            #expect(existing["id"]?.stringValue == id)
            let fetched = try await h.send("GET", "/razorpay/v1/customers/\(id)", headers: h.razorpayAuth)
            #expect(fetched["notes"]?["k"]?.stringValue == "v")
            let list = try await h.send("GET", "/razorpay/v1/customers?count=5", headers: h.razorpayAuth)
            #expect(list["entity"]?.stringValue == "collection")
            #expect(list["count"]?.intValue == 1)
            // The exact error of samples/razorpay/error_bad_request.json.
            let shortContact = try await h.send("POST", "/razorpay/v1/customers", headers: h.razorpayAuth, json: #"{"contact":"1234567"}"#)
            let expected = try JSONParser.parse(#"{"error":{"code":"BAD_REQUEST_ERROR","description":"Contact number should be at least 8 digits, including country code","source":"business","step":"NA","reason":"invalid_contact_number","metadata":{},"field":"contact"}}"#)
            #expect(shortContact.status == 400)
            #expect(shortContact.json == expected)
        }
    }

    @Test func bankAccountsAddAndDelete() async throws {
        try await SandboxHarness.run { h in
            let customer = try await h.send("POST", "/razorpay/v1/customers", headers: h.razorpayAuth, json: #"{"name":"Gaurav Kumar"}"#)
            let id = try #require(customer["id"]?.stringValue)
            let missing = try await h.send("POST", "/razorpay/v1/customers/\(id)/bank_account", headers: h.razorpayAuth,
                                           json: #"{"account_number":"916010082985661","beneficiary_name":"Gaurav"}"#)
            #expect(missing["error"]?["field"]?.stringValue == "ifsc_code")
            let added = try await h.send("POST", "/razorpay/v1/customers/\(id)/bank_account", headers: h.razorpayAuth,
                                         json: #"{"ifsc_code":"UTIB0000194","account_number":"916010082985661","beneficiary_name":"Gaurav"}"#)
            #expect(added["entity"]?.stringValue == "bank_account")
            #expect(added["account_number"]?.stringValue == "XXXXXXXXXXX5661")
            #expect(added["bank_name"]?.stringValue == "Axis Bank")
            let accountID = try #require(added["id"]?.stringValue)
            let deleted = try await h.send("DELETE", "/razorpay/v1/customers/\(id)/bank_account/\(accountID)", headers: h.razorpayAuth)
            #expect(deleted["status"]?.stringValue == "deleted")
            #expect(try await h.send("DELETE", "/razorpay/v1/customers/\(id)/bank_account/\(accountID)", headers: h.razorpayAuth).status == 400)
        }
    }

    @Test func paidOrderSendsSignedWebhooksAndCheckoutSignature() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                           json: #"{"amount":50000,"currency":"INR","receipt":"receipt#1","notes":{"a":"b"}}"#)
            #expect(created.status == 200)
            #expect(created.json?.objectValue?.keys == ["id", "entity", "amount", "amount_paid", "amount_due", "currency", "receipt",
                                                        "offer_id", "status", "attempts", "notes", "created_at"])
            let orderID = try #require(created["id"]?.stringValue)
            #expect(created["status"]?.stringValue == "created")
            let done = try await h.complete("razorpay", orderID)
            #expect(done.status == 200, "\(done.text)")
            #expect(done["order"]?["status"]?.stringValue == "paid")
            #expect(done["order"]?["amount_due"]?.intValue == 0)
            let paymentID = try #require(done["payment"]?["id"]?.stringValue)
            #expect(done["payment"]?["status"]?.stringValue == "captured")
            // What Checkout hands the frontend verifies with the key secret.
            let checkout = try #require(done["checkout"])
            #expect(Verify.razorpayPayment(orderID: orderID, paymentID: paymentID,
                                           signature: try #require(checkout["razorpay_signature"]?.stringValue),
                                           secret: h.credentials.razorpayKeySecret))
            #expect(done["webhooks"]?.arrayValue?.allSatisfy { $0["status"]?.intValue == 200 } == true)
            // Three events, each signed over its raw body with the webhook secret (not the key secret).
            let hooks = await h.receiver.wait(for: 3)
            #expect(hooks.count == 3)
            #expect(hooks.map { $0.path } == Array(repeating: "/webhooks/razorpay", count: 3))
            let events = hooks.compactMap { (try? JSONParser.parse($0.body))?["event"]?.stringValue }
            #expect(events == ["payment.authorized", "payment.captured", "order.paid"])
            for hook in hooks {
                let signature = try #require(hook.headers["X-Razorpay-Signature"])
                #expect(Verify.razorpayWebhook(body: hook.body, signature: signature, secret: h.credentials.razorpayWebhookSecret))
                #expect(!Verify.razorpayWebhook(body: hook.body, signature: signature, secret: h.credentials.razorpayKeySecret))
                #expect(hook.headers["x-razorpay-event-id"] != nil)
            }
            let orderPaid = try JSONParser.parse(hooks[2].body)
            #expect(orderPaid["payload"]?["order"]?["entity"]?["status"]?.stringValue == "paid")
            #expect(orderPaid["payload"]?["payment"]?["entity"]?["id"]?.stringValue == paymentID)
            // The API now shows the paid order and its payment.
            let fetched = try await h.send("GET", "/razorpay/v1/orders/\(orderID)", headers: h.razorpayAuth)
            #expect(fetched["status"]?.stringValue == "paid")
            #expect(fetched["attempts"]?.intValue == 1)
            let payments = try await h.send("GET", "/razorpay/v1/orders/\(orderID)/payments", headers: h.razorpayAuth)
            #expect(payments["items"]?.arrayValue?.first?["id"]?.stringValue == paymentID)
            // A paid order cannot be completed again.
            #expect(try await h.complete("razorpay", orderID).status == 409)
        }
    }

    @Test func failedThenAuthorizedThenCapturedLifecycle() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":1000,"currency":"INR"}"#)
            let orderID = try #require(created["id"]?.stringValue)
            let failed = try await h.complete("razorpay", orderID, #""status":"failed""#)
            #expect(failed["order"]?["status"]?.stringValue == "attempted")
            #expect(failed["payment"]?["status"]?.stringValue == "failed")
            #expect(failed["payment"]?["error_reason"]?.stringValue == "payment_cancelled")
            #expect(failed["checkout"] == nil)
            let authorized = try await h.complete("razorpay", orderID, #""status":"authorized","method":"card""#)
            #expect(authorized["order"]?["status"]?.stringValue == "attempted")
            let paymentID = try #require(authorized["payment"]?["id"]?.stringValue)
            #expect(authorized["payment"]?["captured"]?.boolValue == false)
            // Capture must name the authorized amount.
            let wrong = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/capture", headers: h.razorpayAuth,
                                         json: #"{"amount":999,"currency":"INR"}"#)
            #expect(wrong.status == 400)
            let captured = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/capture", headers: h.razorpayAuth,
                                            json: #"{"amount":1000,"currency":"INR"}"#)
            #expect(captured["status"]?.stringValue == "captured")
            let order = try await h.send("GET", "/razorpay/v1/orders/\(orderID)", headers: h.razorpayAuth)
            #expect(order["status"]?.stringValue == "paid")
            #expect(order["attempts"]?.intValue == 2)
            let events = await h.receiver.wait(for: 4).compactMap { (try? JSONParser.parse($0.body))?["event"]?.stringValue }
            #expect(events == ["payment.failed", "payment.authorized", "payment.captured", "order.paid"])
            let expired = try await h.complete("razorpay", orderID, #""status":"expired""#)
            #expect(expired.status == 400)
        }
    }

    @Test func failedPaymentCapturedLate() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":2000,"currency":"INR"}"#)
            let orderID = try #require(created["id"]?.stringValue)
            let failed = try await h.complete("razorpay", orderID, #""status":"failed""#)
            let paymentID = try #require(failed["payment"]?["id"]?.stringValue)
            #expect(try await h.complete("razorpay", orderID, #""status":"failed","payment_id":"\#(paymentID)""#).status == 400)
            #expect(try await h.complete("razorpay", orderID, #""status":"paid","payment_id":"pay_Unknown0000000""#).status == 404)
            let late = try await h.complete("razorpay", orderID, #""status":"paid","payment_id":"\#(paymentID)""#)
            #expect(late["payment"]?["status"]?.stringValue == "captured")
            #expect(late["payment"]?["error_code"]?.isNull == true)
            #expect(late["order"]?["status"]?.stringValue == "paid")
            let events = await h.receiver.wait(for: 3).compactMap { (try? JSONParser.parse($0.body))?["event"]?.stringValue }
            #expect(events == ["payment.failed", "payment.captured", "order.paid"])
            let payments = try await h.send("GET", "/razorpay/v1/orders/\(orderID)/payments", headers: h.razorpayAuth)
            #expect(payments["count"]?.intValue == 1)
        }
    }

    @Test func refundsWithIdempotencyKey() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":10000,"currency":"INR"}"#)
            let orderID = try #require(created["id"]?.stringValue)
            let paymentID = try #require(try await h.complete("razorpay", orderID)["payment"]?["id"]?.stringValue)
            let key = [("X-Refund-Idempotency", "refund-key-0001")]
            let first = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/refund", headers: h.razorpayAuth + key,
                                         json: #"{"amount":4000,"speed":"normal"}"#)
            #expect(first.status == 200)
            #expect(first["status"]?.stringValue == "processed")
            #expect(first["speed_requested"]?.stringValue == "normal")
            let refundID = try #require(first["id"]?.stringValue)
            // Same key, same body: the same refund.
            let replay = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/refund", headers: h.razorpayAuth + key,
                                          json: #"{"amount":4000,"speed":"normal"}"#)
            #expect(replay["id"]?.stringValue == refundID)
            // Same key, another body: samples/razorpay/error_refund_idempotency.json.
            let clash = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/refund", headers: h.razorpayAuth + key,
                                         json: #"{"amount":5000}"#)
            #expect(clash.status == 400)
            #expect(clash["error"]?["description"]?.stringValue == "Different request with the same idempotency key has already been processed.")
            // More than what is left is refused; the rest is allowed through POST /v1/refunds.
            let tooMuch = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/refund", headers: h.razorpayAuth, json: #"{"amount":7000}"#)
            #expect(tooMuch.status == 400)
            let rest = try await h.send("POST", "/razorpay/v1/refunds", headers: h.razorpayAuth, json: #"{"payment_id":"\#(paymentID)"}"#)
            #expect(rest["amount"]?.intValue == 6000)
            let payment = try await h.send("GET", "/razorpay/v1/payments/\(paymentID)", headers: h.razorpayAuth)
            #expect(payment["status"]?.stringValue == "refunded")
            #expect(payment["refund_status"]?.stringValue == "full")
            #expect(payment["amount_refunded"]?.intValue == 10000)
            let refunds = try await h.send("GET", "/razorpay/v1/payments/\(paymentID)/refunds", headers: h.razorpayAuth)
            #expect(refunds["count"]?.intValue == 2)
            #expect(try await h.send("GET", "/razorpay/v1/refunds/\(refundID)", headers: h.razorpayAuth)["amount"]?.intValue == 4000)
        }
    }

    @Test func turboSession() async throws {
        try await SandboxHarness.run { h in
            let missing = try await h.send("POST", "/razorpay/v1/upi/turbo/customer/session", headers: h.razorpayAuth, json: "{}")
            #expect(missing["error"]?["reason"]?.stringValue == "customer_reference_field_is_missing")
            let session = try await h.send("POST", "/razorpay/v1/upi/turbo/customer/session", headers: h.razorpayAuth,
                                           json: #"{"customer_reference":"9000090000"}"#)
            #expect(session["token"]?.stringValue?.isEmpty == false)
            let expiry = try #require(session["expire_at"]?.intValue)
            #expect(expiry > Int64(Date().timeIntervalSince1970))
        }
    }
}
