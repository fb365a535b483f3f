import Foundation
import Testing
@testable import Providers
import PaymentsCore

/// Wire ↔ domain for each provider, on the samples in Fixtures/samples (docs/providers/*.md).
@Suite struct RazorpayTransformerTests {
    let rules = RazorpayConfiguration.defaultOrderAmountRules

    @Test func orderSample() throws {
        let order = try RazorpayTransformers.order(try Fixture.decode(RazorpayOrder.self, "razorpay", "create_order"), rules: rules, operation: "t")
        #expect(order.id == "order_EKwxwAgItmmXdp")
        #expect(order.amount == .inr(50_000))
        #expect(order.amountPaid == .inr(0))
        #expect(order.status == .created)
        #expect(order.rawStatus == "created")
        #expect(order.checkout == .razorpay(orderID: "order_EKwxwAgItmmXdp"))
    }

    @Test func paymentsAndFailures() throws {
        let collection = try Fixture.decode(RazorpayCollection<RazorpayPayment>.self, "razorpay", "fetch_order_payments")
        let payment = try RazorpayTransformers.payment(try #require(collection.items.first), rules: rules, operation: "t")
        #expect(payment.status == .captured)
        #expect(payment.amount == .inr(50_000))
        #expect(payment.method == "upi")
        let failed = try RazorpayTransformers.payment(try Fixture.decode(RazorpayPayment.self, "razorpay", "fetch_payment_failed"), rules: rules, operation: "t")
        #expect(failed.status == .failed)
        #expect(failed.failure?.code != nil)
    }

    @Test func customerNotesMayBeAnEmptyArray() throws {
        let customer = RazorpayTransformers.customer(try Fixture.decode(RazorpayCustomer.self, "razorpay", "fetch_customer"))
        #expect(customer.notes.isEmpty)
        #expect(customer.gstin == "29XAbbA4369J1PA")
        let created = RazorpayTransformers.customer(try Fixture.decode(RazorpayCustomer.self, "razorpay", "create_customer"))
        #expect(created.notes["notes_key_1"] == "Tea, Earl Grey, Hot")
    }

    @Test func bankAccountAndRefund() throws {
        let account = RazorpayTransformers.bankAccount(try Fixture.decode(RazorpayBankAccount.self, "razorpay", "add_bank_account"))
        #expect(account.maskedAccountNumber == "XXXXXXXXXXXXXXX0434")
        #expect(account.bankName == "ICICI Bank")
        let refund = try RazorpayTransformers.refund(try Fixture.decode(RazorpayRefund.self, "razorpay", "create_refund"), rules: rules, operation: "t")
        #expect(refund.status == .succeeded)
        #expect(refund.amount == .inr(500_100))
    }

    @Test func tpvOrderRequestMatchesTheSampleShape() throws {
        let request = CreateOrderRequest(reference: "BILL13375649", amount: .inr(500), method: .upi,
                                         tpvBankAccount: BankAccountDetails(accountNumber: "765432123456789", ifsc: "HDFC0000053", beneficiaryName: "Gaurav Kumar"))
        let wire = try RazorpayTransformers.orderRequest(request, rules: AmountRules(minimum: 100, maximum: 1_000_000))
        let ours = try JSONSerialization.jsonObject(with: Data(try WireCoding.encode(wire))) as? NSDictionary
        let sample = try JSONSerialization.jsonObject(with: Data(try Fixture.sample("razorpay", "create_order_request_tpv"))) as? NSDictionary
        #expect(ours == sample)
        // TPV without a method is refused before sending.
        var noMethod = request
        noMethod.method = nil
        #expect(throws: ProviderError.self) { try RazorpayTransformers.orderRequest(noMethod, rules: rules) }
    }

    @Test func errorBodiesKeepCodeReasonFieldAndStep() throws {
        let parsed = try #require(RazorpayTransformers.parseError(status: 400, body: try Fixture.sample("razorpay", "error_bad_request")))
        #expect(parsed.code == "BAD_REQUEST_ERROR")
        #expect(parsed.field != nil || parsed.reason != nil)
        let idempotency = try #require(RazorpayTransformers.parseError(status: 400, body: try Fixture.sample("razorpay", "error_refund_idempotency")))
        #expect(idempotency.override == .idempotencyConflict)
        #expect(idempotency.step == nil) // "NA" is dropped
        let turbo = try #require(RazorpayTransformers.parseError(status: 400, body: try Fixture.sample("razorpay", "error_turbo_session")))
        #expect(turbo.step == "CreateSession")
        #expect(turbo.reason == "customer_reference_field_is_missing")
    }

    @Test func statusMapping() {
        #expect(RazorpayStatusMapping.order("attempted") == .attempted)
        #expect(RazorpayStatusMapping.order("paid") == .paid)
        #expect(RazorpayStatusMapping.order("settled") == .unknown("settled"))
        #expect(RazorpayStatusMapping.order("settled").needsReconciliation)
        #expect(RazorpayStatusMapping.payment("captured", refundStatus: "partial") == .partiallyRefunded)
        #expect(RazorpayStatusMapping.payment("captured", refundStatus: "full") == .refunded)
        #expect(RazorpayStatusMapping.payment("authorized", refundStatus: nil) == .authorized)
        #expect(RazorpayStatusMapping.payment("Captured", refundStatus: nil) == .unknown("Captured"))
        #expect(RazorpayStatusMapping.refund("pending") == .pending)
    }
}

@Suite struct CashfreeTransformerTests {
    let rules = CashfreeConfiguration.defaultOrderAmountRules

