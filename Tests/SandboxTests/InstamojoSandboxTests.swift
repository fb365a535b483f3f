import Foundation
import HTTPServer
import HTTPTestSupport
import JSON
import Sandbox
import Testing

@Suite("Instamojo simulator over HTTP")
struct InstamojoSandboxTests {
    static let form = [("Content-Type", "application/x-www-form-urlencoded")]

    @Test func oauthTokenErrorsAndBearer() async throws {
        try await SandboxHarness.run { h in
            let wrongGrant = try await h.send("POST", "/instamojo/oauth2/token/", headers: Self.form,
                                              body: Array("grant_type=password&client_id=x&client_secret=y".utf8))
            #expect(wrongGrant.status == 400)
            #expect(wrongGrant.json == (try JSONParser.parse(#"{"error":"unsupported_grant_type"}"#)))
            let wrongClient = try await h.send("POST", "/instamojo/oauth2/token/", headers: Self.form,
                                               body: Array("grant_type=client_credentials&client_id=x&client_secret=y".utf8))
            #expect(wrongClient.status == 401)
            #expect(wrongClient.json == (try JSONParser.parse(#"{"error":"invalid_client"}"#)))
            // JSON works as well as form data.
            let json = try await h.send("POST", "/instamojo/oauth2/token/",
                                        json: #"{"grant_type":"client_credentials","client_id":"\#(h.credentials.instamojoClientID)","client_secret":"\#(h.credentials.instamojoClientSecret)"}"#)
            #expect(json["token_type"]?.stringValue == "Bearer")
            #expect(json["expires_in"]?.intValue == 36000)
            let none = try await h.send("GET", "/instamojo/v2/payment_requests/")
            #expect(none.json == (try JSONParser.parse(#"{"success":false,"message":"Authentication credentials were not provided."}"#)))
            #expect(try await h.send("GET", "/instamojo/v2/payment_requests/", headers: [("Authorization", "Bearer nope")]).status == 401)
            let auth = try await h.instamojoToken()
            #expect(try await h.send("GET", "/instamojo/v2/payment_requests/", headers: auth).status == 200)
            // Expiring tokens (control API) makes the client fetch a new one.
            #expect(try await h.send("POST", "/_sandbox/instamojo/tokens/expire").status == 200)
            #expect(try await h.send("GET", "/instamojo/v2/payment_requests/", headers: auth).status == 401)
            // The trailing slash is part of the path.
            #expect(try await h.send("GET", "/instamojo/v2/payment_requests", headers: try await h.instamojoToken()).status == 404)
        }
    }

    @Test func paymentRequestValidationIsFieldKeyed() async throws {
        try await SandboxHarness.run { h in
            let auth = try await h.instamojoToken()
            let empty = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: auth + Self.form, body: [])
            #expect(empty.status == 400)
            // samples/instamojo/error_example.json
            #expect(empty.json == (try JSONParser.parse(#"{"purpose":["This field is required."],"amount":["This field is required."]}"#)))
            for (amount, fragment) in [("8.99", "greater than or equal to 9"), ("200000.01", "less than or equal to 200000"),
                                       ("10.101", "no more than 2 decimal places"), ("ten", "valid number")] {
                let reply = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: auth + Self.form,
                                             body: Array("purpose=x&amount=\(amount)".utf8))
                #expect(reply.status == 400)
                #expect(reply["amount"]?.arrayValue?.first?.stringValue?.contains(fragment) == true, "\(amount): \(reply.text)")
            }
            let smsWithoutPhone = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: auth + Self.form,
                                                   body: Array("purpose=x&amount=10&send_sms=true".utf8))
            #expect(smsWithoutPhone["phone"] != nil)
        }
    }

    @Test func paymentRequestPaidSendsFormWebhookWithValidMAC() async throws {
        try await SandboxHarness.run { h in
            let auth = try await h.instamojoToken()
            let body = "purpose=FIFA+16&amount=2500&buyer_name=Jon+Snow&email=jon%2Bsnow%40example.com&phone=9999999990"
                + "&redirect_url=https%3A%2F%2Fmerchant.example.com%2Fredirect&allow_repeated_payments=false"
            let created = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: auth + Self.form, body: Array(body.utf8))
            #expect(created.status == 201, "\(created.text)")
            #expect(created["amount"]?.stringValue == "2500.00")
            #expect(created["phone"]?.stringValue == "+919999999990")
            #expect(created["status"]?.stringValue == "Pending")
            let id = try #require(created["id"]?.stringValue)
            #expect(id.count == 32)
            #expect(created["longurl"]?.stringValue?.hasPrefix(h.sandbox.baseURL) == true)
            let done = try await h.complete("instamojo", id)
            #expect(done.status == 200, "\(done.text)")
            #expect(done["order"]?["status"]?.stringValue == "Completed")
            let paymentID = try #require(done["payment"]?["id"]?.stringValue)
            let hook = try #require(await h.receiver.wait(for: 1).first)
            #expect(hook.path == "/webhooks/instamojo")
            #expect(hook.headers["Content-Type"] == "application/x-www-form-urlencoded")
            let fields = decodeForm(hook.bodyText)
            let value = { (name: String) in fields.first { $0.0 == name }?.1 }
            #expect(value("status") == "Credit")
            #expect(value("payment_id") == paymentID)
            #expect(value("payment_request_id") == id)
            #expect(value("amount") == "2500.00")
            #expect(value("buyer") == "jon+snow@example.com")
            let mac = try #require(value("mac"))
            #expect(SHA1Check.mac(fields: fields, salt: h.credentials.instamojoPrivateSalt) == mac)
            #expect(SHA1Check.mac(fields: fields, salt: "another salt") != mac)
            let payment = try await h.send("GET", "/instamojo/v2/payments/\(paymentID)/", headers: auth)
            #expect(payment["status"]?.boolValue == true)
            #expect(payment["amount"]?.stringValue == "2500.00")
            let fetched = try await h.send("GET", "/instamojo/v2/payment_requests/\(id)/", headers: auth)
            #expect(fetched["payments"]?.arrayValue?.count == 1)
            #expect(try await h.complete("instamojo", id).status == 409)
        }
    }

    @Test func gatewayOrderCheckoutOptionsUPICollectAndRefund() async throws {
        try await SandboxHarness.run { h in
            let auth = try await h.instamojoToken()
            let order = #"{"name":"John Smith","email":"john.smith@example.com","phone":"9999999999","amount":"9","currency":"INR","transaction_id":"gw_txn_0001","redirect_url":"https://merchant.example.com/instamojo/redirect"}"#
            let created = try await h.send("POST", "/instamojo/v2/gateway/orders/", headers: auth, json: order)
            #expect(created.status == 201, "\(created.text)")
            let orderID = try #require(created["order"]?["id"]?.stringValue)
            #expect(created["payment_options"]?["payment_url"]?.stringValue != nil)
            let again = try await h.send("POST", "/instamojo/v2/gateway/orders/", headers: auth, json: order)
            #expect(again["transaction_id"] != nil)
            let byTxn = try await h.send("GET", "/instamojo/v2/gateway/orders/transaction_id:gw_txn_0001/", headers: auth)
            #expect(byTxn["id"]?.stringValue == orderID)
            let options = try await h.send("GET", "/instamojo/v2/gateway/orders/\(orderID)/checkout-options/")
            let paymentOptions = try #require(options["payment_options"])
            #expect(paymentOptions["netbanking_options"]?["choices"]?.arrayValue?.isEmpty == false)
            let emi = try #require(paymentOptions["emi_options"]?["emi_list"]?.arrayValue?.first)
            #expect(emi["rates"]?.arrayValue?.first?["tenure"]?.intValue == 3)
            #expect(paymentOptions["wallet_options"]?["choices"]?.arrayValue?.isEmpty == false)
            let upiURL = try #require(paymentOptions["upi_options"]?["submission_url"]?.stringValue)
            let upiPath = String(upiURL.dropFirst(h.sandbox.baseURL.count))
            let badVPA = try await h.send("POST", upiPath, headers: Self.form, body: Array("virtual_address=not-a-vpa".utf8))
            #expect(badVPA.status == 400)
            let collect = try await h.send("POST", upiPath, headers: Self.form, body: Array("virtual_address=buyer%40okhdfc".utf8))
            #expect(collect["status_code"]?.intValue == 2)
            let statusURL = try #require(collect["status_check_url"]?.stringValue)
            let statusPath = String(statusURL.dropFirst(h.sandbox.baseURL.count))
            #expect(try await h.send("GET", statusPath)["status_code"]?.intValue == 2)
            let done = try await h.complete("instamojo", orderID)
            #expect(done["order"]?["status"]?.stringValue == "completed")
            let paymentID = try #require(collect["payment_id"]?.stringValue)
            #expect(done["payment"]?["id"]?.stringValue == paymentID)
            #expect(try await h.send("GET", statusPath)["status_code"]?.intValue == 5)
            // Refund: type and transaction_id are required; a reused transaction_id is a replay.
            let missing = try await h.send("POST", "/instamojo/v2/payments/\(paymentID)/refund/", headers: auth + Self.form,
                                           body: Array("body=Customer+is+not+satisfied.".utf8))
            #expect(missing["type"] != nil)
            #expect(missing["transaction_id"] != nil)
            let refund = try await h.send("POST", "/instamojo/v2/payments/\(paymentID)/refund/", headers: auth + Self.form,
                                          body: Array("type=QFL&body=Customer+is+not+satisfied.&refund_amount=4&transaction_id=gw_refund_0001".utf8))
            #expect(refund.status == 201, "\(refund.text)")
            #expect(refund["success"]?.boolValue == true)
            #expect(refund["refund"]?["status"]?.stringValue == "Refunded")
            #expect(refund["refund"]?["total_amount"]?.stringValue == "9.00")
            let replay = try await h.send("POST", "/instamojo/v2/payments/\(paymentID)/refund/", headers: auth + Self.form,
                                          body: Array("type=QFL&body=again&refund_amount=1&transaction_id=gw_refund_0001".utf8))
            #expect(replay.status == 400)
            let caseID = try #require(refund["refund"]?["id"]?.stringValue)
            let refundCase = try await h.send("GET", "/instamojo/v2/resolutioncenter/cases/\(caseID)/", headers: auth)
            #expect(refundCase["resolution_status"]?.stringValue == "FINI_CONC")
            #expect(refundCase["refund_amount"]?.stringValue == "4.00")
        }
    }

    @Test func orderFromPaymentRequestCompletesBoth() async throws {
        try await SandboxHarness.run { h in
            let auth = try await h.instamojoToken()
            let created = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: auth + Self.form,
                                           body: Array("purpose=Bill&amount=100&buyer_name=Jon&email=jon%40example.com&phone=9999999990".utf8))
            let requestID = try #require(created["id"]?.stringValue)
            let order = try await h.send("POST", "/instamojo/v2/gateway/orders/payment-request/", headers: auth + Self.form,
                                         body: Array("id=\(requestID)".utf8))
            #expect(order.status == 201)
            let orderID = try #require(order["order_id"]?.stringValue)
            #expect(orderID.count == 36)
            #expect(order["amount"]?.stringValue == "100.00")
            let failed = try await h.complete("instamojo", orderID, #""status":"failed","method":"CARD""#)
            #expect(failed["payment"]?["status"]?.boolValue == false)
            #expect(failed["payment"]?["failure"]?["reason"]?.stringValue == "AUTHORIZATION_FAILED")
            let hook = try #require(await h.receiver.wait(for: 1).first)
            let fields = decodeForm(hook.bodyText)
            #expect(fields.first { $0.0 == "status" }?.1 == "Failed")
            #expect(fields.first { $0.0 == "payment_request_id" }?.1 == requestID)
        }
    }
}

/// Instamojo's MAC, recomputed with the sandbox's SHA-1 (itself checked against the imj-* vectors).
enum SHA1Check {
    static func mac(fields: [(String, String)], salt: String) -> String {
        SandboxTestAccess.instamojoMAC(fields: fields, salt: salt)
    }
}
