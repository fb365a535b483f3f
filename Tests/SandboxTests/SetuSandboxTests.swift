import Foundation
import HTTPServer
import HTTPTestSupport
import JSON
import Sandbox
import Synchronization
import Testing

@Suite("Setu simulator over HTTP")
struct SetuSandboxTests {
    static let link = #"{"mobileNumber":"9876543210","custID":"cust@1234","orgId":"11321101108211244842","categoryName":"Water","billerId":"BBPSDUMMY001","billParams":[{"name":"Consumer Number","value":"1895159"}],"additionalInfo":{"appSession":"abc"}}"#

    @Test func tokenAndLinkAuthentication() async throws {
        try await SandboxHarness.run { h in
            let wrong = try await h.send("POST", "/setu/api/v2/auth/token", json: #"{"clientID":"x","secret":"y"}"#)
            #expect(wrong.status == 401)
            #expect(wrong["success"]?.boolValue == false)
            #expect(wrong["traceId"]?.stringValue != nil)
            #expect(wrong["error"]?["code"]?.stringValue != nil)
            let token = try await h.send("POST", "/setu/api/v2/auth/token",
                                         json: #"{"clientID":"\#(h.credentials.setuClientID)","secret":"\#(h.credentials.setuSecret)"}"#)
            #expect(token.json?.objectValue?.keys == ["expiresIn", "token", "success", "traceId"])
            #expect(token["token"]?.stringValue?.split(separator: ".").count == 3)
            let headers = try await h.setuHeaders()
            #expect(try await h.send("POST", "/setu/api/v2/ethereal/link", json: Self.link).status == 401)
            #expect(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: [headers[0]], json: Self.link).status == 401)
            #expect(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: [headers[0], ("X-PARTNER-ID", "42")], json: Self.link).status == 401)
            let created = try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link)
            #expect(created.status == 200, "\(created.text)")
            #expect(created["success"]?.boolValue == true)
            let link = try #require(created["link"]?.stringValue)
            let session = try #require(created["sessionId"]?.stringValue)
            #expect(link.hasSuffix(session))
            #expect(try await h.send("GET", String(link.dropFirst(h.sandbox.baseURL.count)))["billerId"]?.stringValue == "BBPSDUMMY001")
            let bad = try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: #"{"orgId":"1","mobileNumber":"12ab"}"#)
            #expect(bad.status == 400)
            #expect(bad["error"]?["code"]?.stringValue == "invalid-mobile-number")
            let noOrg = try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: #"{"mobileNumber":"9876543210"}"#)
            #expect(noOrg.status == 400)
            #expect(try await h.send("POST", "/_sandbox/setu/tokens/expire").status == 200)
            #expect(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link).status == 401)
        }
    }

    @Test func paymentEventThenBillPaidWebhook() async throws {
        try await SandboxHarness.run { h in
            let headers = try await h.setuHeaders()
            let session = try #require(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link)["sessionId"]?.stringValue)
            let initiated = try await h.send("POST", "/_sandbox/setu/links/\(session)/initiate",
                                             json: #"{"amount":"3522.20","allowedPaymentModes":"UPI,NETBANKING"}"#)
            #expect(initiated.status == 200, "\(initiated.text)")
            let orderID = try #require(initiated["orderId"]?.stringValue)
            #expect(orderID.hasPrefix("COUWL"))
            #expect(initiated.json?.objectValue?.keys == ["orderId", "amount", "postPaymentUrl", "customerMobileNumber", "customerId", "allowedPaymentModes"])
            // Setu settles only after the partner confirms the payment.
            #expect(try await h.complete("setu", orderID).status == 409)
            let partner = [("X-PARTNER-ID", h.credentials.setuPartnerID)]
            func event(_ fields: String) async throws -> Reply {
                try await h.send("POST", "/setu/api/v2/webhooks/payment-event", headers: partner,
                                 json: #"{"orderId":"\#(orderID)","transactionId":"407012345678","paymentDateTime":"2024-03-19 12:30:45",\#(fields)}"#)
            }
            #expect(try await event(#""amount":"3522.20","paymentMode":"UPI","paymentStatus":"SUCCESS""#).status == 200)
            #expect(try await event(#""amount":"3522.20","paymentMode":"UPI","paymentStatus":"SUCCESS""#)["status"]?.stringValue == "acknowledged")
            let done = try await h.complete("setu", orderID)
            #expect(done.status == 200, "\(done.text)")
            let hook = try #require(await h.receiver.wait(for: 1).first)
            #expect(hook.path == "/webhooks/setu")
            #expect(hook.headers["X-BILL-WEBHOOK-API-KEY"] == h.credentials.setuWebhookKey)
            let body = try JSONParser.parse(hook.body)
            #expect(body["event"]?.stringValue == "bill_payment_success")
            #expect(body["status"]?.stringValue == "PAYMENT_SUCCESS")
            #expect(body["orderId"]?.stringValue == orderID)
            #expect(body["amountPaid"]?.stringValue == "3522.20")
            #expect(body["billDetails"]?.arrayValue?.count == 1)
            // The static key is a secret: the webhook log shows it redacted.
            let log = try #require(try await h.send("GET", "/_sandbox/webhooks").json?.arrayValue?.first)
            #expect(log["headers"]?["X-BILL-WEBHOOK-API-KEY"]?.stringValue == "****")
            #expect(!(try await h.send("GET", "/_sandbox/webhooks").text.contains(h.credentials.setuWebhookKey)))
        }
    }

    @Test func billFetchSendsTheFetchUserEvents() async throws {
        try await SandboxHarness.run { h in
            let headers = try await h.setuHeaders()
            let session = try #require(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link)["sessionId"]?.stringValue)
            #expect(try await h.send("POST", "/_sandbox/setu/links/0000/fetch", json: "{}").status == 404)
            #expect(try await h.send("POST", "/_sandbox/setu/links/\(session)/fetch", json: #"{"status":"paid"}"#).status == 400)
            #expect(try await h.send("POST", "/_sandbox/setu/links/\(session)/fetch", json: #"{"amount":"-1"}"#).status == 400)
            #expect(try await h.send("POST", "/_sandbox/setu/links/\(session)/fetch", json: "[]").status == 400)

            let fetched = try await h.send("POST", "/_sandbox/setu/links/\(session)/fetch", json: #"{"amount":"101.00"}"#)
            #expect(fetched.status == 200, "\(fetched.text)")
            let success = try JSONParser.parse(try #require(await h.receiver.wait(for: 1).first).body)
            #expect(success["event"]?.stringValue == "bill_fetch_success")
            #expect(success["status"]?.stringValue == "FETCH_SUCCESS")
            #expect(success["sessionId"]?.stringValue == session)
            #expect(success["billAmount"]?.stringValue == "101.00")
            #expect(success["billDetails"]?.arrayValue?.first?["billAmount"]?.stringValue == "101.00")
            #expect(success["refId"]?.stringValue?.hasPrefix("CMA") == true)

            _ = try await h.send("POST", "/_sandbox/setu/links/\(session)/fetch", json: #"{"status":"failure","code":"bill-not-found"}"#)
            let hooks = await h.receiver.wait(for: 2)
            let failure = try JSONParser.parse(try #require(hooks.last).body)
            #expect(failure["event"]?.stringValue == "bill_fetch_failure")
            #expect(failure["status"]?.stringValue == "FETCH_FAILURE")
            #expect(failure["fetchErrorCode"]?.stringValue == "bill-not-found")
            #expect(failure["error"]?["code"]?.stringValue == "bill-not-found")
            #expect(failure["billDetails"] == nil)
        }
    }

    @Test func paymentEventValidation() async throws {
        try await SandboxHarness.run { h in
            let headers = try await h.setuHeaders()
            let session = try #require(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link)["sessionId"]?.stringValue)
            let orderID = try #require(try await h.send("POST", "/_sandbox/setu/links/\(session)/initiate",
                                                        json: #"{"amount":"100.00","allowedPaymentModes":"UPI,NETBANKING"}"#)["orderId"]?.stringValue)
            let partner = [("X-PARTNER-ID", h.credentials.setuPartnerID)]
            func event(_ json: String, headers: [(name: String, value: String)]? = nil) async throws -> Reply {
                try await h.send("POST", "/setu/api/v2/webhooks/payment-event", headers: headers ?? partner, json: json)
            }
            let base = #""orderId":"\#(orderID)","transactionId":"T1","paymentDateTime":"2024-03-19 12:30:45""#
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"UPI\",\"paymentStatus\":\"SUCCESS\"}", headers: []).status == 401)
            #expect(try await event("{\(base),\"amount\":\"99.00\",\"paymentMode\":\"UPI\",\"paymentStatus\":\"SUCCESS\"}")["error"]?["code"]?.stringValue == "amount-mismatch")
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"CASH\",\"paymentStatus\":\"SUCCESS\"}")["error"]?["code"]?.stringValue == "invalid-payment-mode")
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"CHEQUE\",\"paymentStatus\":\"SUCCESS\"}").status == 400)
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"UPI\",\"paymentStatus\":\"DONE\"}").status == 400)
            let badDate = #"{"orderId":"\#(orderID)","transactionId":"T1","paymentDateTime":"19-03-2024","amount":"100.00","paymentMode":"UPI","paymentStatus":"SUCCESS"}"#
            #expect(try await event(badDate).status == 400)
            #expect(try await event(#"{"orderId":"COUWLunknown","transactionId":"T1","paymentDateTime":"2024-03-19 12:30:45","amount":"100.00","paymentMode":"UPI","paymentStatus":"SUCCESS"}"#)["error"]?["code"]?.stringValue == "invalid-order-id")
            // NETBANKING in allowedPaymentModes means INTERNET BANKING; a failure first, then success.
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"INTERNET BANKING\",\"paymentStatus\":\"FAILURE\",\"failureReason\":{\"code\":\"U30\",\"message\":\"Debit failed\"}}").status == 200)
            #expect(try await event("{\(base),\"amount\":\"100.00\",\"paymentMode\":\"INTERNET BANKING\",\"paymentStatus\":\"SUCCESS\"}").status == 200)
            // Another transaction after success is refused.
            let second = #"{"orderId":"\#(orderID)","transactionId":"T2","paymentDateTime":"2024-03-19 12:31:45","amount":"100.00","paymentMode":"UPI","paymentStatus":"SUCCESS"}"#
            #expect(try await event(second)["error"]?["code"]?.stringValue == "order-already-paid")
            let refund = try await h.send("POST", "/setu/api/v2/webhooks/refund-event", headers: partner,
                                          json: #"{"orderId":"\#(orderID)","refundId":"R1","refundStatus":"SUCCESS","refundDateTime":"2024-03-20 10:00:00"}"#)
            #expect(refund["status"]?.stringValue == "acknowledged")
            // Failure and refund webhooks from the control API.
            _ = try await h.complete("setu", orderID)
            #expect(try await h.complete("setu", orderID, #""status":"refunded""#).status == 200)
            let events = await h.receiver.wait(for: 2).compactMap { (try? JSONParser.parse($0.body))?["event"]?.stringValue }
            #expect(events == ["bill_payment_success", "bill_payment_refunded"])
        }
    }

    @Test func setuCallsThePartnersEndpointsAndChecksTheAnswers() async throws {
        // A partner whose getPaymentStatus conforms and whose refund answer lacks refundId.
        let seen = PartnerLog()
        let partner = try HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), handler: ClosureHandler { request in
            seen.add(request)
            let orderID = (try? JSONParser.parse(request.body))?["orderId"]?.stringValue ?? ""
            if request.path.hasSuffix("/setu/v1/getPaymentStatus") {
                return .json(try! JSONParser.parse(#"{"status":"success","message":"","data":{"orderId":"\#(orderID)","transactionId":"T1","paymentDateTime":"2024-03-19 12:30:45","amount":"100.00","paymentMode":"UPI","paymentStatus":"SUCCESS"}}"#))
            }
            return .json(try! JSONParser.parse(#"{"status":"success","message":"Accepted","data":{"orderId":"\#(orderID)","transactionId":"T1"}}"#))
        })
        try await SandboxHarness.run(configure: { configuration in
            configuration.setuPartnerURL = "http://127.0.0.1:\(partner.port)/partner"
        }) { h in
            let headers = try await h.setuHeaders()
            let session = try #require(try await h.send("POST", "/setu/api/v2/ethereal/link", headers: headers, json: Self.link)["sessionId"]?.stringValue)
            let orderID = try #require(try await h.send("POST", "/_sandbox/setu/links/\(session)/initiate", json: "{}")["orderId"]?.stringValue)
            let status = try await h.send("POST", "/_sandbox/setu/orders/\(orderID)/payment-status")
            #expect(status["status"]?.intValue == 200, "\(status.text)")
            #expect(status["problems"]?.arrayValue?.isEmpty == true, "\(status.text)")
            #expect(status["response"]?["data"]?["orderId"]?.stringValue == orderID)
            let call = try #require(seen.all.first)
            #expect(call.path == "/partner/setu/v1/getPaymentStatus")
            #expect(call.headers["X-SETU-BILLPAY-API-KEY"] == h.credentials.setuBillPayAPIKey)
            // A refund needs the partner's SUCCESS payment-event first.
            #expect(try await h.send("POST", "/_sandbox/setu/orders/\(orderID)/refund").status == 409)
            let event = #"{"orderId":"\#(orderID)","transactionId":"T1","paymentDateTime":"2024-03-19 12:30:45","amount":"100.00","paymentMode":"UPI","paymentStatus":"SUCCESS"}"#
            _ = try await h.send("POST", "/setu/api/v2/webhooks/payment-event", headers: [("X-PARTNER-ID", h.credentials.setuPartnerID)], json: event)
            let refund = try await h.send("POST", "/_sandbox/setu/orders/\(orderID)/refund")
            #expect(refund["problems"]?.arrayValue?.compactMap(\.stringValue) == ["data.refundId must be a string"])
            let body = try JSONParser.parse(try #require(seen.all.last).body)
            #expect(body["transactionId"]?.stringValue == "T1")
            #expect(body["amount"]?.stringValue == "100.00")
            // The key is a secret: redacted in the log.
            #expect(!(try await h.send("GET", "/_sandbox/webhooks").text.contains(h.credentials.setuBillPayAPIKey)))
        }
        await partner.shutdown(gracePeriod: .milliseconds(100))
    }
}

/// Requests a test partner server received.
final class PartnerLog: Sendable {
    private let list = Mutex<[HTTPRequest]>([])
    func add(_ request: HTTPRequest) { list.withLock { $0.append(request) } }
    var all: [HTTPRequest] { list.withLock { $0 } }
}
