import Foundation
import HTTPClient
import JSON
import Sandbox
import Testing

/// The `*_after` faults: the simulator does the work, then the answer is lost
/// (the reconciliation tests of the Gateway rely on this).
@Suite("Faults after the work")
struct AfterFaultTests {
    static let order = #"{"amount":5000,"currency":"INR","receipt":"rcpt_after_1"}"#

    /// POSTs an order on a connection of its own: on a kept-alive one, libcurl would resend it when the
    /// answer is dropped (see HTTPClientRequest.freshConnection), and the sandbox would hold two.
    static func create(_ h: SandboxHarness, _ path: String, headers: [(name: String, value: String)], json: String,
                       timeout: Duration = .seconds(10)) async throws -> Reply {
        var request = HTTPClientRequest(method: "POST", url: h.sandbox.baseURL + path,
                                        headers: headers + [("Content-Type", "application/json")], body: Array(json.utf8), timeout: timeout)
        request.freshConnection = true
        let response = try await h.client.execute(request)
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// Razorpay orders carrying `receipt`, counted through the list API.
    static func razorpayOrders(_ h: SandboxHarness, receipt: String) async throws -> [JSONValue] {
        let list = try await h.send("GET", "/razorpay/v1/orders?receipt=\(receipt)", headers: h.razorpayAuth)
        #expect(list.status == 200)
        return list["items"]?.arrayValue ?? []
    }

    @Test func dropAfterCreatesTheOrderAndClosesWithoutAnswer() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"drop_after","times":1}"#)
            await #expect(throws: HTTPClientError.self) {
                _ = try await Self.create(h, "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order)
            }
            let found = try await Self.razorpayOrders(h, receipt: "rcpt_after_1")
            #expect(found.count == 1)
            #expect(found.first?["amount"]?.intValue == 5000)
            #expect(found.first?["status"]?.stringValue == "created")
            // times: 1 — the next create answers normally.
            #expect(try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order).status == 200)
        }
    }

    @Test func timeoutAfterCreatesTheOrderAndHoldsTheAnswer() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"timeout_after","ms":3000,"times":1}"#)
            do {
                _ = try await Self.create(h, "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order, timeout: .milliseconds(400))
                Issue.record("a held request answered")
            } catch let error as HTTPClientError {
                #expect(error.code == .timeout)
            }
            #expect(try await Self.razorpayOrders(h, receipt: "rcpt_after_1").count == 1)
        }
    }

    @Test func statusAfterAnswersTheProvidersServerErrorOnceTheOrderExists() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"status_after","status":502}"#)
            let failed = try await Self.create(h, "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order)
            #expect(failed.status == 502)
            #expect(failed["error"]?["code"]?.stringValue == "SERVER_ERROR")
            #expect(try await Self.razorpayOrders(h, receipt: "rcpt_after_1").count == 1)
            // Cashfree: the order is there under the merchant's order_id, and its webhooks are unaffected.
            try await h.addFault(#"{"route":"POST /cashfree/pg/orders","kind":"status_after"}"#)
            let cashfree = #"{"order_id":"o_after","order_amount":1,"order_currency":"INR","customer_details":{"customer_id":"USER123","customer_phone":"9876543210"}}"#
            #expect(try await Self.create(h, "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: cashfree).status == 500)
            let fetched = try await h.send("GET", "/cashfree/pg/orders/o_after", headers: h.cashfreeHeaders)
            #expect(fetched.status == 200)
            #expect(fetched["order_status"]?.stringValue == "ACTIVE")
        }
    }

    @Test func malformedAfterCutsTheRealAnswer() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"malformed_after"}"#)
            let cut = try await Self.create(h, "/razorpay/v1/orders", headers: h.razorpayAuth, json: Self.order)
            #expect(cut.status == 200)
            #expect(cut.json == nil)
            let found = try await Self.razorpayOrders(h, receipt: "rcpt_after_1")
            #expect(found.count == 1)
            let id = try #require(found.first?["id"]?.stringValue)
            // The half that arrived is the real order's answer, not a made-up one.
            #expect(cut.text.contains(id))
        }
    }

    @Test func hostileAfterSendsTheRealAnswerWithValuesReplaced() async throws {
        #expect(try FaultRule(json: #"{"route":"/a","kind":"hostile_after","seed":9}"#).kind == .afterWork(.hostile(seed: 9)))
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"hostile_after","seed":-1}"#) }
        try await SandboxHarness.run { h in
            var changed = 0
            for seed in 1...6 {
                try await h.send("DELETE", "/_sandbox/faults")
                try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"hostile_after","seed":\#(seed)}"#)
                let answer = try await Self.create(h, "/razorpay/v1/orders", headers: h.razorpayAuth,
                                                   json: Self.order.replacingOccurrences(of: "rcpt_after_1", with: "rcpt_hostile_\(seed)"))
                #expect(answer.status == 200)
                #expect(answer.json?.objectValue != nil, "still JSON: \(answer.text.prefix(300))")
                // The work was done: the real order exists under its receipt; the answer is that order, changed.
                let real = try await Self.razorpayOrders(h, receipt: "rcpt_hostile_\(seed)")
                #expect(real.count == 1)
                if answer.json != real.first { changed += 1 }
            }
            #expect(changed >= 4, "only \(changed) of 6 answers changed")
        }
    }

    @Test func afterKindsParseAndRoundTrip() async throws {
        #expect(try FaultRule(json: #"{"route":"/a","kind":"drop_after"}"#).kind == .afterWork(.drop))
        #expect(try FaultRule(json: #"{"route":"/a","kind":"timeout_after","ms":250}"#).kind == .afterWork(.timeout(.milliseconds(250))))
        #expect(try FaultRule(json: #"{"route":"/a","kind":"status_after"}"#).kind == .afterWork(.serverError(status: 500)))
        #expect(try FaultRule(json: #"{"route":"/a","kind":"malformed_after"}"#).kind == .afterWork(.malformed))
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"status_after","status":404}"#) }
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"timeout_after","ms":0}"#) }
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"timeout_after","ms":1500,"times":2}"#)
            let listed = try #require(try await h.send("GET", "/_sandbox/faults").json?.arrayValue?.first)
            #expect(listed["kind"]?.stringValue == "timeout_after")
            #expect(listed["ms"]?.intValue == 1500)
            #expect(listed["remaining"]?.intValue == 2)
        }
    }
}
