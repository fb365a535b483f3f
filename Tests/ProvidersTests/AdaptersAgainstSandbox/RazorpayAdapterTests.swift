import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// Every Razorpay adapter operation against the sandbox over real HTTP.
@Suite struct RazorpayAdapterTests {
    @Test func customersIncludingFailExisting() async throws {
        try await AdapterHarness.run { h in
            let razorpay = h.razorpay
            let details = CustomerDetails(name: "Gaurav Kumar", email: "gaurav.kumar@example.com", phone: "9123456780")
            let created = try await razorpay.createCustomer(details, gstin: "29XAbbA4369J1PA", notes: ["tier": "gold"])
            #expect(created.id.hasPrefix("cust_"))
            #expect(created.notes["tier"] == "gold")
            // fail_existing "1" (default): the same customer again is a rejection.
            let duplicate = await expectProviderError(.rejected) { _ = try await razorpay.createCustomer(details) }
            #expect(duplicate?.providerCode == "BAD_REQUEST_ERROR")
            #expect(duplicate?.httpStatus == 400)
            // fail_existing "0": the existing customer comes back.
            let existing = try await razorpay.createCustomer(details, failIfExists: false)
            #expect(existing.id == created.id)
            #expect(try await razorpay.fetchCustomer(id: created.id).email == "gaurav.kumar@example.com")
            // Too-short contact is the provider's validation error, with its field.
            let invalid = await expectProviderError(.rejected) {
                _ = try await razorpay.createCustomer(CustomerDetails(name: "Short Contact", phone: "123"))
            }
            #expect(invalid?.reason != nil || invalid?.field != nil)
        }
    }

    @Test func tpvBankAccountsAndTPVOrders() async throws {
        try await AdapterHarness.run { h in
            let razorpay = h.razorpay
            let customer = try await razorpay.createCustomer(CustomerDetails(name: "Tpv Customer", email: "tpv@example.com", phone: "9000000001"))
            let account = BankAccountDetails(accountNumber: "765432123456789", ifsc: "HDFC0000053", beneficiaryName: "Gaurav Kumar")
            let whitelisted = try await razorpay.addBankAccount(customerID: customer.id, account: account)
            #expect(whitelisted.id.hasPrefix("ba_"))
            #expect(whitelisted.maskedAccountNumber?.hasSuffix("6789") == true)
            #expect(whitelisted.maskedAccountNumber?.contains("765432123") == false)
            try await razorpay.deleteBankAccount(customerID: customer.id, bankAccountID: whitelisted.id)

            let order = try await razorpay.createOrder(CreateOrderRequest(reference: "BILL13375649", amount: .inr(500), method: .upi, tpvBankAccount: account))
            #expect(order.status == .created)
            #expect(order.amount == .inr(500))
            #expect(order.reference == "BILL13375649")
        }
    }

