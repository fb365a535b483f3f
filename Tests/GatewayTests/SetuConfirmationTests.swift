import Foundation
import HTTPClient
import JSON
import Postgres
import Sandbox
@testable import Gateway
import Testing

/// Setu bill pay, flows F22–F24 (decision 7): the payment-event goes to Setu through the outbox
/// once the collecting order is verified PAID (SUCCESS) or final otherwise (FAILURE), retried on
/// 5xx, flagged (and refunded for an amount mismatch) on a 4xx; Setu's webhooks and its calls to
/// PayQL (getPaymentStatus, refund); a refund reported back to Setu.
@Suite struct SetuConfirmationTests {
    static let billFields = """
        id setuOrderId status postPaymentUrl flaggedReason setuTransactionId paymentMode
        confirmation { status paymentStatus transactionId paymentMode paidAt amount { amount } failureCode failureMessage attempts lastError acknowledgedAt bankReference }
        order { id providerOrderId status payments { providerPaymentId } } refunds { id status initiatedBy }
        """

    /// A started bill payment paid through Razorpay: (bill payment id, Setu order id, Razorpay order id).
    static func startAtRazorpay(_ h: GatewayHarness, amount: String = "3522.2",
                                modes: String = "UPI,NETBANKING") async throws -> (bill: String, setuOrder: String, providerOrder: String) {
        let (link, data) = try await SetuBillPayTests.linkAndInitiation(h, amount: amount, modes: modes)
        let started = try await SetuBillPayTests.start(h, data, link: link, extra: "provider: RAZORPAY")
        #expect(started.userErrorCodes("startBillPayment") == [])
        let bill = try #require(started.data("startBillPayment")?["billPayment"])
        let order = try #require(started.data("startBillPayment")?["order"]?["id"]?.stringValue)
        let read = try await h.graphQL("query($id: ID!) { node(id: $id) { ... on Order { providerOrderId } } }", variables: ["id": .string(order)])
        return (try #require(bill["id"]?.stringValue), try #require(bill["setuOrderId"]?.stringValue),
                try #require(read.data("node")?["providerOrderId"]?.stringValue))
    }

    static func bill(_ h: GatewayHarness, _ id: String) async throws -> JSONValue {
        try await h.graphQL("query($id: ID) { billPayment(id: $id) { \(billFields) } }", variables: ["id": .string(id)]).data("billPayment") ?? .null
    }

    /// Setu's side of the order (sandbox inspection: deliveries counted).
    static func setu(_ h: GatewayHarness, _ setuOrder: String) async throws -> JSONValue {
        try await h.sandboxControl("/setu/orders/\(setuOrder)", method: "GET")
    }

    /// Runs `body` with an outbox worker (fast schedule) delivering this gateway's messages.
    static func withOutbox(_ h: GatewayHarness, _ body: () async throws -> Void) async throws {
        var configuration = OutboxConfiguration()
        configuration.interval = .milliseconds(20)
        configuration.schedule = OutboxSchedule(delays: [.milliseconds(100), .milliseconds(200)])
        let worker = OutboxWorker(gateway: h.gateway, client: h.client, configuration: configuration)
        worker.start()
        do { try await body() } catch {
            await worker.shutdown()
            throw error
        }
        await worker.shutdown()
    }

    @Test func paidBillIsConfirmedOnceThenSetuSettlesAsksAndRefunds() async throws {
        try await GatewayHarness.run { h in
            try await Self.withOutbox(h) {
                let (billID, setuOrder, providerOrder) = try await Self.startAtRazorpay(h)
                var bill = try await Self.bill(h, billID)
                #expect(bill["confirmation"]?.isNull == true)
                #expect(bill["status"]?.stringValue == "AWAITING_PAYMENT")

                // The customer pays; Razorpay's webhook makes the order PAID; the outbox tells Setu.
                _ = try await h.sandboxControl("/razorpay/orders/\(providerOrder)/complete", body: #"{"status":"paid","method":"upi"}"#)
                #expect(try await h.eventually { try await Self.bill(h, billID)["confirmation"]?["status"]?.stringValue == "ACKNOWLEDGED" })
                bill = try await Self.bill(h, billID)
                #expect(bill["status"]?.stringValue == "CONFIRMED")
                // The merchant is told in the confirmation's transaction (after order.paid).
                #expect(try await h.pool.query("""
                    SELECT array_agg(payload->>'type' ORDER BY id)::text FROM outbox WHERE kind = 'merchant.webhook'
                    """).single(String.self) == "{order.paid,bill_payment.confirmed}")
                let deliveries = try await h.graphQL("query { merchantWebhookDeliveries(first: 1) { nodes { eventType billPayment { id } } } }",
                                                     key: h.opsKey).data("merchantWebhookDeliveries")?["nodes"]?.arrayValue?.first
                #expect(deliveries?["eventType"]?.stringValue == "bill_payment.confirmed")
                #expect(deliveries?["billPayment"]?["id"]?.stringValue == billID)
                #expect(bill["postPaymentUrl"]?.stringValue?.contains("/setu/payment-callback/") == true)
                let paymentID = try #require(bill["order"]?["payments"]?.arrayValue?.first?["providerPaymentId"]?.stringValue)
                let confirmation = try #require(bill["confirmation"])
                #expect(confirmation["paymentStatus"]?.stringValue == "SUCCESS")
                #expect(confirmation["transactionId"]?.stringValue == paymentID)
                #expect(confirmation["paymentMode"]?.stringValue == "UPI")
                #expect(confirmation["amount"]?["amount"]?.stringValue == "352220")
                #expect(confirmation["attempts"]?.intValue == 1)
                #expect(confirmation["acknowledgedAt"]?.stringValue != nil)
                #expect(bill["paymentMode"]?.stringValue == "UPI")
                // Setu received exactly one payment-event, and no more arrive.
                try await Task.sleep(for: .milliseconds(500))
                let setu = try await Self.setu(h, setuOrder)
                #expect(setu["paymentEventDeliveries"]?.intValue == 1)
                #expect(setu["paymentEvent"]?["paymentStatus"]?.stringValue == "SUCCESS")
                #expect(setu["paymentEvent"]?["transactionId"]?.stringValue == paymentID)
                #expect(setu["paymentEvent"]?["paymentMode"]?.stringValue == "UPI")

                // Setu settles the bill and says so (user-event webhook).
                _ = try await h.complete("setu", order: setuOrder, status: "paid")
                #expect(try await h.eventually { try await Self.bill(h, billID)["status"]?.stringValue == "BILL_PAID" })
                #expect(try await Self.bill(h, billID)["setuTransactionId"]?.stringValue?.hasPrefix("AXO") == true)

                // Setu asks PayQL for the payment's status.
                let status = try await h.sandboxControl("/setu/orders/\(setuOrder)/payment-status")
                #expect(status["status"]?.intValue == 200)
                #expect(status["problems"] == .array([]))
                #expect(status["response"]?["status"]?.stringValue == "success")
                #expect(status["response"]?["data"]?["transactionId"]?.stringValue == paymentID)
                #expect(status["response"]?["data"]?["amount"]?.stringValue == "3522.20")

                // Setu asks for a refund: made once through Razorpay, reported back to Setu.
                let refund = try await h.sandboxControl("/setu/orders/\(setuOrder)/refund")
                #expect(refund["problems"] == .array([]))
                #expect(refund["response"]?["status"]?.stringValue == "success")
                let refundID = try #require(refund["response"]?["data"]?["refundId"]?.stringValue)
                let again = try await h.sandboxControl("/setu/orders/\(setuOrder)/refund")
                #expect(again["response"]?["data"]?["refundId"]?.stringValue == refundID)
                #expect(try await h.count("refunds") == 1)
                bill = try await Self.bill(h, billID)
                #expect(bill["refunds"]?.arrayValue?.first?["initiatedBy"]?.stringValue == "SETU")
                #expect(try await h.eventually { try await Self.setu(h, setuOrder)["refundEvents"]?[refundID]?.stringValue == "success" })
                #expect(try await Self.bill(h, billID)["status"]?.stringValue == "REFUNDED")
            }
        }
    }

    @Test func refusedWithA5xxIsRetriedUntilAcknowledged() async throws {
        try await GatewayHarness.run { h in
            try await Self.withOutbox(h) {
                let (billID, setuOrder, providerOrder) = try await Self.startAtRazorpay(h)
                _ = try await h.sandboxControl("/setu/payment-events/refuse", body: #"{"status":503,"times":3,"orderId":"\#(setuOrder)"}"#)
                _ = try await h.sandboxControl("/razorpay/orders/\(providerOrder)/complete", body: #"{"status":"paid"}"#)
                #expect(try await h.eventually(timeout: .seconds(30)) {
                    try await Self.bill(h, billID)["confirmation"]?["status"]?.stringValue == "ACKNOWLEDGED"
                })
                let setu = try await Self.setu(h, setuOrder)
                let answers = setu["paymentEventAnswers"]?.arrayValue?.compactMap(\.intValue) ?? []
                #expect(answers == [503, 503, 503, 200])
                #expect(try await Self.bill(h, billID)["status"]?.stringValue == "CONFIRMED")
                #expect(try await Self.bill(h, billID)["flaggedReason"]?.isNull == true)
            }
        }
    }

    @Test func refusedWithA4xxIsFlaggedNotRetriedAndAnAmountMismatchRefunds() async throws {
        try await GatewayHarness.run { h in
            try await Self.withOutbox(h) {
                // A 4xx that is not about the amount: flagged, not retried, not refunded; ops resend it.
                let first = try await Self.startAtRazorpay(h)
                _ = try await h.sandboxControl("/setu/payment-events/refuse", body: #"{"status":400,"code":"invalid-request","orderId":"\#(first.setuOrder)"}"#)
                _ = try await h.sandboxControl("/razorpay/orders/\(first.providerOrder)/complete", body: #"{"status":"paid"}"#)
                #expect(try await h.eventually { try await Self.bill(h, first.bill)["confirmation"]?["status"]?.stringValue == "REFUSED" })
                try await Task.sleep(for: .milliseconds(600))
                var bill = try await Self.bill(h, first.bill)
                #expect(bill["flaggedReason"]?.stringValue?.contains("invalid-request") == true)
                #expect(bill["confirmation"]?["lastError"]?.stringValue?.contains("invalid-request") == true)
                #expect(bill["status"]?.stringValue == "PAID")
                #expect(try await Self.setu(h, first.setuOrder)["paymentEventDeliveries"]?.intValue == 1)
                #expect(try await h.count("refunds") == 0)
                let resent = try await h.graphQL("mutation($id: ID!) { resendBillPaymentConfirmation(input: {billPaymentId: $id}) { billPayment { flaggedReason } userErrors { code } } }",
                                                 variables: ["id": .string(first.bill)], key: .some(h.opsKey))
                #expect(resent.userErrorCodes("resendBillPaymentConfirmation") == [])
                #expect(try await h.eventually { try await Self.bill(h, first.bill)["confirmation"]?["status"]?.stringValue == "ACKNOWLEDGED" })
                bill = try await Self.bill(h, first.bill)
                #expect(bill["status"]?.stringValue == "CONFIRMED")
                #expect(bill["flaggedReason"]?.isNull == true)
                // Only OPS resends.
                let secret = try await h.graphQL("mutation($id: ID!) { resendBillPaymentConfirmation(input: {billPaymentId: $id}) { userErrors { code } } }",
                                                 variables: ["id": .string(first.bill)])
                #expect(secret.errorCodes == ["FORBIDDEN"])

                // Setu refuses the amount: flagged and the payment refunded.
                let second = try await Self.startAtRazorpay(h, amount: "150.00")
                _ = try await h.sandboxControl("/setu/payment-events/refuse", body: #"{"status":400,"code":"amount-mismatch","orderId":"\#(second.setuOrder)"}"#)
                _ = try await h.sandboxControl("/razorpay/orders/\(second.providerOrder)/complete", body: #"{"status":"paid"}"#)
                #expect(try await h.eventually { try await Self.bill(h, second.bill)["confirmation"]?["status"]?.stringValue == "REFUSED" })
                #expect(try await h.eventually { try await h.count("refunds") == 1 })
                bill = try await Self.bill(h, second.bill)
                #expect(bill["flaggedReason"]?.stringValue?.contains("amount-mismatch") == true)
                #expect(bill["refunds"]?.arrayValue?.count == 1)
            }
        }
    }

    @Test func aCaptureInAModeTheBillDoesNotAllowIsRefundedAndFlagged() async throws {
        try await GatewayHarness.run { h in
            try await Self.withOutbox(h) {
                // Razorpay cannot restrict the order to netbanking; the customer pays by UPI anyway.
                let (billID, setuOrder, providerOrder) = try await Self.startAtRazorpay(h, modes: "NETBANKING")
                _ = try await h.sandboxControl("/razorpay/orders/\(providerOrder)/complete", body: #"{"status":"paid","method":"upi"}"#)
                #expect(try await h.eventually { try await Self.bill(h, billID)["confirmation"]?["status"]?.stringValue == "REFUSED" })
                #expect(try await h.eventually { try await h.count("refunds") == 1 })
                let bill = try await Self.bill(h, billID)
                #expect(bill["flaggedReason"]?.stringValue?.contains("UPI") == true)
                #expect(bill["confirmation"]?["paymentMode"]?.stringValue == "UPI")
                // Nothing reached Setu: PayQL does not report a mode the bill does not allow.
                #expect(try await Self.setu(h, setuOrder)["paymentEventDeliveries"]?.intValue == 0)
            }
        }
    }

    @Test func aFinalFailureIsReportedAsFailureButAFailedRazorpayAttemptIsNot() async throws {
        try await GatewayHarness.run { h in
            try await Self.withOutbox(h) {
                let (billID, setuOrder, providerOrder) = try await Self.startAtRazorpay(h)
                // A failed Razorpay payment leaves the order payable: nothing is final, nothing is sent.
                _ = try await h.sandboxControl("/razorpay/orders/\(providerOrder)/complete", body: #"{"status":"failed"}"#)
                try await Task.sleep(for: .milliseconds(600))
                var bill = try await Self.bill(h, billID)
                #expect(bill["confirmation"]?.isNull == true)
                #expect(bill["status"]?.stringValue == "AWAITING_PAYMENT")
                #expect(try await Self.setu(h, setuOrder)["paymentEventDeliveries"]?.intValue == 0)
                // The merchant cancels the order: final, so FAILURE goes to Setu.
                let orderID = try #require(bill["order"]?["id"]?.stringValue)
                let cancelled = try await h.graphQL("mutation($id: ID!) { cancelOrder(input: {orderId: $id}) { order { status } userErrors { code } } }",
                                                    variables: ["id": .string(orderID)])
                #expect(cancelled.data("cancelOrder")?["order"]?["status"]?.stringValue == "CANCELLED")
                #expect(try await h.eventually { try await Self.bill(h, billID)["confirmation"]?["status"]?.stringValue == "ACKNOWLEDGED" })
                bill = try await Self.bill(h, billID)
                #expect(bill["status"]?.stringValue == "PAYMENT_FAILED")
                #expect(bill["confirmation"]?["paymentStatus"]?.stringValue == "FAILURE")
                #expect(bill["confirmation"]?["failureCode"]?.stringValue?.isEmpty == false)
                let setu = try await Self.setu(h, setuOrder)
                #expect(setu["paymentEvent"]?["paymentStatus"]?.stringValue == "FAILURE")
                #expect(setu["paymentEventDeliveries"]?.intValue == 1)
            }
        }
    }

    @Test func setuPartnerEndpointsNeedSetusKey() async throws {
        try await GatewayHarness.run { h in
            let unsigned = try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + "/setu/v1/getPaymentStatus",
                                                                        headers: [("content-type", "application/json")], body: Array(#"{"orderId":"COUWL1"}"#.utf8)))
            #expect(unsigned.status == 401)
            let signed = try await h.client.execute(HTTPClientRequest(
                method: "POST", url: h.baseURL + "/setu/v1/getPaymentStatus",
                headers: [("content-type", "application/json"), ("X-SETU-BILLPAY-API-KEY", h.sandbox.credentials.setuBillPayAPIKey)],
                body: Array(#"{"orderId":"COUWLunknown"}"#.utf8)))
            #expect(signed.status == 200)
            #expect(try JSONParser.parse(signed.body)["status"]?.stringValue == "invalid-order-id")
        }
    }
}
