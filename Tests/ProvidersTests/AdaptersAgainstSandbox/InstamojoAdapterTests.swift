import Sandbox
import Testing
@testable import Providers
import PaymentsCore

/// Every Instamojo adapter operation against the sandbox over real HTTP.
@Suite struct InstamojoAdapterTests {
    static let buyer = CustomerDetails(name: "Jon Snow", email: "jon+snow@example.com", phone: "+919999999990")

    static func order(_ reference: String, paise: Int64 = 250_000) -> CreateOrderRequest {
        CreateOrderRequest(reference: reference, amount: .inr(paise), customer: buyer, description: "FIFA 16",
                           returnURL: "https://merchant.example.com/instamojo/redirect")
    }

    @Test func paymentRequestGatewayOrderOptionsUPICollectPaymentsAndRefunds() async throws {
        try await AdapterHarness.run { h in
            let instamojo = h.instamojo()
            let order = try await instamojo.createOrder(Self.order("imj_ref_1"))
            #expect(order.status == .created)
            #expect(order.amount == .inr(250_000))
            guard case .instamojo(let paymentURL, let gatewayID?) = order.checkout else { Issue.record("no gateway order id: \(order.checkout)"); return }
            #expect(paymentURL.hasPrefix(h.sandbox.baseURL))

            // Payment options: cards, banks, EMI with tenure and rate, wallets, UPI.
            let options = try await instamojo.paymentOptions(gatewayOrderID: gatewayID)
            #expect(options.cards)
            #expect(options.upi)
            #expect(!options.netbankingBanks.isEmpty)
            #expect(!options.wallets.isEmpty)
            let plan = try #require(options.emiBanks.first?.plans.first)
            #expect(plan.tenureMonths > 0)
            #expect(try DecimalText.minorUnits(plan.interestRatePercent, exponent: 2) > 0)

            // UPI collect to a VPA, pending until the customer approves.
            let collect = try await instamojo.requestUPICollect(gatewayOrderID: gatewayID, vpa: "jon@upi")
            #expect(collect.status == .pending)
            #expect(try await instamojo.upiCollectStatus(collect).status == .pending)
            await expectProviderError(.invalidRequest) { _ = try await instamojo.requestUPICollect(gatewayOrderID: gatewayID, vpa: "jon-at-upi") }

            // The customer approves the collect on the gateway order (which completes its payment request too).
            _ = try await h.complete("instamojo", gatewayID, status: "paid", extra: #","method":"UPI""#)
            #expect(try await instamojo.upiCollectStatus(collect).status == .captured)
            #expect(try await instamojo.fetchOrder(id: order.id).status == .paid)
            let payment = try #require(try await instamojo.fetchPayments(orderID: order.id).first)
            #expect(payment.status == .captured)
            #expect(payment.amount == .inr(250_000))
            #expect(payment.orderID == order.id)

            let refund = try await instamojo.createRefund(RefundRequest(paymentID: payment.id, amount: .inr(10_000), reference: "imj_refund_1",
                                                                        note: "Customer is not satisfied."), reason: .notSatisfied)
            #expect(refund.status == .succeeded)
            #expect(refund.amount == .inr(10_000))
            #expect(try await instamojo.fetchRefund(id: refund.id).status == .succeeded)
            // The same transaction id again is refused as a replay.
            await expectProviderError(.rejected) {
                _ = try await instamojo.createRefund(RefundRequest(paymentID: payment.id, amount: .inr(100), reference: "imj_refund_1"))
            }

            let hooks = try await h.webhooks(provider: "instamojo")
            let credit = try #require(hooks.first)
            let event = try Webhooks.verifiedEvent(provider: .instamojo, request: credit.request,
                                                   secret: Secret(h.credentials.instamojoPrivateSalt)).get()
            #expect(event.paymentID == payment.id)
            #expect(event.orderID == order.id)
            #expect(event.paymentStatus == .captured)
            #expect(event.amount == .inr(250_000))
            for hook in hooks {
                #expect(instamojo.verifyWebhook(hook.request) == .valid, "\(hook.event)")
                #expect(!InstamojoAdapter.verifyWebhook(hook.request, salt: Secret("another-salt")).isValid)
            }
            // One token served every call above.
            #expect(await instamojo.tokenFetchCount() == 1)
        }
    }

    @Test func gatewayOrdersByTransactionID() async throws {
        try await AdapterHarness.run { h in
            let instamojo = h.instamojo()
            let order = try await instamojo.createGatewayOrder(Self.order("gw_txn_0001", paise: 900))
            #expect(order.reference == "gw_txn_0001")
            #expect(order.amount == .inr(900))
            guard case .instamojo(let url, let id) = order.checkout else { Issue.record("no payment url"); return }
            #expect(id == order.id)
            #expect(!url.isEmpty)
            let found = try await instamojo.fetchGatewayOrder(transactionID: "gw_txn_0001")
            #expect(found.id == order.id)
            #expect(found.status == .created)
            await expectProviderError(.rejected) { _ = try await instamojo.createGatewayOrder(Self.order("gw_txn_0001", paise: 900)) }
            // Outside ₹9 … ₹2,00,000 nothing is sent.
            await expectProviderError(.invalidAmount) { _ = try await instamojo.createGatewayOrder(Self.order("gw_small", paise: 899)) }
            await expectProviderError(.invalidAmount) { _ = try await instamojo.createOrder(Self.order("gw_big", paise: 20_000_001)) }
        }
    }

    @Test func tokenIsCachedSharedAndRefreshedAfterRejection() async throws {
        try await AdapterHarness.run { h in
            let instamojo = h.instamojo()
            let order = try await instamojo.createOrder(Self.order("imj_tok"))
            // Concurrent callers share one fetch.
            let fresh = h.instamojo()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await fresh.fetchOrder(id: order.id) } }
                try await group.waitForAll()
            }
            #expect(await fresh.tokenFetchCount() == 1)
            // The provider drops every token: the next call gets a 401, refreshes once and succeeds.
            try await h.control("POST", "/_sandbox/instamojo/tokens/expire")
            #expect(try await fresh.fetchOrder(id: order.id).id == order.id)
            #expect(await fresh.tokenFetchCount() == 2)
            // Wrong client credentials: the token call itself fails, typed.
            let wrong = InstamojoAdapter(configuration: InstamojoConfiguration(baseURL: h.sandbox.baseURL(for: .instamojo), clientID: "test_sandbox_client_id",
                                                                               clientSecret: Secret("nope-secret"), privateSalt: Secret("s"), transport: h.transport),
                                         client: h.client)
            let error = await expectProviderError(.authenticationFailed) { _ = try await wrong.fetchOrder(id: order.id) }
            #expect(error?.operation == "fetchToken")
            #expect(error?.providerCode == "invalid_client")
        }
    }

    @Test func validationErrorsNameTheField() async throws {
        try await AdapterHarness.run { h in
            // A VPA the local check lets through but the provider refuses.
            let order = try await h.instamojo().createOrder(Self.order("imj_val"))
            guard case .instamojo(_, let gatewayID?) = order.checkout else { Issue.record("no gateway order"); return }
            let error = await expectProviderError(.rejected) { _ = try await h.instamojo().requestUPICollect(gatewayOrderID: gatewayID, vpa: "a b@c d") }
            #expect(error?.field == "virtual_address")
            await expectProviderError(.notFound) { _ = try await h.instamojo().fetchPayment(id: "MOJO_missing") }
        }
    }
}