    @Test func orderSamples() throws {
        let created = try CashfreeTransformers.order(try Fixture.decode(CashfreeOrder.self, "cashfree", "create_order"), rules: rules, operation: "t")
        #expect(created.amount == .inr(1010))
        #expect(created.status == .created)
        guard case .cashfree(let session) = created.checkout else { Issue.record("no session id"); return }
        #expect(session.hasPrefix("session_"))
        let paid = try CashfreeTransformers.order(try Fixture.decode(CashfreeOrder.self, "cashfree", "fetch_order_paid"), rules: rules, operation: "t")
        #expect(paid.status == .paid)
        #expect(paid.rawStatus == "PAID")
    }

    @Test func paymentsAndRefunds() throws {
        let payments = try Fixture.decode([CashfreePayment].self, "cashfree", "fetch_order_payments")
        let payment = try CashfreeTransformers.payment(try #require(payments.first), rules: rules, operation: "t")
        #expect(payment.status == .captured)
        #expect(payment.id == "5114910000001")
        #expect(payment.amount == .inr(1010))
        let refund = try CashfreeTransformers.refund(try Fixture.decode(CashfreeRefund.self, "cashfree", "create_refund"), rules: rules, operation: "t")
        #expect(refund.amount == .inr(505))
        #expect(refund.status == .pending)
        #expect(refund.reference == "refund_gw_0001")
    }

    @Test func requestValidation() {
        let amount = Amount.inr(1000)
        #expect(throws: ProviderError.self) { try CashfreeTransformers.orderRequest(CreateOrderRequest(reference: "o1", amount: amount), rules: rules) }
        #expect(throws: ProviderError.self) {
            try CashfreeTransformers.orderRequest(CreateOrderRequest(reference: "order 1", amount: amount,
                                                                     customer: CustomerDetails(id: "c_1", phone: "9999999999")), rules: rules)
        }
        #expect(throws: ProviderError.self) {
            try CashfreeTransformers.orderRequest(CreateOrderRequest(reference: "order_1", amount: amount,
                                                                     customer: CustomerDetails(id: "c_1", phone: "+919999999999")), rules: rules)
        }
        #expect(throws: ProviderError.self) { try CashfreeTransformers.refundRequest(RefundRequest(paymentID: "1", orderID: "o", reference: "r_1"), rules: rules) }
    }

    @Test func errorBodies() throws {
        let bad = try #require(CashfreeTransformers.parseError(status: 400, body: try Fixture.sample("cashfree", "error_400")))
        #expect(bad.code == "order_amount_invalid")
        #expect(bad.field == "order_amount")
        #expect(bad.reason == "invalid_request_error")
        let idempotent = try #require(CashfreeTransformers.parseError(status: 422, body: try Fixture.sample("cashfree", "error_422_idempotency")))
        #expect(idempotent.override == .idempotencyConflict)
        let auth = try #require(CashfreeTransformers.parseError(status: 401, body: try Fixture.sample("cashfree", "error_401")))
        #expect(auth.override == .authenticationFailed)
    }

