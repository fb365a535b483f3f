import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// Every Cashfree adapter operation against the sandbox over real HTTP.
@Suite struct CashfreeAdapterTests {
    static func order(_ reference: String, paise: Int64 = 1010, key: String? = nil) -> CreateOrderRequest {
        CreateOrderRequest(reference: reference, amount: .inr(paise),
                           customer: CustomerDetails(id: "cust_0001", name: "Joe Test", email: "joe@example.com", phone: "9876543210"),
                           description: "gateway test", returnURL: "https://merchant.example.com/return?order_id={order_id}",
                           notes: ["source": "tests"], idempotencyKey: key)
    }

    @Test func orderLifecyclePaymentsRefundsAndWebhooks() async throws {
        try await AdapterHarness.run { h in
            let cashfree = h.cashfree
            let created = try await cashfree.createOrder(Self.order("order_cf_0001"))
            #expect(created.id == "order_cf_0001")
            #expect(created.amount == .inr(1010))
            #expect(created.status == .created)
            #expect(created.rawStatus == "ACTIVE")
            guard case .cashfree(let session) = created.checkout else { Issue.record("no payment_session_id"); return }
            #expect(!session.isEmpty)

            _ = try await h.complete("cashfree", "order_cf_0001", status: "paid", extra: #","method":"upi""#)
            let paid = try await cashfree.fetchOrder(id: "order_cf_0001")
            #expect(paid.status == .paid)
            #expect(paid.rawStatus == "PAID")
            let payment = try #require(try await cashfree.fetchPayments(orderID: "order_cf_0001").first)
            #expect(payment.status == .captured)
            #expect(payment.amount == .inr(1010))

            let refund = try await cashfree.createRefund(RefundRequest(paymentID: payment.id, orderID: "order_cf_0001", amount: .inr(505),
                                                                       reference: "refund_cf_0001", note: "SUCCESS", idempotencyKey: "rk-cf-0001"))
            #expect(refund.amount == .inr(505))
            #expect(refund.reference == "refund_cf_0001")
            let fetchedRefund = try await cashfree.fetchRefund(orderID: "order_cf_0001", refundID: "refund_cf_0001")
            #expect(fetchedRefund.status == .succeeded)
            // More than what is left to refund is the provider's rejection.
            await expectProviderError(.rejected) {
                _ = try await cashfree.createRefund(RefundRequest(paymentID: payment.id, orderID: "order_cf_0001", amount: .inr(10_000), reference: "refund_cf_0002"))
            }

            let hooks = try await h.webhooks(provider: "cashfree")
            let success = try #require(hooks.first { $0.event == "PAYMENT_SUCCESS_WEBHOOK" })
            let event = try Webhooks.verifiedEvent(provider: .cashfree, request: success.request,
                                                   secret: Secret(h.credentials.cashfreeClientSecret)).get()
            #expect(event.orderID == "order_cf_0001")
            #expect(event.paymentID == payment.id)
            #expect(event.paymentStatus == .captured)
            #expect(event.amount == .inr(1010))
            for hook in hooks {
                #expect(cashfree.verifyWebhook(hook.request) == .valid, "\(hook.event)")
                // Tampering with the body (e.g. re-serialising 10.10 as 10.1) breaks it.
                var tampered = hook.request
                tampered.body = Array(String(decoding: tampered.body, as: UTF8.self).replacing("10.10", with: "10.1").utf8)
                if tampered.body != hook.request.body { #expect(!cashfree.verifyWebhook(tampered).isValid) }
            }
        }
    }

    @Test func idempotencyKeyReplaysAndConflicts() async throws {
        try await AdapterHarness.run { h in
            let cashfree = h.cashfree
            let first = try await cashfree.createOrder(Self.order("order_cf_idem", key: "idem-key-1"))
            let replay = try await cashfree.createOrder(Self.order("order_cf_idem", key: "idem-key-1"))
            #expect(replay.id == first.id)
            #expect(replay.checkout == first.checkout)
            let conflict = await expectProviderError(.idempotencyConflict) {
                _ = try await cashfree.createOrder(Self.order("order_cf_idem", paise: 2020, key: "idem-key-1"))
            }
            #expect(conflict?.httpStatus == 422)
            // Same order id without a key: Cashfree's 409 order_already_exists.
            let duplicate = await expectProviderError(.conflict) { _ = try await cashfree.createOrder(Self.order("order_cf_idem")) }
            #expect(duplicate?.providerCode == "order_already_exists")
        }
    }

    @Test func terminatedAndExpiredOrders() async throws {
        try await AdapterHarness.run { h in
            let cashfree = h.cashfree
            _ = try await cashfree.createOrder(Self.order("order_cf_stop"))
            let stopped = try await cashfree.terminateOrder(id: "order_cf_stop")
            #expect(stopped.status == .cancelled)
            #expect(["TERMINATED", "TERMINATION_REQUESTED"].contains(stopped.rawStatus))
            _ = try await cashfree.createOrder(Self.order("order_cf_late"))
            _ = try await h.complete("cashfree", "order_cf_late", status: "expired")
            let expired = try await cashfree.fetchOrder(id: "order_cf_late")
            #expect(expired.status == .expired)
            #expect(expired.rawStatus == "EXPIRED")
        }
    }

    @Test func rejectionsKeepCodeTypeAndField() async throws {
        try await AdapterHarness.run { h in
            let cashfree = h.cashfree
            await expectProviderError(.invalidAmount) { _ = try await cashfree.createOrder(Self.order("order_small", paise: 99)) }
            let missing = await expectProviderError(.notFound) { _ = try await cashfree.fetchOrder(id: "order_missing") }
            #expect(missing?.providerCode == "order_not_found")
            let wrong = CashfreeAdapter(configuration: CashfreeConfiguration(baseURL: h.sandbox.baseURL(for: .cashfree), clientID: "cf_test_sandbox_app_id",
                                                                             clientSecret: Secret("wrong-secret-xyz"), transport: h.transport), client: h.client)
            let auth = await expectProviderError(.authenticationFailed) { _ = try await wrong.fetchOrder(id: "order_cf_0001") }
            #expect(auth?.reason == "authentication_error")
            #expect(auth.map { !"\($0)".contains("wrong-secret-xyz") } == true)
            // An API version the sandbox refuses comes back as a rejection naming the header.
            let badVersion = CashfreeAdapter(configuration: CashfreeConfiguration(baseURL: h.sandbox.baseURL(for: .cashfree), clientID: h.credentials.cashfreeClientID,
                                                                                  clientSecret: Secret(h.credentials.cashfreeClientSecret), apiVersion: "latest",
                                                                                  transport: h.transport), client: h.client)
            let version = await expectProviderError(.rejected) { _ = try await badVersion.fetchOrder(id: "order_cf_0001") }
            #expect(version?.field == "x-api-version")
        }
    }
}
