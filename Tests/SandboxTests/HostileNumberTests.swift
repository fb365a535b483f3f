import HTTPServer
import JSON
@testable import Sandbox
import Testing

/// Extreme numbers at every amount, count and page the simulators read: each
/// gets the provider's 4xx, never a trap (issue 14, "The sandbox dies").
@Suite("Sandbox: hostile numbers")
struct HostileNumberTests {
    /// JSON number tokens (sent as they are) around every limit an amount parser has.
    static let numberTokens = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "4611686018427387904", "9007199254740992", "18446744073709551616", "1e19", "-1e19", "1e308", "1e-400",
        "-0.0", "1e3", "0.000000000000000000001", String(repeating: "9", count: 400),
        "92233720368547758.07", "999999999999999.99",
    ]
    /// The same as strings, plus text no number parser should take.
    static let stringTokens = numberTokens + ["NaN", "Infinity", "-Infinity", "0x10", " 100", "100 ", "1_000", "", "१००"]

    static var allAmounts: [String] { numberTokens + stringTokens.map { "\"\($0)\"" } }

    /// The issue's reproduction, verbatim: the order is refused, so nothing can overflow later.
    @Test func razorpayOrderAtTwoToTheSixtySecondIsRefused() async throws {
        try await SandboxHarness.run { h in
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                           json: #"{"amount": 4611686018427387904, "currency": "INR"}"#)
            #expect(created.status == 400)
            #expect(created["error"]?["field"]?.stringValue == "amount")
            #expect(created["error"]?["description"]?.stringValue == "Order amount exceeds maximum amount allowed.")
            #expect(try await h.send("GET", "/_sandbox/health")["status"]?.stringValue == "ok")
        }
    }

    /// The largest accepted order completes, with the fee computed exactly (the old `amount * 2` trapped from 2^62 on).
    @Test func razorpayLargestOrderCompletesWithExactFee() async throws {
        try await SandboxHarness.run { h in
            let maximum = Money.maximumPaise
            let created = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                           json: #"{"amount": \#(maximum), "currency": "INR"}"#)
            #expect(created.status == 200)
            let id = try #require(created["id"]?.stringValue)
            let tooLarge = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                            json: #"{"amount": \#(maximum + 1), "currency": "INR"}"#)
            #expect(tooLarge.status == 400)
            let completed = try await h.complete("razorpay", id)
            #expect(completed.status == 200)
            let payment = try #require(completed["payment"])
            #expect(payment["amount"]?.intValue == maximum)
            let tax = maximum * 2 / 100 * 18 / 100
            #expect(payment["tax"]?.intValue == tax)
            #expect(payment["fee"]?.intValue == maximum * 2 / 100 + tax)
        }
    }

    @Test func amountParsersRefuseEveryExtremeNumber() async throws {
        try await SandboxHarness.run { h in
            let instamojo = try await h.instamojoToken()
            let setu = try await h.setuHeaders()
            for amount in Self.allAmounts {
                let razorpay = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth,
                                                json: #"{"amount": \#(amount), "currency": "INR"}"#)
                #expect(razorpay.status == 400, "razorpay amount \(amount): \(razorpay.status)")
                #expect(razorpay["error"]?["field"]?.stringValue == "amount", "razorpay amount \(amount)")

                let cashfree = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: """
                    {"order_amount": \(amount), "order_currency": "INR",
                     "customer_details": {"customer_id": "USER123", "customer_phone": "9876543210"}}
                    """)
                #expect(cashfree.status == 400, "cashfree order_amount \(amount): \(cashfree.status)")

                let request = try await h.send("POST", "/instamojo/v2/payment_requests/", headers: instamojo,
                                               json: #"{"purpose": "hostile", "amount": \#(amount)}"#)
                #expect(request.status == 400, "instamojo amount \(amount): \(request.status)")

                let event = try await h.send("POST", "/setu/api/v2/webhooks/payment-event", headers: setu, json: """
                    {"orderId": "COUWLhostile", "transactionId": "t1", "paymentDateTime": "2024-03-19 12:30:45",
                     "amount": \(amount), "paymentMode": "UPI", "paymentStatus": "success"}
                    """)
                #expect(event.status == 400, "setu amount \(amount): \(event.status)")
            }
            // Still serving after all of them.
            #expect(try await h.send("GET", "/_sandbox/health")["status"]?.stringValue == "ok")
        }
    }

    /// Capture and refund amounts of a paid order, and Cashfree's refund amount.
    @Test func captureAndRefundAmountsRefuseExtremeNumbers() async throws {
        try await SandboxHarness.run { h in
            let order = try await h.send("POST", "/razorpay/v1/orders", headers: h.razorpayAuth, json: #"{"amount": 5000, "currency": "INR"}"#)
            let orderID = try #require(order["id"]?.stringValue)
            let authorized = try await h.complete("razorpay", orderID, #""status":"authorized""#)
            let paymentID = try #require(authorized["payment"]?["id"]?.stringValue)
            _ = try await h.send("POST", "/cashfree/pg/orders", headers: h.cashfreeHeaders, json: """
                {"order_id": "order_hostile_1", "order_amount": 50, "order_currency": "INR",
                 "customer_details": {"customer_id": "USER123", "customer_phone": "9876543210"}}
                """)
            #expect(try await h.complete("cashfree", "order_hostile_1").status == 200)
            for amount in Self.allAmounts {
                let capture = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/capture", headers: h.razorpayAuth,
                                               json: #"{"amount": \#(amount), "currency": "INR"}"#)
                #expect(capture.status == 400, "razorpay capture \(amount): \(capture.status)")
                let refund = try await h.send("POST", "/cashfree/pg/orders/order_hostile_1/refunds", headers: h.cashfreeHeaders,
                                              json: #"{"refund_amount": \#(amount), "refund_id": "r_hostile"}"#)
                #expect(refund.status == 400, "cashfree refund \(amount): \(refund.status)")
            }
            // The payment is untouched: the right amount still captures.
            let captured = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/capture", headers: h.razorpayAuth,
                                            json: #"{"amount": 5000, "currency": "INR"}"#)
            #expect(captured.status == 200)
            for amount in Self.allAmounts {
                let refund = try await h.send("POST", "/razorpay/v1/payments/\(paymentID)/refund", headers: h.razorpayAuth,
                                              json: #"{"amount": \#(amount)}"#)
                #expect(refund.status == 400, "razorpay refund \(amount): \(refund.status)")
            }
        }
    }

    /// `count`/`skip` (Razorpay) and `page`/`limit` (Instamojo) at the edges of `Int`.
    @Test func paginationAtTheEdgesOfInt() async throws {
        try await SandboxHarness.run { h in
            let instamojo = try await h.instamojoToken()
            for value in ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e19", "-1", "0"] {
                let count = try await h.send("GET", "/razorpay/v1/orders?count=\(value)", headers: h.razorpayAuth)
                #expect(count.status == 400, "count=\(value)")
                let skip = try await h.send("GET", "/razorpay/v1/payments?skip=\(value)", headers: h.razorpayAuth)
                #expect(skip.status == (value == "9223372036854775807" || value == "0" ? 200 : 400), "skip=\(value)")
                let page = try await h.send("GET", "/instamojo/v2/gateway/orders/?page=\(value)&limit=500", headers: instamojo)
                #expect(page.status == 200, "page=\(value)")
                let limit = try await h.send("GET", "/instamojo/v2/gateway/orders/?page=\(value)&limit=\(value)", headers: instamojo)
                #expect(limit.status == 200, "limit=\(value)")
            }
        }
    }

    /// Pure parts: the exact decimal parser's ceiling, the fee formulas at `Int64.max`, the clock's clamping.
    @Test func arithmeticHelpersNeverTrap() {
        #expect(Money.paise(fromDecimal: "90071992547409.91") == Money.maximumPaise)
        #expect(Money.paise(fromDecimal: "90071992547409.92") == nil)
        #expect(Money.paise(fromDecimal: "999999999999999.99") == nil)
        for seconds in [Int64.min, Int64.min + 1, -1, 0, Int64.max] {
            #expect(Clock.utcSpaced(seconds).count == 19)
        }
        // A rule built in code may hold any duration: listing it saturates.
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
        #expect(FaultRule(route: "/x", kind: .latency(.seconds(Int64.max))).wire["ms"] != nil)
    }
}
