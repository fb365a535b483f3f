import Foundation
import HTTPClient
import HTTPTestSupport
import HTTPServer
import JSON
import Sandbox
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test func latencyAppliesOnceWhenTimesIsOne() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"GET /razorpay/v1/orders","kind":"latency","ms":1000,"times":1}"#)
            let start = ContinuousClock.now
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: h.razorpayAuth).status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(1000))
            let faults = try await h.send("GET", "/_sandbox/faults")
            #expect(faults.json?.arrayValue?.isEmpty == true)
            let again = ContinuousClock.now
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: h.razorpayAuth).status == 200)
            // Generous bound: the machine is shared, but nothing adds a second any more.
            #expect(ContinuousClock.now - again < .milliseconds(900))
        }
    }

    @Test func timeoutHoldsUntilTheClientGivesUp() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"GET /cashfree/pg/orders/*","kind":"timeout","ms":5000}"#)
            let start = ContinuousClock.now
            await #expect(throws: HTTPClientError.self) {
                _ = try await h.send("GET", "/cashfree/pg/orders/x", headers: h.cashfreeHeaders, timeout: .milliseconds(500))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3))
            do {
                _ = try await h.send("GET", "/cashfree/pg/orders/x", headers: h.cashfreeHeaders, timeout: .milliseconds(300))
                Issue.record("a held request answered")
            } catch let error as HTTPClientError {
                #expect(error.code == .timeout)
            }
        }
    }

    @Test func serverErrorsUseEachProvidersShape() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /razorpay/v1/orders","kind":"status","status":503}"#)
            try await h.addFault(#"{"route":"/cashfree/pg/**","kind":"status","status":502}"#)
            try await h.addFault(#"{"route":"/instamojo/**","kind":"status"}"#)
            try await h.addFault(#"{"route":"/setu/**","kind":"status","status":504}"#)
            let razorpay = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":100,"currency":"INR"}"#)
            #expect(razorpay.status == 503)
            #expect(razorpay["error"]?["code"]?.stringValue == "SERVER_ERROR")
            let cashfree = try await h.send("GET", "/cashfree/pg/orders/x", headers: h.cashfreeHeaders)
            #expect(cashfree.status == 502)
            #expect(cashfree["code"]?.stringValue == "bank_processing_failure")
            #expect(cashfree["type"]?.stringValue == "api_error")
            let instamojo = try await h.send("GET", "/instamojo/v2/payments/x/")
            #expect(instamojo.status == 500)
            #expect(instamojo["success"]?.boolValue == false)
            let setu = try await h.send("POST", "/setu/api/v2/auth/token", json: "{}")
            #expect(setu.status == 504)
            #expect(setu["error"]?["code"]?.stringValue == "internal-server-error")
            // Only the faulted route: other Razorpay routes still answer.
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: h.razorpayAuth).status == 200)
        }
    }

    @Test func rateLimitCarriesRetryAfter() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"POST /cashfree/pg/orders","kind":"rate_limit","retry_after":7,"times":2}"#)
            let limited = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: "{}")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "7")
            #expect(limited.header("x-ratelimit-retry") == "7")
            // samples/cashfree/error_429.json
            #expect(limited.json == (try JSONParser.parse(#"{"message":"Too many requests from IP. Check headers","code":"request_failed","type":"rate_limit_error"}"#)))
            let remaining = try await h.send("GET", "/_sandbox/faults")
            #expect(remaining.json?.arrayValue?.first?["remaining"]?.intValue == 1)
            #expect(try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: "{}").status == 429)
            #expect(try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: "{}").status == 400)
        }
    }

    @Test func malformedBodyAndDroppedConnection() async throws {
        try await SandboxHarness.run { h in
            try await h.addFault(#"{"route":"GET /razorpay/v1/orders/*","kind":"malformed"}"#)
            try await h.addFault(#"{"route":"GET /razorpay/v1/payments/*","kind":"drop"}"#)
            let malformed = try await h.send("GET", "/razorpay/v1/orders/order_x", headers: h.razorpayAuth)
            #expect(malformed.status == 200)
            #expect(malformed.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(malformed.json == nil)
            await #expect(throws: HTTPClientError.self) {
                _ = try await h.send("GET", "/razorpay/v1/payments/pay_x", headers: h.razorpayAuth)
            }
            // The control API is never faulted, and rules can be removed.
            try await h.addFault(#"{"route":"/**","kind":"drop"}"#)
            #expect(try await h.send("GET", "/_sandbox/health")["status"]?.stringValue == "ok")
            let list = try #require(try await h.send("GET", "/_sandbox/faults").json?.arrayValue)
            #expect(list.count == 3)
            let id = try #require(list[1]["id"]?.stringValue)
            #expect(try await h.send("DELETE", "/_sandbox/faults/\(id)").status == 200)
            #expect(try await h.send("DELETE", "/_sandbox/faults/\(id)").status == 404)
            #expect(try await h.send("DELETE", "/_sandbox/faults").status == 200)
            #expect(try await h.send("GET", "/razorpay/v1/payments/pay_x", headers: h.razorpayAuth).status == 400)
            #expect(try await h.send("POST", "/_sandbox/faults", json: #"{"route":"/x","kind":"nope"}"#).status == 400)
        }
    }

    @Test func configuredLatencyAndFaults() async throws {
        try await SandboxHarness.run(configure: { configuration in
            configuration.latency = .milliseconds(800)
            configuration.faults = [FaultRule(route: "GET /instamojo/v2/payments/*", kind: .rateLimited(retryAfterSeconds: 3))]
        }) { h in
            let start = ContinuousClock.now
            let limited = try await h.send("GET", "/instamojo/v2/payments/MOJO1/")
            #expect(ContinuousClock.now - start >= .milliseconds(800))
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "3")
            // Control endpoints carry no added latency.
            let control = ContinuousClock.now
            _ = try await h.send("GET", "/_sandbox/health")
            #expect(ContinuousClock.now - control < .milliseconds(700))
        }
    }

    @Test func webhookLogAndRedelivery() async throws {
        try await SandboxHarness.run { h in
            let order = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount":100,"currency":"INR"}"#)
            _ = try await h.complete("razorpay", try #require(order["id"]?.stringValue), #""status":"failed""#)
            let log = try #require(try await h.send("GET", "/_sandbox/webhooks").json?.arrayValue)
            #expect(log.count == 1)
            #expect(log[0]["status"]?.intValue == 200)
            let id = try #require(log[0]["id"]?.stringValue)
            #expect(try await h.send("POST", "/_sandbox/webhooks/\(id)/redeliver")["status"]?.intValue == 200)
            let received = await h.receiver.wait(for: 2)
            #expect(received.count == 2)
            #expect(received[0].body == received[1].body)
            #expect(received[0].headers["X-Razorpay-Signature"] == received[1].headers["X-Razorpay-Signature"])
            #expect(received[0].headers["x-razorpay-event-id"] == received[1].headers["x-razorpay-event-id"])
            #expect(try await h.send("POST", "/_sandbox/reset").status == 200)
            #expect(try await h.send("GET", "/_sandbox/webhooks").json?.arrayValue?.isEmpty == true)
            #expect(try await h.send("GET", "/razorpay/v1/orders", headers: h.razorpayAuth)["count"]?.intValue == 0)
        }
    }

    @Test func failedWebhooksAreRetriedWithTheSameSignature() async throws {
        try await SandboxHarness.run(receiverStatuses: [500, 503], configure: { configuration in
            configuration.webhookRetries = 3
            configuration.webhookRetryDelay = .milliseconds(50)
        }) { h in
            let order = #"{"order_id":"o_retry","order_amount":1,"order_currency":"INR","customer_details":{"customer_id":"USER123","customer_phone":"9876543210"}}"#
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: order)
            let done = try await h.complete("cashfree", "o_retry")
            #expect(done["webhooks"]?.arrayValue?.first?["status"]?.intValue == 500)
            let received = await h.receiver.wait(for: 3)
            #expect(received.count == 3)
            #expect(received.map { $0.headers["x-webhook-attempt"] } == ["1", "2", "3"])
            #expect(Set(received.map(\.body)).count == 1)
            #expect(Set(received.compactMap { $0.headers["x-webhook-signature"] }).count == 1)
            // Accepted on the third attempt: no fourth.
            try await Task.sleep(for: .milliseconds(300))
            #expect(h.receiver.requests.count == 3)
            let log = try #require(try await h.send("GET", "/_sandbox/webhooks").json?.arrayValue)
            #expect(log.map { $0["attempt"]?.intValue } == [1, 2, 3])
            #expect(log.map { $0["status"]?.intValue } == [500, 503, 200])
        }
    }

    @Test func unreachableWebhookTargetIsReportedNotFatal() async throws {
        try await SandboxHarness.run(configure: { configuration in
            // A port nothing listens on (bound then released by the receiver below is racy; port 9 is discard and closed here).
            configuration.webhookTargets = [WebhookTarget("cashfree=http://127.0.0.1:9/hook")]
            configuration.webhookTimeout = .seconds(2)
        }) { h in
            let order = #"{"order_id":"o_unreach","order_amount":1,"order_currency":"INR","customer_details":{"customer_id":"USER123","customer_phone":"9876543210"}}"#
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: order)
            let done = try await h.complete("cashfree", "o_unreach")
            #expect(done.status == 200)
            let delivery = try #require(done["webhooks"]?.arrayValue?.first)
            #expect(delivery["status"]?.isNull == true)
            #expect(delivery["error"]?.stringValue?.isEmpty == false)
        }
    }
}
