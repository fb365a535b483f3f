import Foundation
import HTTPServer
import HTTPTestSupport
import JSON
import Sandbox
import Testing

@Suite("Cashfree simulator over HTTP")
struct CashfreeSandboxTests {
    static let order = #"""
    {"order_id":"order_gw_0001","order_amount":10.10,"order_currency":"INR",
     "customer_details":{"customer_id":"USER123","customer_name":"joe","customer_email":"joe.s@cashfree.com","customer_phone":"9876543210"},
     "order_meta":{"return_url":"https://merchant.example.com/return?order_id={order_id}"},
     "order_note":"gateway test","order_tags":{"source":"gateway"}}
    """#

    @Test func refusesBadCredentialsAndMissingVersion() async throws {
        try await SandboxHarness.run { h in
            let none = try await h.send("GET", "/cashfree/pg/orders/x")
            #expect(none.status == 401)
            // samples/cashfree/error_401.json
            #expect(none.json == (try JSONParser.parse(#"{"message":"authentication Failed","code":"request_failed","type":"authentication_error"}"#)))
            let wrong = [("x-client-id", h.credentials.cashfreeClientID), ("x-client-secret", "cfsk_wrong"), ("x-api-version", "2025-01-01")]
            #expect(try await h.send("GET", "/cashfree/pg/orders/x", headers: wrong).status == 401)
            let noVersion = Array(h.cashfreeHeaders.prefix(2))
            let missing = try await h.send("GET", "/cashfree/pg/orders/x", headers: noVersion)
            #expect(missing.status == 400)
            #expect(missing["type"]?.stringValue == "invalid_request_error")
            let unknown = try await h.send("GET", "/cashfree/pg/orders/nope", headers: h.cashfreeHeaders)
            #expect(unknown.status == 404)
            #expect(unknown["code"]?.stringValue == "order_not_found")
        }
    }

    @Test func validatesAmountsAndCustomer() async throws {
        try await SandboxHarness.run { h in
            func create(_ amount: String, phone: String = "9876543210") async throws -> Reply {
                try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders,
                                 json: #"{"order_amount":\#(amount),"order_currency":"INR","customer_details":{"customer_id":"USER123","customer_phone":"\#(phone)"}}"#)
            }
            let tooPrecise = try await create("10.101")
            #expect(tooPrecise.status == 400)
            #expect(tooPrecise.json == (try JSONParser.parse(#"{"message":"order_amount : invalid value provided","code":"order_amount_invalid","type":"invalid_request_error","help":"Check latest errors and resolution from this link: https://www.cashfree.com/docs/api-reference/error-codes"}"#)))
            #expect(try await create("0.99").status == 400)
            #expect(try await create("-5").status == 400)
            #expect(try await create(#""10.10""#).status == 400)
            #expect(try await create("10", phone: "98765").status == 400)
            #expect(try await create("1").status == 200)
            #expect(try await create("10.100").status == 200)
            let noCustomer = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders,
                                              json: #"{"order_amount":10,"order_currency":"INR"}"#)
            #expect(noCustomer["code"]?.stringValue == "customer_details_missing")
            let http = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders,
                                        json: #"{"order_amount":10,"order_currency":"INR","customer_details":{"customer_id":"USER123","customer_phone":"9876543210"},"order_meta":{"notify_url":"http://merchant.example.com/hook"}}"#)
            #expect(http["code"]?.stringValue == "notify_url_invalid")
        }
    }

    @Test func createFetchDuplicateAndIdempotency() async throws {
        try await SandboxHarness.run { h in
            let key = [("x-idempotency-key", "6f1e6c1e-6d0a-4a43-9d1c-2b8ad1f7a001")]
            let created = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders + key, json: Self.order)
            #expect(created.status == 200, "\(created.text)")
            #expect(created["order_status"]?.stringValue == "ACTIVE")
            #expect(created["order_amount"] == .double(10.1))
            #expect(created["payment_session_id"]?.stringValue?.hasPrefix("session_") == true)
            #expect(created["order_meta"]?["return_url"]?.stringValue == "https://merchant.example.com/return?order_id=order_gw_0001")
            #expect(created["customer_details"]?["customer_uid"]?.isNull == true)
            #expect(created.json?.objectValue?.keys == ["cf_order_id", "order_id", "entity", "order_currency", "order_amount", "order_status",
                                                        "payment_session_id", "order_expiry_time", "order_note", "created_at",
                                                        "order_splits", "customer_details", "order_meta", "order_tags"])
            // Same key, same body: the first answer again, not a 409.
            let replay = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders + key, json: Self.order)
            #expect(replay.status == 200)
            #expect(replay.body == created.body)
            // Same key, another body: 422 idempotency_error.
            let other = Self.order.replacingOccurrences(of: "10.10", with: "11.00")
            let clash = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders + key, json: other)
            #expect(clash.status == 422)
            #expect(clash["type"]?.stringValue == "idempotency_error")
            #expect(clash["code"]?.stringValue == "request_invalid")
            // Without the key, reusing order_id is a 409.
            let duplicate = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: Self.order)
            #expect(duplicate.status == 409)
            #expect(duplicate["code"]?.stringValue == "order_already_exists")
            let fetched = try await h.send("GET", "/cashfree/pg/orders/order_gw_0001", headers: h.cashfreeHeaders)
            #expect(fetched["cf_order_id"] == created["cf_order_id"])
        }
    }

    @Test func paidOrderSendsSignedWebhookWithTwoDecimalAmounts() async throws {
        try await SandboxHarness.run { h in
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: Self.order)
            let done = try await h.complete("cashfree", "order_gw_0001")
            #expect(done.status == 200, "\(done.text)")
            #expect(done["order"]?["order_status"]?.stringValue == "PAID")
            #expect(done["payment"]?["payment_status"]?.stringValue == "SUCCESS")
            let hooks = await h.receiver.wait(for: 1)
            let hook = try #require(hooks.first)
            #expect(hook.path == "/webhooks/cashfree")
            let timestamp = try #require(hook.headers["x-webhook-timestamp"])
            let signature = try #require(hook.headers["x-webhook-signature"])
            #expect(Verify.cashfreeWebhook(body: hook.body, timestamp: timestamp, signature: signature, secret: h.credentials.cashfreeClientSecret))
            // Re-serialising the body (10.10 → 10.1) breaks the signature, as vector cf-wh-02 shows.
            #expect(hook.bodyText.contains(#""order_amount":10.10"#))
            let reserialised = JSONWriter.write(try JSONParser.parse(hook.body))
            #expect(!Verify.cashfreeWebhook(body: reserialised, timestamp: timestamp, signature: signature, secret: h.credentials.cashfreeClientSecret))
            #expect(hook.headers["x-webhook-version"] == "2025-01-01")
            let event = try JSONParser.parse(hook.body)
            #expect(event["type"]?.stringValue == "PAYMENT_SUCCESS_WEBHOOK")
            #expect(event["data"]?["payment"]?["cf_payment_id"] == done["payment"]?["cf_payment_id"])
            let fetched = try await h.send("GET", "/cashfree/pg/orders/order_gw_0001", headers: h.cashfreeHeaders)
            #expect(fetched["order_status"]?.stringValue == "PAID")
            let payments = try await h.send("GET", "/cashfree/pg/orders/order_gw_0001/payments", headers: h.cashfreeHeaders)
            #expect(payments.json?.arrayValue?.count == 1)
            #expect(try await h.complete("cashfree", "order_gw_0001").status == 409)
        }
    }

    @Test func failedAttemptKeepsOrderActiveAndExpiryEndsIt() async throws {
        try await SandboxHarness.run { h in
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: Self.order)
            let failed = try await h.complete("cashfree", "order_gw_0001", #""status":"failed","method":"credit_card""#)
            #expect(failed["order"]?["order_status"]?.stringValue == "ACTIVE")
            #expect(failed["payment"]?["error_details"]?["error_code"]?.stringValue == "TRANSACTION_DECLINED")
            let hook = try #require(await h.receiver.wait(for: 1).first)
            #expect((try JSONParser.parse(hook.body))["type"]?.stringValue == "PAYMENT_FAILED_WEBHOOK")
            let expired = try await h.complete("cashfree", "order_gw_0001", #""status":"expired""#)
            #expect(expired["order"]?["order_status"]?.stringValue == "EXPIRED")
            #expect(try await h.complete("cashfree", "order_gw_0001").status == 409)
        }
    }

    @Test func terminateAndRefunds() async throws {
        try await SandboxHarness.run { h in
            let other = Self.order.replacingOccurrences(of: "order_gw_0001", with: "order_gw_0002")
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: other)
            let terminated = try await h.send("PATCH", "/cashfree/pg/orders/order_gw_0002", headers: h.cashfreeHeaders,
                                              json: #"{"order_status":"TERMINATED"}"#)
            #expect(terminated["order_status"]?.stringValue == "TERMINATED")

            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: Self.order)
            let early = try await h.send("POST", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders,
                                         json: #"{"refund_amount":5.05,"refund_id":"refund_gw_0001"}"#)
            #expect(early.status == 400)
            _ = try await h.complete("cashfree", "order_gw_0001")
            let refund = try await h.send("POST", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders,
                                          json: #"{"refund_amount":5.05,"refund_id":"refund_gw_0001","refund_note":"partial refund","refund_speed":"STANDARD"}"#)
            #expect(refund.status == 200, "\(refund.text)")
            #expect(refund["refund_status"]?.stringValue == "SUCCESS")
            #expect(refund["refund_amount"] == .double(5.05))
            #expect(try await h.send("POST", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders,
                                     json: #"{"refund_amount":1,"refund_id":"refund_gw_0001"}"#).status == 409)
            let tooMuch = try await h.send("POST", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders,
                                           json: #"{"refund_amount":5.06,"refund_id":"refund_gw_0002"}"#)
            #expect(tooMuch["code"]?.stringValue == "refund_amount_invalid")
            let pending = try await h.send("POST", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders,
                                           json: #"{"refund_amount":5.05,"refund_id":"refund_gw_0003","refund_note":"PENDING"}"#)
            #expect(pending["refund_status"]?.stringValue == "PENDING")
            let list = try await h.send("GET", "/cashfree/pg/orders/order_gw_0001/refunds", headers: h.cashfreeHeaders)
            #expect(list.json?.arrayValue?.count == 2)
            let one = try await h.send("GET", "/cashfree/pg/orders/order_gw_0001/refunds/refund_gw_0001", headers: h.cashfreeHeaders)
            #expect(one["refund_arn"]?.stringValue != nil)
            // One REFUND_STATUS_WEBHOOK for the final refund (after the payment webhook), none for the pending one.
            let hooks = await h.receiver.wait(for: 2)
            let types = hooks.compactMap { (try? JSONParser.parse($0.body))?["type"]?.stringValue }
            #expect(types.sorted() == ["PAYMENT_SUCCESS_WEBHOOK", "REFUND_STATUS_WEBHOOK"])
        }
    }

    @Test func customers() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/cashfree/pg/customers", headers: h.cashfreeHeaders,
                                           json: #"{"customer_phone":"9999999999","customer_email":"joe@example.com","customer_name":"Joe"}"#)
            #expect(created.status == 200)
            #expect(created["customer_uid"]?.stringValue?.count == 36)
            let bad = try await h.send("POST", "/cashfree/pg/customers", headers: h.cashfreeHeaders, json: #"{"customer_name":"Joe"}"#)
            #expect(bad["code"]?.stringValue == "customer_phone_missing")
        }
    }
}