    @Test func statusMapping() {
        #expect(CashfreeStatusMapping.order("ACTIVE") == .created)
        #expect(CashfreeStatusMapping.order("EXPIRED") == .expired)
        #expect(CashfreeStatusMapping.order("TERMINATED") == .cancelled)
        #expect(CashfreeStatusMapping.order("paid") == .unknown("paid"))
        #expect(CashfreeStatusMapping.payment("USER_DROPPED") == .cancelled)
        #expect(CashfreeStatusMapping.payment("NOT_ATTEMPTED") == .pending)
        #expect(CashfreeStatusMapping.refund("ONHOLD") == .pending)
        #expect(CashfreeStatusMapping.refund("REVERSED") == .unknown("REVERSED"))
    }
}

@Suite struct InstamojoTransformerTests {
    let rules = InstamojoConfiguration.defaultOrderAmountRules

    @Test func paymentRequestsAndPayments() throws {
        let pending = try InstamojoTransformers.order(try Fixture.decode(InstamojoPaymentRequest.self, "instamojo", "create_payment_request"),
                                                      gatewayOrderID: "g1", rules: rules, operation: "t")
        #expect(pending.status == .created)
        #expect(pending.amount == .inr(250_000))
        #expect(pending.checkout == .instamojo(paymentURL: "https://test.instamojo.com/@gwtest/92e58bd771414d05a5e443b0a85f8b43", gatewayOrderID: "g1"))
        let completed = try Fixture.decode(InstamojoPaymentRequest.self, "instamojo", "fetch_payment_request_completed")
        #expect(InstamojoStatusMapping.paymentRequest(completed.status) == .paid)
        #expect(completed.payments?.compactMap(InstamojoTransformers.lastPathComponent) == ["MOJO5a06005J21512197"])
        let paid = try InstamojoTransformers.payment(try Fixture.decode(InstamojoPayment.self, "instamojo", "fetch_payment"), orderID: nil, rules: rules, operation: "t")
        #expect(paid.status == .captured)
        #expect(paid.orderID == "92e58bd771414d05a5e443b0a85f8b43")
        let failed = try InstamojoTransformers.payment(try Fixture.decode(InstamojoPayment.self, "instamojo", "fetch_payment_failed"), orderID: nil, rules: rules, operation: "t")
        #expect(failed.status == .failed)
        #expect(failed.failure?.code == "AUTHORIZATION_FAILED")
        #expect(InstamojoStatusMapping.payment(nil) == .pending)
    }

    @Test func refundsAndCases() throws {
        let created = try Fixture.decode(InstamojoRefundCreated.self, "instamojo", "create_refund")
        let refund = try InstamojoTransformers.refund(created.refund, reference: "r1", rules: AmountRules(minimum: 1, maximum: 20_000_000), operation: "t")
        #expect(refund.amount == .inr(10_000))
        #expect(refund.status == .succeeded)
        let refundCase = try InstamojoTransformers.refundCase(try Fixture.decode(InstamojoRefundCase.self, "instamojo", "fetch_refund_case"),
                                                              rules: rules, operation: "t")
        #expect(refundCase.status == .succeeded)
        #expect(refundCase.paymentID == "MOJO5a06005J21512197")
        #expect(InstamojoStatusMapping.refundCase(resolution: nil) == .pending)
        #expect(InstamojoStatusMapping.refund("Processed") == .unknown("Processed"))
    }

    @Test func paymentOptionsWithEMITenureAndRate() throws {
        let wire = try JSONDecoder().decode(InstamojoCheckoutOptions.self, from: Data(try Fixture.bytes("extra/instamojo_checkout_options.json")))
        let options = InstamojoTransformers.paymentOptions(wire)
        #expect(options.cards)
        #expect(options.upi)
        #expect(options.netbankingBanks.map(\.name) == ["HDFC Bank", "ICICI Bank"])
        #expect(options.emiBanks.first?.plans == [.init(tenureMonths: 3, interestRatePercent: "13.00"), .init(tenureMonths: 6, interestRatePercent: "13.5")])
        #expect(options.wallets.first?.imageURL == "https://example.com/paytm.png")
    }

