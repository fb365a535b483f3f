import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// The sandbox's faults (latency, timeout, 5xx, 429 with Retry-After, malformed
/// body, dropped connection) each become the right typed error, without a hang
/// past the operation deadline; requests that are safe to repeat recover.
@Suite struct AdapterFaultTests {
    static func order(_ reference: String, paise: Int64 = 1010, key: String? = nil) -> CreateOrderRequest {
        CashfreeAdapterTests.order(reference, paise: paise, key: key)
    }

    @Test func latencyWithinTheBudgetIsJustSlow() async throws {
        // A budget far above the 300 ms latency, so that a loaded machine's stalls stay inside it.
        let roomy = ProviderTransportSettings(attemptTimeout: .seconds(15), operationDeadline: .seconds(30))
        try await AdapterHarness.run(transport: roomy) { h in
            try await h.fault(#"{"route":"POST /cashfree/pg/orders","kind":"latency","ms":300,"times":1}"#)
            let clock = ContinuousClock()
            let started = clock.now
            _ = try await h.cashfree.createOrder(Self.order("order_slow"))
            #expect(clock.now - started >= .milliseconds(300))
        }
    }

    @Test func aHeldRequestTimesOutAtTheDeadline() async throws {
        let tight = ProviderTransportSettings(attemptTimeout: .milliseconds(500), operationDeadline: .milliseconds(1200),
                                              maxAttemptsWhenSafe: 3, retryBaseDelay: .milliseconds(20))
        try await AdapterHarness.run(transport: tight) { h in
            try await h.fault(#"{"route":"/razorpay/**","kind":"timeout","ms":20000}"#)
            let clock = ContinuousClock()
            // A create is sent once: it times out after one attempt.
            var started = clock.now
            let create = await expectProviderError(.timeout) { _ = try await h.razorpay.createOrder(CreateOrderRequest(reference: "t1", amount: .inr(100))) }
            #expect(create?.code.outcomeUnknown == true)
            // Bounds leave room for a loaded machine (6 s seen at load 20 with a 1.2 s deadline); the sandbox
            // holds the request for 20 s, so anything well under that shows the deadline at work.
            #expect(clock.now - started < .seconds(10))
            // A fetch is retried, but never past the deadline.
            started = clock.now
            await expectProviderError(.timeout) { _ = try await h.razorpay.fetchOrder(id: "order_x") }
            #expect(clock.now - started < .seconds(10))
        }
    }

    @Test func cancellingTheCallerAbortsPromptly() async throws {
        try await AdapterHarness.run { h in
            try await h.fault(#"{"route":"GET /cashfree/pg/orders/*","kind":"timeout","ms":20000}"#)
            let cashfree = h.cashfree
            let clock = ContinuousClock()
            let started = clock.now
            let task = Task { () -> ProviderError? in
                do throws(ProviderError) { _ = try await cashfree.fetchOrder(id: "order_held"); return nil } catch { return error }
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let error = await task.value
            #expect(error?.code == .cancelled)
            #expect(error?.code.outcomeUnknown == true)
            #expect(clock.now - started < .seconds(10)) // not the 20 s hold
        }
    }

    @Test func serverErrorsAreUnavailableAndRetriedOnlyWhenSafe() async throws {
        try await AdapterHarness.run { h in
            // POST without an idempotency key: one attempt, 503 → providerUnavailable.
            try await h.fault(#"{"route":"POST /cashfree/pg/orders","kind":"status","status":503,"times":1}"#)
            let error = await expectProviderError(.providerUnavailable) { _ = try await h.cashfree.createOrder(Self.order("order_5xx")) }
            #expect(error?.httpStatus == 503)
            #expect(error?.code.isTransient == true)
            // The same with an idempotency key is retried and succeeds.
            try await h.fault(#"{"route":"POST /cashfree/pg/orders","kind":"status","status":500,"times":1}"#)
            let created = try await h.cashfree.createOrder(Self.order("order_5xx", key: "retry-key-5xx"))
            #expect(created.id == "order_5xx")
            // A GET recovers from one 502 by itself.
            try await h.fault(#"{"route":"GET /cashfree/pg/orders/*","kind":"status","status":502,"times":1}"#)
            #expect(try await h.cashfree.fetchOrder(id: "order_5xx").id == "order_5xx")
            // Persistent 500 on a GET: still providerUnavailable once attempts run out.
            try await h.fault(#"{"route":"GET /razorpay/v1/orders/*","kind":"status","status":500}"#)
            let persistent = await expectProviderError(.providerUnavailable) { _ = try await h.razorpay.fetchOrder(id: "order_x") }
            #expect(persistent?.providerCode == "SERVER_ERROR")
        }
    }

    @Test func rateLimitCarriesRetryAfter() async throws {
        try await AdapterHarness.run { h in
            try await h.fault(#"{"route":"POST /razorpay/v1/orders","kind":"rate_limit","retry_after":7,"times":1}"#)
            let error = await expectProviderError(.rateLimited) { _ = try await h.razorpay.createOrder(CreateOrderRequest(reference: "r429", amount: .inr(100))) }
            #expect(error?.httpStatus == 429)
            #expect(error?.retryAfterSeconds == 7)
            #expect(error?.code.outcomeUnknown == false)
            // Cashfree's throttling body and headers.
            try await h.fault(#"{"route":"POST /cashfree/pg/orders","kind":"rate_limit","retry_after":2,"times":1}"#)
            let cashfree = await expectProviderError(.rateLimited) { _ = try await h.cashfree.createOrder(Self.order("order_429")) }
            #expect(cashfree?.retryAfterSeconds == 2)
            #expect(cashfree?.reason == "rate_limit_error")
            // A GET waits the second and succeeds.
            _ = try await h.cashfree.createOrder(Self.order("order_429b"))
            try await h.fault(#"{"route":"GET /cashfree/pg/orders/*","kind":"rate_limit","retry_after":1,"times":1}"#)
            #expect(try await h.cashfree.fetchOrder(id: "order_429b").id == "order_429b")
        }
    }

    @Test func malformedBodiesAreNotTrusted() async throws {
        try await AdapterHarness.run { h in
            try await h.fault(#"{"route":"POST /razorpay/v1/orders","kind":"malformed","times":1}"#)
            let error = await expectProviderError(.malformedResponse) { _ = try await h.razorpay.createOrder(CreateOrderRequest(reference: "rm", amount: .inr(100))) }
            #expect(error?.httpStatus == 200)
            #expect(error?.code.outcomeUnknown == true)
            // A broken token answer is reported without quoting it (it may hold the token).
            try await h.fault(#"{"route":"POST /instamojo/oauth2/token/","kind":"malformed","times":1}"#)
            let token = await expectProviderError(.malformedResponse) { _ = try await h.instamojo().fetchPayment(id: "MOJO0000") }
            #expect(token?.operation == "fetchToken")
            #expect(token?.message.contains("withheld") == true)
            try await h.fault(#"{"route":"GET /instamojo/v2/payments/*","kind":"malformed"}"#)
            await expectProviderError(.malformedResponse) { _ = try await h.instamojo().fetchPayment(id: "MOJO0000") }
        }
    }

    @Test func droppedConnectionsAreNetworkFailures() async throws {
        try await AdapterHarness.run { h in
            try await h.fault(#"{"route":"POST /setu/api/v2/ethereal/link","kind":"drop"}"#)
            let error = await expectProviderError(.network) {
                _ = try await h.setu().createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "9876543210"))
            }
            #expect(error?.code.isTransient == true)
            #expect(error?.httpStatus == nil)
            // Nothing listening at all: the request never left (unreachable: nothing was done), reported promptly.
            let nowhere = RazorpayAdapter(configuration: RazorpayConfiguration(baseURL: "http://127.0.0.1:9", keyID: "k", keySecret: Secret("s"),
                                                                               webhookSecret: Secret("w"), transport: h.transport), client: h.client)
            let refused = await expectProviderError(.unreachable) { _ = try await nowhere.fetchOrder(id: "order_x") }
            #expect(refused?.code.outcome == .notDone)
            #expect(error?.code.outcome == .unknown)
        }
    }
}
