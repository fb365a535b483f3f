import Crypto
import JSON
@testable import Sandbox
import Testing

/// The simulators are plain logic over requests: time-dependent rules are
/// checked here without I/O, by handing them a clock of our choosing.
@Suite("Simulators without I/O")
struct SimulatorClockTests {
    static let t0: Int64 = 1_750_000_000_000
    static let credentials = SandboxCredentials.defaults

    static func context(after seconds: Int64 = 0) -> SimulatorContext {
        SimulatorContext(rootURL: "http://127.0.0.1:1", nowMilliseconds: t0 + seconds * 1000)
    }

    static func json(_ response: SandboxResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    var cashfreeHeaders: [(name: String, value: String)] {
        [("x-client-id", Self.credentials.cashfreeClientID), ("x-client-secret", Self.credentials.cashfreeClientSecret),
         ("x-api-version", "2025-01-01"), ("content-type", "application/json")]
    }

    @Test func cashfreeOrderExpiresAtItsExpiryTime() throws {
        let cashfree = CashfreeSimulator(credentials: Self.credentials)
        let expiry = Clock.istISO(Self.t0 / 1000 + 3600)
        let body = #"{"order_id":"o_exp","order_amount":1,"order_currency":"INR","order_expiry_time":"\#(expiry)","customer_details":{"customer_id":"USER123","customer_phone":"9876543210"}}"#
        let created = cashfree.handle(SandboxRequest(method: "POST", path: "/orders", headers: cashfreeHeaders, body: Array(body.utf8)),
                                      context: Self.context())
        #expect(created.response.status == 200)
        #expect(try Self.json(created.response)["order_expiry_time"]?.stringValue == expiry)
        let fetch = SandboxRequest(method: "GET", path: "/orders/o_exp", headers: cashfreeHeaders)
        #expect(try Self.json(cashfree.handle(fetch, context: Self.context(after: 3599)).response)["order_status"]?.stringValue == "ACTIVE")
        #expect(try Self.json(cashfree.handle(fetch, context: Self.context(after: 3601)).response)["order_status"]?.stringValue == "EXPIRED")
        // An expired order cannot be paid.
        guard case .refused(let status, _) = cashfree.complete(orderID: "o_exp", body: ["status": "paid"], context: Self.context(after: 3601)) else {
            Issue.record("an expired order was paid")
            return
        }
        #expect(status == 409)
        // An expiry in the past is refused at creation.
        let past = body.replacingAll("o_exp", with: "o_past").replacingAll(expiry, with: Clock.istISO(Self.t0 / 1000 - 1))
        let refused = cashfree.handle(SandboxRequest(method: "POST", path: "/orders", headers: cashfreeHeaders, body: Array(past.utf8)),
                                      context: Self.context())
        #expect(try Self.json(refused.response)["code"]?.stringValue == "order_expiry_time_invalid")
    }

    @Test func instamojoTokensExpireAfterTenHours() throws {
        let instamojo = InstamojoSimulator(credentials: Self.credentials)
        let form = "grant_type=client_credentials&client_id=\(Self.credentials.instamojoClientID)&client_secret=\(Self.credentials.instamojoClientSecret)"
        let token = instamojo.handle(SandboxRequest(method: "POST", path: "/oauth2/token/",
                                                    headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8)),
                                     context: Self.context())
        let access = try #require(try Self.json(token.response)["access_token"]?.stringValue)
        let list = SandboxRequest(method: "GET", path: "/v2/payment_requests/", headers: [("authorization", "Bearer " + access)])
        #expect(instamojo.handle(list, context: Self.context(after: 35_999)).response.status == 200)
        #expect(instamojo.handle(list, context: Self.context(after: 36_000)).response.status == 401)
    }

    @Test func setuTokensExpireAfterTenMinutes() throws {
        let setu = SetuSimulator(credentials: Self.credentials)
        let body = #"{"clientID":"\#(Self.credentials.setuClientID)","secret":"\#(Self.credentials.setuSecret)"}"#
        let token = setu.handle(SandboxRequest(method: "POST", path: "/api/v2/auth/token", body: Array(body.utf8)), context: Self.context())
        let access = try #require(try Self.json(token.response)["token"]?.stringValue)
        let link = SandboxRequest(method: "POST", path: "/api/v2/ethereal/link",
                                  headers: [("authorization", "Bearer " + access), ("x-partner-id", Self.credentials.setuPartnerID)],
                                  body: Array(#"{"orgId":"1","mobileNumber":"9876543210"}"#.utf8))
        #expect(setu.handle(link, context: Self.context(after: 599)).response.status == 200)
        #expect(setu.handle(link, context: Self.context(after: 600)).response.status == 401)
    }

    @Test func razorpayOrderStateMachine() throws {
        let razorpay = RazorpaySimulator(credentials: Self.credentials)
        let auth = [("authorization", "Basic " + Encoding.base64(Array("\(Self.credentials.razorpayKeyID):\(Self.credentials.razorpayKeySecret)".utf8)))]
        let created = razorpay.handle(SandboxRequest(method: "POST", path: "/v1/orders", headers: auth + [("content-type", "application/json")],
                                                     body: Array(#"{"amount":1000,"currency":"INR"}"#.utf8)), context: Self.context())
        let id = try #require(try Self.json(created.response)["id"]?.stringValue)
        func status() throws -> String? {
            try Self.json(razorpay.handle(SandboxRequest(method: "GET", path: "/v1/orders/\(id)", headers: auth), context: Self.context()).response)["status"]?.stringValue
        }
        #expect(try status() == "created")
        guard case .done(_, let failedHooks) = razorpay.complete(orderID: id, body: ["status": "failed"], context: Self.context()) else {
            Issue.record("failed completion refused")
            return
        }
        #expect(failedHooks.map(\.event) == ["payment.failed"])
        #expect(try status() == "attempted")
        guard case .done(_, let paidHooks) = razorpay.complete(orderID: id, body: ["status": "paid"], context: Self.context()) else {
            Issue.record("paid completion refused")
            return
        }
        #expect(paidHooks.map(\.event) == ["payment.authorized", "payment.captured", "order.paid"])
        #expect(try status() == "paid")
        guard case .refused(409, _) = razorpay.complete(orderID: id, body: ["status": "failed"], context: Self.context()) else {
            Issue.record("a paid order was completed again")
            return
        }
        // Every webhook is signed over its exact bytes with the webhook secret.
        for hook in failedHooks + paidHooks {
            let signature = try #require(hook.headers.first { $0.name == "X-Razorpay-Signature" }?.value)
            #expect(signature == Encoding.hex(Crypto.hmac(.sha256, key: Array(Self.credentials.razorpayWebhookSecret.utf8), message: hook.body)))
        }
    }
}