    @Test func formFieldsAndErrors() throws {
        let fields = try InstamojoTransformers.paymentRequestFields(
            CreateOrderRequest(reference: "r", amount: .inr(250_000), customer: CustomerDetails(name: "Jon Snow", email: "jon@example.com"), description: "FIFA 16"),
            rules: rules)
        #expect(fields.first { $0.0 == "amount" }?.1 == "2500.00")
        #expect(fields.first { $0.0 == "purpose" }?.1 == "FIFA 16")
        #expect(String(decoding: WireCoding.formEncode([("buyer", "jon+snow@example.com"), ("purpose", "FIFA 16")]), as: UTF8.self)
            == "buyer=jon%2Bsnow%40example.com&purpose=FIFA+16")
        let validation = try #require(InstamojoTransformers.parseError(status: 400, body: try Fixture.sample("instamojo", "error_example")))
        #expect(validation.field == "amount")
        let unauthorized = try #require(InstamojoTransformers.parseError(status: 401, body: try Fixture.sample("instamojo", "error_401")))
        #expect(unauthorized.message == "Authentication credentials were not provided.")
        let client = try #require(InstamojoTransformers.parseError(status: 401, body: try Fixture.sample("instamojo", "oauth2_token_error_401")))
        #expect(client.override == .authenticationFailed)
        #expect(InstamojoStatusMapping.upi(2) == .pending)
        #expect(InstamojoStatusMapping.upi(5) == .captured)
        #expect(InstamojoStatusMapping.upi(9) == .unknown("9"))
    }

    @Test func statusURLMustStayOnTheConfiguredHost() {
        #expect(InstamojoAdapter.origin("http://127.0.0.1:8090/instamojo/v2/x/") == "http://127.0.0.1:8090")
        #expect(InstamojoAdapter.origin("HTTPS://Test.Instamojo.com") == "https://test.instamojo.com")
        #expect(InstamojoAdapter.origin("https://evil.example/?https://test.instamojo.com") == "https://evil.example")
        #expect(InstamojoAdapter.origin("no-scheme") == nil)
    }
}

@Suite struct SetuTransformerTests {
    let rules = SetuConfiguration.defaultAmountRules

    @Test func initiatePaymentSample() throws {
        let initiation = try SetuAdapter.parseInitiatePayment(try Fixture.sample("setu", "initiate_payment_data"))
        #expect(initiation.orderID == "COUWLZ7pFtTgr9LtO")
        #expect(initiation.amount == .inr(352_220))
        #expect(initiation.allowedPaymentModes == [.upi, .internetBanking])
        #expect(initiation.unrecognisedPaymentModes.isEmpty)
        #expect(initiation.deprecatedNamesUsed.isEmpty)
    }

