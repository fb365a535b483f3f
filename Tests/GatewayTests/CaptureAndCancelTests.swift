import Foundation
@testable import Gateway
import JSON
import Postgres
import Testing

/// `capturePayment` (Razorpay payments left AUTHORIZED) and `cancelOrder` (Cashfree's terminate,
/// local cancellation elsewhere, late payments) through real HTTP, PostgreSQL and the sandbox.
@Suite struct CaptureAndCancelTests {
    static let capture = """
        mutation($p: ID!, $a: MoneyInput) { capturePayment(input: {paymentId: $p, amount: $a}) {
          payment { id status capturedAt amount { amount } order { status amountPaid { amount } } } userErrors { code field } } }
        """

    static let cancel = """
        mutation($o: ID!, $r: String) { cancelOrder(input: {orderId: $o, reason: $r}) {
          order { id status providerStatus checkout { __typename } timeline { kind status message } } userErrors { code message } } }
        """

    @Test func anAuthorizedRazorpayPaymentIsCapturedForTheAuthorizedAmountOnly() async throws {
        try await GatewayHarness.run { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "42000")
            let id = try #require(created["id"]?.stringValue)
            try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue), status: "authorized")
            var paymentID: String?
            #expect(try await h.eventually {
                let read = try await h.graphQL("query($id: ID!) { order(id: $id) { status payments { id status } } }", variables: ["id": .string(id)])
                paymentID = read.data("order")?["payments"]?.arrayValue?.first(where: { $0["status"]?.stringValue == "AUTHORIZED" })?["id"]?.stringValue
                return paymentID != nil && read.data("order")?["status"]?.stringValue == "PENDING"
            })
            let payment = try #require(paymentID)
            // Nothing can be refunded before the capture.
            #expect(try await RefundTests.refund(h, payment: payment, amount: "1000").userErrorCodes("createRefund") == ["INVALID_STATE"])
            let wrong = try await h.graphQL(Self.capture, variables: ["p": .string(payment), "a": .object(["amount": "40000"])])
            #expect(wrong.userErrorCodes("capturePayment") == ["AMOUNT_MISMATCH"])
            let captured = try await h.graphQL(Self.capture, variables: ["p": .string(payment), "a": .object(["amount": "42000"])])
            #expect(captured.userErrorCodes("capturePayment") == [], "\(captured.json)")
            let result = try #require(captured.data("capturePayment")?["payment"])
            #expect(result["status"]?.stringValue == "CAPTURED")
            #expect(result["capturedAt"]?.stringValue != nil)
            #expect(result["order"]?["status"]?.stringValue == "PAID")
            #expect(result["order"]?["amountPaid"]?["amount"]?.stringValue == "42000")
            // A second capture is refused (the payment is no longer AUTHORIZED).
            let again = try await h.graphQL(Self.capture, variables: ["p": .string(payment)])
            #expect(again.userErrorCodes("capturePayment") == ["INVALID_STATE"])
            let timeline = try await h.graphQL("query($id: ID!) { order(id: $id) { timeline { kind } } }", variables: ["id": .string(id)])
            #expect(timeline.data("order")?["timeline"]?.arrayValue?.contains { $0["kind"]?.stringValue == "PAYMENT_CAPTURED" } == true)
            // Wrong-type and unknown ids.
            #expect(try await h.graphQL(Self.capture, variables: ["p": .string(id)]).userErrorCodes("capturePayment") == ["NOT_FOUND"])
            let unknown = GlobalID(.payment, UUID()).description
            #expect(try await h.graphQL(Self.capture, variables: ["p": .string(unknown)]).userErrorCodes("capturePayment") == ["NOT_FOUND"])
        }
    }

    @Test func onlyRazorpayPaymentsAreCaptured() async throws {
        try await GatewayHarness.run { h in
            let (_, payment) = try await RefundTests.paidOrder(h, provider: "CASHFREE", amount: "17000")
            let answer = try await h.graphQL(Self.capture, variables: ["p": .string(payment)])
            #expect(answer.userErrorCodes("capturePayment") == ["CAPABILITY_NOT_SUPPORTED"])
        }
    }

    @Test func aCashfreeOrderIsTerminatedAtCashfree() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "+919812345678")
            let created = try await OrderLifecycleTests.createOrder(h, provider: "CASHFREE", amount: "17000", customer: customer)
            let id = try #require(created["id"]?.stringValue)
            let answer = try await h.graphQL(Self.cancel, variables: ["o": .string(id), "r": "customer changed their mind"])
            #expect(answer.userErrorCodes("cancelOrder") == [], "\(answer.json)")
            let order = try #require(answer.data("cancelOrder")?["order"])
            #expect(order["status"]?.stringValue == "CANCELLED")
            #expect(order["providerStatus"]?.stringValue == "TERMINATED")
            // A final order offers no checkout any more (it was there before).
            #expect(created["checkout"]?["__typename"]?.stringValue == "CashfreeCheckout")
            #expect(order["checkout"] == .null)
            let last = order["timeline"]?.arrayValue?.last
            #expect(last?["kind"]?.stringValue == "CANCELLED")
            #expect(last?["message"]?.stringValue?.contains("customer changed their mind") == true)
            // Cashfree no longer takes a payment for it.
            let completion = try await h.complete("cashfree", order: try #require(created["receipt"]?.stringValue))
            #expect(completion["error"]?.stringValue?.contains("TERMINATED") == true)
            // Cancelling again changes nothing.
            let again = try await h.graphQL(Self.cancel, variables: ["o": .string(id)])
            #expect(again.userErrorCodes("cancelOrder") == [])
            #expect(again.data("cancelOrder")?["order"]?["timeline"]?.arrayValue?.count == order["timeline"]?.arrayValue?.count)
        }
    }

    @Test func aRazorpayOrderIsCancelledLocallyAndALatePaymentStillPaysIt() async throws {
        try await GatewayHarness.run { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "30000")
            let id = try #require(created["id"]?.stringValue)
            let answer = try await h.graphQL(Self.cancel, variables: ["o": .string(id)])
            #expect(answer.userErrorCodes("cancelOrder") == [], "\(answer.json)")
            #expect(answer.data("cancelOrder")?["order"]?["status"]?.stringValue == "CANCELLED")
            // Razorpay has no cancel API: the customer can still pay, and a confirmed payment wins (decision 10).
            try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await OrderLifecycleTests.order(h, id)["status"]?.stringValue == "PAID" })
            let timeline = try await h.graphQL("query($id: ID!) { order(id: $id) { timeline { kind status previousStatus message } } }",
                                               variables: ["id": .string(id)])
            let late = timeline.data("order")?["timeline"]?.arrayValue?.first { $0["message"]?.stringValue?.hasPrefix("LATE_PAYMENT") == true }
            #expect(late?["status"]?.stringValue == "PAID")
            #expect(late?["previousStatus"]?.stringValue == "CANCELLED")
            // A paid order cannot be cancelled.
            let paid = try await h.graphQL(Self.cancel, variables: ["o": .string(id)])
            #expect(paid.userErrorCodes("cancelOrder") == ["INVALID_STATE"])
        }
    }

    @Test func anInstamojoOrderWithAPaymentTheGatewayHasNotHeardOfIsNotCancelled() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let created = try await OrderLifecycleTests.createOrder(h, provider: "INSTAMOJO", customer: customer,
                                                                    extra: #"returnUrl: "https://shop.example/done""#)
            let id = try #require(created["id"]?.stringValue)
            // Paid at Instamojo, but PayQL not told yet (Instamojo's gateway-order webhook names no order).
            try await h.complete("instamojo", order: try #require(created["checkout"]?["gatewayOrderId"]?.stringValue))
            let answer = try await h.graphQL(Self.cancel, variables: ["o": .string(id)])
            #expect(answer.userErrorCodes("cancelOrder") == ["INVALID_STATE"])
            #expect(try await OrderLifecycleTests.order(h, id)["status"]?.stringValue == "PAID")
            // Unknown and wrong-type ids; a publishable key may not cancel.
            #expect(try await h.graphQL(Self.cancel, variables: ["o": .string(GlobalID(.order, UUID()).description)])
                .userErrorCodes("cancelOrder") == ["NOT_FOUND"])
            #expect(try await h.graphQL(Self.cancel, variables: ["o": .string(customer)]).userErrorCodes("cancelOrder") == ["NOT_FOUND"])
            #expect(try await h.graphQL(Self.cancel, variables: ["o": .string(id)], key: h.opsKey).status == 403)
        }
    }
}