    @Test func orderPaymentRefundAndSignatures() async throws {
        try await AdapterHarness.run { h in
            let razorpay = h.razorpay
            let order = try await razorpay.createOrder(CreateOrderRequest(reference: "rcpt_flow_1", amount: .inr(29_935), notes: ["cart": "42"]))
            #expect(order.id.hasPrefix("order_"))
            #expect(order.checkout == .razorpay(orderID: order.id))
            #expect(try await razorpay.fetchPayments(orderID: order.id).isEmpty)

            let completed = try await h.complete("razorpay", order.id, status: "paid", extra: #","method":"upi""#)
            let fetched = try await razorpay.fetchOrder(id: order.id)
            #expect(fetched.status == .paid)
            #expect(fetched.amountPaid == .inr(29_935))
            let payments = try await razorpay.fetchPayments(orderID: order.id)
            let payment = try #require(payments.first)
            #expect(payment.status == .captured)
            #expect(payment.amount == .inr(29_935))
            #expect(try await razorpay.fetchPayment(id: payment.id).id == payment.id)

            // Checkout's signature from the sandbox verifies with our key secret, against the stored order id.
            let checkout = try #require(completed["checkout"] as? [String: String])
            let signature = try #require(checkout["razorpay_signature"])
            #expect(razorpay.verifyPaymentSignature(orderID: order.id, paymentID: payment.id, signature: signature) == .valid)
            #expect(!razorpay.verifyPaymentSignature(orderID: "order_other", paymentID: payment.id, signature: signature).isValid)

            // Refund with an idempotency key: the retry returns the same refund.
            let refundRequest = RefundRequest(paymentID: payment.id, amount: .inr(10_000), reference: "rfnd_rcpt_1", idempotencyKey: "refund-key-0001")
            let refund = try await razorpay.createRefund(refundRequest)
            #expect(refund.amount == .inr(10_000))
            #expect(refund.status == .succeeded)
            let again = try await razorpay.createRefund(refundRequest)
            #expect(again.id == refund.id)
            var different = refundRequest
            different.amount = .inr(5_000)
            await expectProviderError(.idempotencyConflict) { _ = try await razorpay.createRefund(different) }
            #expect(try await razorpay.fetchRefund(id: refund.id).status == .succeeded)
            await expectProviderError(.invalidRequest) {
                _ = try await razorpay.createRefund(RefundRequest(paymentID: payment.id, reference: "r", idempotencyKey: "short"))
            }

            // Every webhook the sandbox sent verifies with the webhook secret, and not with the key secret.
            let hooks = try await h.webhooks(provider: "razorpay")
            #expect(Set(hooks.map(\.event)).isSuperset(of: ["payment.captured", "order.paid"]))
            let captured = try #require(hooks.first { $0.event == "payment.captured" })
            let event = try Webhooks.verifiedEvent(provider: .razorpay, request: captured.request,
                                                   secret: Secret(h.credentials.razorpayWebhookSecret)).get()
            #expect(event.paymentID == payment.id)
            #expect(event.orderID == order.id)
            #expect(event.paymentStatus == .captured)
            #expect(event.amount == .inr(29_935))
            #expect(event.eventID == captured.request.header("x-razorpay-event-id"))
            for hook in hooks {
                #expect(razorpay.verifyWebhook(hook.request) == .valid, "\(hook.event)")
                #expect(!RazorpayAdapter.verifyWebhook(hook.request, secret: Secret(h.credentials.razorpayKeySecret)).isValid)
            }
        }
    }

    @Test func authorizedPaymentsAreCapturedExactly() async throws {
        try await AdapterHarness.run { h in
            let razorpay = h.razorpay
            let order = try await razorpay.createOrder(CreateOrderRequest(reference: "rcpt_capture", amount: .inr(1010)))
            _ = try await h.complete("razorpay", order.id, status: "authorized", extra: #","method":"card""#)
            #expect(try await razorpay.fetchOrder(id: order.id).status == .attempted)
            let authorized = try #require(try await razorpay.fetchPayments(orderID: order.id).first)
            #expect(authorized.status == .authorized)
            // Capturing a different amount is Razorpay's rejection; the exact amount captures.
            await expectProviderError(.rejected) { _ = try await razorpay.capturePayment(id: authorized.id, amount: .inr(1000)) }
            let captured = try await razorpay.capturePayment(id: authorized.id, amount: .inr(1010))
            #expect(captured.status == .captured)
            #expect(try await razorpay.fetchOrder(id: order.id).status == .paid)
            await expectProviderError(.rejected) { _ = try await razorpay.capturePayment(id: authorized.id, amount: .inr(1010)) }
        }
    }

    @Test func rejectionsAreTypedAndNothingInvalidIsSent() async throws {
        try await AdapterHarness.run { h in
            let razorpay = h.razorpay
            // Refused locally: below ₹1, and 10.101-style impossibilities can't even be built (Int64 paise).
            await expectProviderError(.invalidAmount) { _ = try await razorpay.createOrder(CreateOrderRequest(reference: "r0", amount: .inr(99))) }
            await expectProviderError(.notFound) { _ = try await razorpay.fetchOrder(id: "order_DoesNotExist00") }
            // Wrong keys → authentication failure, and the secret is not in the error.
            let wrong = RazorpayAdapter(configuration: RazorpayConfiguration(baseURL: h.sandbox.baseURL(for: .razorpay), keyID: "rzp_test_sandbox00001",
                                                                             keySecret: Secret("not-the-secret-123"), webhookSecret: Secret("w"),
                                                                             transport: h.transport), client: h.client)
            let auth = await expectProviderError(.authenticationFailed) { _ = try await wrong.fetchOrder(id: "order_x") }
            #expect(auth.map { !"\($0)".contains("not-the-secret-123") } == true)
            // Reconciling a create that timed out: orders are found by receipt. (The reference says
            // receipts "must be unique"; whether a duplicate is refused is not confirmed, so both answers are allowed.)
            let first = try await razorpay.createOrder(CreateOrderRequest(reference: "dup_receipt", amount: .inr(100)))
            var created = [first.id]
            do {
                created.append(try await razorpay.createOrder(CreateOrderRequest(reference: "dup_receipt", amount: .inr(100))).id)
            } catch let error as ProviderError {
                #expect(error.code == .rejected)
            }
            _ = try await razorpay.createOrder(CreateOrderRequest(reference: "other_receipt", amount: .inr(100)))
            let found = try await razorpay.findOrders(receipt: "dup_receipt")
            #expect(Set(found.map(\.id)) == Set(created))
            #expect(found.allSatisfy { $0.reference == "dup_receipt" })
        }
    }

    @Test func turboUPISessionToken() async throws {
        try await AdapterHarness.run { h in
            let session = try await h.razorpay.createTurboUPISession(customerReference: "9000090000")
            #expect(!session.token.isEmpty)
            #expect("\(session.token)" == "****")
            #expect(session.expiresAt > 1_700_000_000)
            await expectProviderError(.invalidRequest) { _ = try await h.razorpay.createTurboUPISession(customerReference: "") }
        }
    }
}
