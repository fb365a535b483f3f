import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// Every Setu bill-pay adapter operation against the sandbox over real HTTP.
@Suite struct SetuAdapterTests {
    @Test func linkInitiationConfirmationAndWebhooks() async throws {
        try await AdapterHarness.run { h in
            let setu = h.setu()
            let link = try await setu.createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "9876543210", customerID: "cust@1234", category: "Water",
                                                                               billerID: "BBPSDUMMY001", billParameters: [("Consumer Number", "1895159")]))
            #expect(link.link.hasPrefix(h.sandbox.baseURL))
            let session = try #require(link.sessionID)

            // The webview's initiate_payment data, as the app would receive it.
            let data = try await h.controlBytes("POST", "/_sandbox/setu/links/\(session)/initiate", json: #"{"amount":"3522.20","allowedPaymentModes":"UPI,NETBANKING"}"#)
            let initiation = try SetuAdapter.parseInitiatePayment(data)
            #expect(initiation.orderID.hasPrefix("COUWL"))
            #expect(initiation.amount == .inr(352_220))
            #expect(initiation.allowedPaymentModes == [.upi, .internetBanking])

            // A mode outside the allowed ones is refused before anything is sent.
            await expectProviderError(.invalidRequest) {
                try await setu.confirmPayment(SetuPaymentConfirmation(orderID: initiation.orderID, transactionID: "txn-1", paidAt: 1_710_851_445,
                                                                      amount: initiation.amount, mode: .cash, outcome: .success),
                                              allowedModes: initiation.allowedPaymentModes)
            }
            // The wrong amount is Setu's rejection, with its trace id.
            let wrongAmount = await expectProviderError(.rejected) {
                try await setu.confirmPayment(SetuPaymentConfirmation(orderID: initiation.orderID, transactionID: "txn-1", paidAt: 1_710_851_445,
                                                                      amount: .inr(100), mode: .upi, outcome: .success))
            }
            #expect(wrongAmount?.traceID != nil)
            let confirmation = SetuPaymentConfirmation(orderID: initiation.orderID, transactionID: "407012345678", paidAt: 1_710_851_445,
                                                       amount: initiation.amount, mode: .upi, outcome: .success, remarks: "paid")
            try await setu.confirmPayment(confirmation, allowedModes: initiation.allowedPaymentModes)
            // Setu's payment-event is idempotent: confirming again is fine.
            try await setu.confirmPayment(confirmation)

            _ = try await h.complete("setu", initiation.orderID, status: "paid")
            let hooks = try await h.webhooks(provider: "setu")
            let success = try #require(hooks.first { $0.event == "bill_payment_success" })
            let event = try Webhooks.verifiedEvent(provider: .setu, request: success.request, secret: Secret(h.credentials.setuWebhookKey)).get()
            #expect(event.orderID == initiation.orderID)
            #expect(event.paymentStatus == .captured)
            #expect(event.amount == initiation.amount)
            for hook in hooks {
                #expect(setu.verifyWebhook(hook.request) == .valid)
                #expect(!SetuAdapter.verifyWebhook(hook.request, key: Secret("sandbox-setu-webhook-KEY")).isValid)
            }
            #expect(await setu.tokenFetchCount() == 1)
        }
    }

    @Test func failureConfirmationAndTokenRefresh() async throws {
        try await AdapterHarness.run { h in
            let setu = h.setu()
            let link = try await setu.createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "9876543210"))
            let data = try await h.controlBytes("POST", "/_sandbox/setu/links/\(try #require(link.sessionID))/initiate")
            let initiation = try SetuAdapter.parseInitiatePayment(data)
            try await setu.confirmPayment(SetuPaymentConfirmation(orderID: initiation.orderID, transactionID: "407012345679", paidAt: 1_710_851_505,
                                                                  amount: initiation.amount, mode: .upi, outcome: .failure(code: "U30", message: "Debit failed")))
            // Setu drops every token: the next link call gets a 401, refreshes once and succeeds.
            try await h.control("POST", "/_sandbox/setu/tokens/expire")
            #expect(try await setu.createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "9876543210")).sessionID != link.sessionID)
            #expect(await setu.tokenFetchCount() == 2)
            await expectProviderError(.invalidRequest) { _ = try await setu.createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "12ab")) }
            // Wrong credentials fail at the token call, typed.
            let wrong = SetuAdapter(configuration: SetuConfiguration(baseURL: h.sandbox.baseURL(for: .setu), clientID: "sandbox-setu-client-id",
                                                                     secret: Secret("wrong"), partnerID: "100000000001", orgID: "o",
                                                                     webhookAPIKey: Secret("k"), transport: h.transport), client: h.client)
            let error = await expectProviderError(.authenticationFailed) { _ = try await wrong.createBillPayLink(SetuBillPayLinkRequest(mobileNumber: "9876543210")) }
            #expect(error?.operation == "fetchToken")
        }
    }
}