    @Test func deprecatedNamesAreMapped() throws {
        let body = Array(#"{"orderId":"COUWLnew","refId":"CMAold","amount":"100.00","callback":"https://setu.example/cb","mobileNumber":"9876543210","beneficiaryVPA":"biller@upi","remarks":"bill","allowedPaymentModes":["UPI","Bharat QR","CHEQUE"]}"#.utf8)
        let initiation = try SetuAdapter.parseInitiatePayment(body)
        #expect(initiation.orderID == "COUWLnew")
        #expect(initiation.refID == "CMAold")
        #expect(initiation.postPaymentURL == "https://setu.example/cb")
        #expect(initiation.customerMobileNumber == "9876543210")
        #expect(initiation.beneficiaryVPA == "biller@upi")
        #expect(initiation.allowedPaymentModes == [.upi, .bharatQR])
        #expect(initiation.unrecognisedPaymentModes == ["CHEQUE"])
        #expect(Set(initiation.deprecatedNamesUsed) == ["refId", "callback", "mobileNumber", "beneficiaryVPA", "remarks"])
        // The web flow's numeric amount is read exactly too; 10.101 is refused.
        #expect(try SetuAdapter.parseInitiatePayment(Array(#"{"orderId":"COUWL1","amount":1201.0,"postPaymentUrl":"u","customerMobileNumber":"9"}"#.utf8)).amount == .inr(120_100))
        let error = #expect(throws: ProviderError.self) {
            try SetuAdapter.parseInitiatePayment(Array(#"{"orderId":"COUWL1","amount":"10.101","postPaymentUrl":"u","customerMobileNumber":"9"}"#.utf8))
        }
        #expect(error?.code == .invalidAmount)
        #expect(throws: ProviderError.self) { try SetuAdapter.parseInitiatePayment(Array(#"{"amount":"1.00"}"#.utf8)) }
        // Decision 8: refId is never an order id; a current and a deprecated name that differ are refused, naming both.
        #expect(throws: ProviderError.self) {
            try SetuAdapter.parseInitiatePayment(Array(#"{"refId":"COUWLold","amount":"1.00","postPaymentUrl":"u","customerMobileNumber":"9"}"#.utf8))
        }
        let conflict = #expect(throws: ProviderError.self) {
            try SetuAdapter.parseInitiatePayment(Array(#"{"orderId":"COUWL1","amount":"1.00","postPaymentUrl":"https://a","callback":"https://b","customerMobileNumber":"9"}"#.utf8))
        }
        #expect(conflict?.message.contains("postPaymentUrl") == true && conflict?.message.contains("callback") == true)
        let equal = try SetuAdapter.parseInitiatePayment(Array(#"{"orderId":"COUWL1","amount":"1.00","postPaymentUrl":"https://a","callback":"https://a","customerMobileNumber":"9"}"#.utf8))
        #expect(equal.deprecatedNamesUsed == ["callback"])
        #expect(throws: ProviderError.self) { try SetuAdapter.parseInitiatePayment(Array("not json".utf8)) }
    }

    @Test func paymentEventMatchesTheSample() throws {
        let confirmation = SetuPaymentConfirmation(orderID: "COUWLZ7pFtTgr9LtO", transactionID: "407012345678", paidAt: 1_710_851_445,
                                                   amount: .inr(352_220), mode: .upi, outcome: .success, remarks: "Payment processed successfully.")
        let wire = try SetuTransformers.paymentEvent(confirmation, rules: rules)
        let ours = try JSONSerialization.jsonObject(with: Data(try WireCoding.encode(wire))) as? NSDictionary
        let sample = try JSONSerialization.jsonObject(with: Data(try Fixture.sample("setu", "payment_event_request"))) as? NSDictionary
        #expect(ours == sample)
        var failure = confirmation
        failure.outcome = .failure(code: "U30", message: "Debit failed")
        #expect(try SetuTransformers.paymentEvent(failure, rules: rules).paymentStatus == "FAILURE")
    }

    @Test func utcDateTimes() {
        #expect(SetuTransformers.utcDateTime(0) == "1970-01-01 00:00:00")
        #expect(SetuTransformers.utcDateTime(951_782_400) == "2000-02-29 00:00:00")
        #expect(SetuTransformers.utcDateTime(1_710_851_445) == "2024-03-19 12:30:45")
        #expect(SetuTransformers.utcDateTime(-1) == "1969-12-31 23:59:59")
    }

    @Test func linkRequestAndErrors() throws {
        let wire = try SetuTransformers.linkRequest(SetuBillPayLinkRequest(mobileNumber: "9876543210", customerID: "cust@1234", category: "Water",
                                                                           billerID: "BBPSDUMMY001", billParameters: [("Consumer Number", "1895159")],
                                                                           additionalInfo: ["appSession": "abc"]), orgID: "11321101108211244842")
        let ours = try JSONSerialization.jsonObject(with: Data(try WireCoding.encode(wire))) as? NSDictionary
        let sample = try JSONSerialization.jsonObject(with: Data(try Fixture.sample("setu", "create_link_request"))) as? NSDictionary
        #expect(ours == sample)
        #expect(throws: ProviderError.self) { try SetuTransformers.linkRequest(SetuBillPayLinkRequest(mobileNumber: "98-76"), orgID: "o") }
        let error = try #require(SetuTransformers.parseError(status: 400, body: try Fixture.sample("setu", "error")))
        #expect(error.traceID == "C3SFG0O6N88R6UI7EQ")
        #expect(error.code == "error-code-if-any")
        #expect(SetuStatusMapping.payment(event: "bill_payment_success") == .captured)
        #expect(SetuStatusMapping.payment(event: "bill_collection_failure") == .failed)
        #expect(SetuStatusMapping.payment(event: "dispute_raised") == nil)
        #expect(SetuStatusMapping.payment(event: "bill_paid_twice") == .unknown("bill_paid_twice"))
    }
}

/// Setu's calls to the merchant (custom payment): requests read, answers written as the samples show.
@Suite struct SetuPartnerAPITests {
    static func object(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    @Test func paymentStatusRoundTripsTheSample() throws {
        #expect(try SetuPartnerAPI.paymentStatusRequest(try Fixture.sample("setu", "partner_get_payment_status_request")) == "COUWLje9V7wWs9N3w")
        let confirmation = SetuPaymentConfirmation(orderID: "COUWLje9V7wWs9N3w", transactionID: "UNIQUE_PAYMENT_TRANSACTION_ID",
                                                   paidAt: 1_710_851_445, amount: .inr(10_000), mode: .upi, outcome: .success)
        #expect(try Self.object(try SetuPartnerAPI.paymentStatusResponse(confirmation))
            == (try Self.object(try Fixture.sample("setu", "partner_get_payment_status_response"))))
        let unknown = try Self.object(try SetuPartnerAPI.paymentStatusResponse(nil))
        #expect(unknown["status"] as? String == "invalid-order-id")
        #expect(throws: ProviderError.self) { try SetuPartnerAPI.paymentStatusRequest(Array("{}".utf8)) }
    }

    @Test func refundRoundTripsTheSample() throws {
        let request = try SetuPartnerAPI.refundRequest(try Fixture.sample("setu", "partner_refund_request"))
        #expect(request.amount == .inr(10_000))
        #expect(try Self.object(SetuPartnerAPI.refundResponse(request, refundID: "UNIQUE_REFUND_ID"))
            == (try Self.object(try Fixture.sample("setu", "partner_refund_response"))))
        let refused = try Self.object(SetuPartnerAPI.refundResponse(request, refundID: nil, failureReason: "already refunded"))
        #expect(refused["status"] as? String == "failure")
        let error = #expect(throws: ProviderError.self) {
            try SetuPartnerAPI.refundRequest(Array(#"{"orderId":"o","amount":"1.001","transactionId":"t"}"#.utf8))
        }
        #expect(error?.code == .invalidAmount)
    }

    @Test func paymentLinkRequestWithNumericAmountAndModeArray() throws {
        let request = try SetuPartnerAPI.paymentLinkRequest(try Fixture.sample("setu", "partner_get_payment_link_request"))
        #expect(request.amount == .inr(120_100))
        #expect(request.allowedPaymentModes == [.cash, .upi, .creditCard])
        #expect(try Self.object(SetuPartnerAPI.paymentLinkResponse(link: "https://example.com/onetimepayment-link"))
            == (try Self.object(try Fixture.sample("setu", "partner_get_payment_link_response"))))
        #expect(try Self.object(SetuPartnerAPI.paymentLinkResponse(link: nil, refusal: .insufficientBalance))["code"] as? String == "insufficient-balance")
    }

    @Test func setuAuthenticatesWithTheSharedKey() {
        let key = Secret("setu-partner-key")
        #expect(SetuPartnerAPI.authenticate(WebhookRequest(headers: [("x-setu-billpay-api-key", "setu-partner-key")], body: []), key: key) == .valid)
        #expect(!SetuPartnerAPI.authenticate(WebhookRequest(headers: [("X-SETU-BILLPAY-API-KEY", "other")], body: []), key: key).isValid)
        #expect(!SetuPartnerAPI.authenticate(WebhookRequest(headers: [], body: []), key: key).isValid)
    }
}

/// Amounts a provider sends that cannot be represented are refused, never rounded.
@Suite struct IncomingAmountTests {
    @Test func razorpayFractionalPaiseIsUndocumented() {
        let body = Array(#"{"id":"order_1","amount":100.5,"currency":"INR","status":"created"}"#.utf8)
        #expect(WireCoding.decode(RazorpayOrder.self, from: body) == nil)
    }

    @Test func instamojoNonNumericOrTooPreciseAmounts() throws {
        let rules = InstamojoConfiguration.defaultOrderAmountRules
        for text in ["N/A", "10.101", "-5.00", "1e2"] {
            let body = Array(#"{"id":"MOJO1","status":true,"amount":"\#(text)","currency":"INR"}"#.utf8)
            let wire = try #require(WireCoding.decode(InstamojoPayment.self, from: body))
            let error = #expect(throws: ProviderError.self) { try InstamojoTransformers.payment(wire, orderID: nil, rules: rules, operation: "t") }
            #expect(error?.code == .malformedResponse, "\(text)")
        }
    }

    @Test func cashfreeOtherCurrenciesAreRefused() throws {
        let body = Array(#"{"order_id":"o1","order_amount":10.10,"order_currency":"USD","order_status":"PAID"}"#.utf8)
        let wire = try #require(WireCoding.decode(CashfreeOrder.self, from: body))
        let error = #expect(throws: ProviderError.self) {
            try CashfreeTransformers.order(wire, rules: CashfreeConfiguration.defaultOrderAmountRules, operation: "t")
        }
        #expect(error?.code == .malformedResponse)
    }
}
