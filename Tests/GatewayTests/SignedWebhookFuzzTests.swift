import Crypto
import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Sandbox
import Support
import Testing

/// Authentic deliveries with hostile contents: every provider's webhook route and Setu's partner
/// routes get generated bodies that pass the signature (or API-key) check — extreme and mistyped
/// amounts, unknown events, missing and doubled fields, deep nesting, NUL characters, invalid
/// UTF-8, truncation — aimed at orders PayQL really has, so that the
/// matching and applying code runs, not only the parser. A signature is no guarantee that a body
/// is sane (a provider's bug, a leaked secret), and a trap on any of these paths would stop every
/// request the process serves.
///
/// Each delivery must get an answer that is not a server error (a 5xx makes the provider retry
/// forever, and here would mean a statement PostgreSQL refused), the process must keep answering,
/// and the orders must still read back consistent. `PAYQL_WEBHOOK_FUZZ_ROUNDS` (default 40 per
/// route) and `PAYQL_WEBHOOK_FUZZ_SEED` run it longer or differently.
@Suite struct SignedWebhookFuzzTests {
    static func setting(_ name: String, default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? value
    }

    /// The JSON text of `value`, mostly with values replaced and members dropped by the sandbox's
    /// `hostile_after` mutation (``HostileAnswer``: numbers beyond every integer and double, fractions of a
    /// paisa, wrong types, NULs, huge strings, deep nesting), then now and then damaged as bytes.
    static func body(_ value: JSONValue, _ random: inout SplitMix) -> [UInt8] {
        var bytes = JSONWriter.write(value)
        if Int.random(in: 0..<6, using: &random) != 0 { bytes = HostileAnswer.mutate(bytes, seed: random.next()) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where !bytes.isEmpty: bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))   // truncated
        case 1 where !bytes.isEmpty:
            for _ in 0..<Int.random(in: 1...3, using: &random) {   // a byte or three changed: invalid UTF-8, NUL, anything
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 2 where bytes.first == UInt8(ascii: "{"):
            // A member given twice: which one counts must not matter to safety.
            bytes.insert(contentsOf: Array(#""event":"payment.captured","amount":-1,"#.utf8), at: 1)
        case 3: bytes = Array(["null", "[]", "\"\"", "0", "", "{}"].randomElement(using: &random)?.utf8 ?? "".utf8)
        default: break
        }
        return bytes
    }

    // MARK: Real-shaped bodies (docs/providers/*.md, the providers' samples) aimed at PayQL's orders

    static func razorpay(orderID: String, serial: Int, _ random: inout SplitMix) -> JSONValue {
        let event = ["payment.captured", "payment.authorized", "payment.failed", "order.paid", "refund.processed", "refund.failed",
                     "payment.dispute.created", "unknown.event"].randomElement(using: &random) ?? "payment.captured"
        let payment: JSONValue = [
            "id": .string("pay_fuzz\(serial)"), "entity": "payment", "amount": 50_000, "currency": "INR", "status": "captured",
            "order_id": .string(orderID), "method": "upi", "amount_refunded": 0, "refund_status": nil, "captured": true,
            "vpa": "asha@okbank", "email": "asha@example.com", "contact": "+919876543210", "notes": ["k": "v"],
            "fee": 1_000, "tax": 180, "error_code": nil, "error_description": nil, "acquirer_data": ["rrn": "123456789012"],
            "created_at": 1_764_600_000,
        ]
        var payload: JSONObject = ["payment": ["entity": payment]]
        if event.hasPrefix("refund") {
            payload["refund"] = ["entity": [
                "id": .string("rfnd_fuzz\(serial)"), "entity": "refund", "amount": 20_000, "currency": "INR",
                "payment_id": .string("pay_fuzz\(serial)"), "status": "processed", "speed_processed": "normal", "created_at": 1_764_600_100,
            ]]
        }
        if event == "order.paid" {
            payload["order"] = ["entity": ["id": .string(orderID), "entity": "order", "amount": 50_000, "amount_paid": 50_000, "status": "paid"]]
        }
        return ["entity": "event", "account_id": "acc_fuzz", "event": .string(event), "contains": ["payment"],
                "payload": .object(payload), "created_at": 1_764_600_000]
    }

    static func cashfree(receipt: String, serial: Int, _ random: inout SplitMix) -> JSONValue {
        let type = ["PAYMENT_SUCCESS_WEBHOOK", "PAYMENT_FAILED_WEBHOOK", "PAYMENT_USER_DROPPED_WEBHOOK", "REFUND_STATUS_WEBHOOK",
                    "UNKNOWN_WEBHOOK"].randomElement(using: &random) ?? "PAYMENT_SUCCESS_WEBHOOK"
        var data: JSONObject = [
            "order": ["order_id": .string(receipt), "order_amount": 500.0, "order_currency": "INR", "order_tags": nil],
            "payment": [
                "cf_payment_id": .string("51149\(serial)"), "payment_status": "SUCCESS", "payment_amount": 500.0, "payment_currency": "INR",
                "payment_message": "00::Transaction success", "payment_time": "2026-12-02T10:19:10+05:30", "bank_reference": "234928698581",
                "auth_id": nil, "payment_method": ["upi": ["channel": "collect", "upi_id": "asha@okbank"]], "payment_group": "upi",
            ],
            "customer_details": ["customer_name": nil, "customer_id": "cust_1", "customer_email": "asha@example.com", "customer_phone": "9876543210"],
        ]
        if type == "REFUND_STATUS_WEBHOOK" {
            data = ["refund": [
                "cf_refund_id": .string("77\(serial)"), "cf_payment_id": .string("51149\(serial)"), "refund_id": .string("rf_fuzz\(serial)"),
                "order_id": .string(receipt), "refund_amount": 200.0, "refund_currency": "INR", "refund_status": "SUCCESS",
                "refund_type": "MERCHANT_INITIATED", "status_description": "Refund processed",
            ]]
        }
        return ["data": .object(data), "event_time": "2026-12-02T10:19:19+05:30", "type": .string(type)]
    }

    static func setu(orderID: String, serial: Int, _ random: inout SplitMix) -> JSONValue {
        let event = ["bill_payment_success", "bill_payment_failure", "bill_payment_refunded", "bill_collection_failure",
                     "bill_fetch_success", "bill_fetch_failure", "dispute_raised", "unknown"].randomElement(using: &random) ?? "bill_payment_success"
        return [
            "txnId": .string("AXO\(serial)"), "mobileNumber": "9481773053", "status": "PAYMENT_SUCCESS", "billId": "dfeeaf14-e43a-4196-90d0-41089e979ad5",
            "billerId": "MAHI00000NATIC", "billerName": "Mahindra Rural Housing Finance Ltd", "billerCategory": "Loan-Repayment",
            "sessionId": .string("sess_fuzz\(serial % 3)"), "customerId": "cust@1234", "billAmount": "105.0", "dueDate": "2021-05-23",
            "amountPaid": "601.00", "orderId": .string(orderID), "event": .string(event), "refId": "CMA0I65RCU2I32C3L0H0KNYQYAG40021831",
            "paidOn": "02-01-2006 15:04:05",
            "billDetails": [["billAmount": "101.0", "billNumber": "6657801290", "billDate": "2024-03-01", "customerName": "Ram Charan", "dueDate": "2024-03-20"]],
            "fetchErrorCode": nil, "error": ["code": "BILL_NOT_FOUND", "message": "no bill"],
        ]
    }

    /// Instamojo's form (payment_request_id aimed at the order's gateway order), fields replaced or
    /// dropped at random, signed with the salt over the values in name order as the provider does.
    static func instamojo(gatewayOrderID: String, serial: Int, salt: String, _ random: inout SplitMix) -> [UInt8] {
        var fields: [(String, String)] = [
            ("amount", "500.00"), ("buyer", "asha@example.com"), ("buyer_name", "Asha Rao"), ("buyer_phone", "+919876543210"),
            ("currency", "INR"), ("fees", "9.50"), ("longurl", "https://www.instamojo.com/@shop/x"), ("payment_id", "MOJO\(serial)"),
            ("payment_request_id", gatewayOrderID), ("purpose", "Order"), ("shorturl", ""), ("status", "Credit"),
        ]
        let formValues = ["", "-500.00", "500.005", "1e400", "99999999999999999999.00", "NaN", "0", "Failed", "Credit", "\u{0}",
                          String(repeating: "9", count: 5_000), "💳", "4111111111111111", "&=%zz"]
        fields = fields.compactMap { field in
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return nil
            case 1, 2: return (field.0, formValues.randomElement(using: &random) ?? "")
            default: return field
            }
        }
        let message = fields.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "|")
        fields.append(("mac", Encoding.hex(Crypto.hmac(.sha1, key: salt, message: message))))
        var body = URLEncodedForm.encode(fields)
        if Int.random(in: 0..<8, using: &random) == 0, !body.isEmpty {
            body[Int.random(in: 0..<body.count, using: &random)] = UInt8.random(in: 0...255, using: &random)   // mac may now fail: 401 is right
        }
        return body
    }

    /// One order at each provider that takes orders, for one customer (the deliveries aim at them).
    static func ordersAtEachProvider(_ h: GatewayHarness) async throws -> (razorpay: JSONValue, cashfree: JSONValue, instamojo: JSONValue) {
        let customer = try await OrderLifecycleTests.createCustomer(h)
        return (try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer),
                try await OrderLifecycleTests.createOrder(h, provider: "CASHFREE", customer: customer),
                try await OrderLifecycleTests.createOrder(h, provider: "INSTAMOJO", customer: customer,
                                                          extra: #"returnUrl: "https://shop.example/done""#))
    }

    // MARK: The run

    @Test func authenticButHostileDeliveriesAreAnsweredWithoutServerErrors() async throws {
        let rounds = Int(Self.setting("PAYQL_WEBHOOK_FUZZ_ROUNDS", default: 40))
        var random = SplitMix(seed: Self.setting("PAYQL_WEBHOOK_FUZZ_SEED", default: 0x5EED_F00D))
        try await GatewayHarness.run { h in
            let (razorpay, cashfree, instamojo) = try await Self.ordersAtEachProvider(h)
            let razorpayOrder = try #require(razorpay["providerOrderId"]?.stringValue)
            let cashfreeReceipt = try #require(cashfree["receipt"]?.stringValue)
            let gatewayOrder = try #require(instamojo["checkout"]?["gatewayOrderId"]?.stringValue)
            let credentials = h.sandbox.credentials

            var statuses: [String: [Int: Int]] = [:]
            func post(_ route: String, _ body: [UInt8], headers: [(String, String)]) async throws {
                let response = try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + route, headers: headers, body: body))
                statuses[route, default: [:]][response.status, default: 0] += 1
                #expect(response.status < 500, "\(route) answered \(response.status) to \(String(decoding: body.prefix(600), as: UTF8.self))")
            }
            for serial in 0..<rounds {
                let razorpayBody = Self.body(Self.razorpay(orderID: razorpayOrder, serial: serial, &random), &random)
                var razorpayHeaders = [("content-type", "application/json"),
                                       ("x-razorpay-signature", Encoding.hex(Crypto.hmac(.sha256, key: Array(credentials.razorpayWebhookSecret.utf8), message: razorpayBody)))]
                switch serial % 4 {
                case 0: razorpayHeaders.append(("x-razorpay-event-id", "evt_fuzz\(serial)"))
                case 1: razorpayHeaders.append(("x-razorpay-event-id", String(repeating: "e", count: 4_000)))
                case 2: razorpayHeaders.append(("x-razorpay-event-id", "evt_fuzz\(serial / 8)"))   // repeats with other bodies
                default: break   // deduplicated by the body's hash
                }
                try await post("/webhooks/razorpay", razorpayBody, headers: razorpayHeaders)

                let cashfreeBody = Self.body(Self.cashfree(receipt: cashfreeReceipt, serial: serial, &random), &random)
                let timestamp = String(Int64(Date().timeIntervalSince1970 * 1000))
                let signed = Array(timestamp.utf8) + cashfreeBody
                try await post("/webhooks/cashfree", cashfreeBody, headers: [
                    ("content-type", "application/json"), ("x-webhook-timestamp", timestamp), ("x-webhook-version", "2025-01-01"),
                    ("x-webhook-signature", Encoding.base64(Crypto.hmac(.sha256, key: Array(credentials.cashfreeClientSecret.utf8), message: signed))),
                ])

                try await post("/webhooks/instamojo", Self.instamojo(gatewayOrderID: gatewayOrder, serial: serial, salt: credentials.instamojoPrivateSalt, &random),
                               headers: [("content-type", "application/x-www-form-urlencoded")])

                let setuBody = Self.body(Self.setu(orderID: serial % 2 == 0 ? "COUWL\(serial)" : razorpayOrder, serial: serial, &random), &random)
                try await post("/webhooks/setu", setuBody, headers: [("content-type", "application/json"), ("X-BILL-WEBHOOK-API-KEY", credentials.setuWebhookKey)])

                // Setu's partner calls to PayQL (API key, not signed).
                let partner: JSONValue = serial % 2 == 0
                    ? ["orderId": .string("COUWL\(serial)")]
                    : ["orderId": .string("COUWL\(serial)"), "amount": 10_000, "transactionId": .string("AXO\(serial)")]
                try await post(serial % 2 == 0 ? "/setu/v1/getPaymentStatus" : "/setu/v1/refund", Self.body(partner, &random),
                               headers: [("content-type", "application/json"), ("X-SETU-BILLPAY-API-KEY", credentials.setuBillPayAPIKey)])
            }
            print("SignedWebhookFuzzTests: \(rounds) rounds, answers by route and status: \(statuses.sorted { $0.key < $1.key })")

            // Still serving, and every order reads back whole.
            for order in [razorpay, cashfree, instamojo] {
                let id = try #require(order["id"]?.stringValue)
                let read = try await OrderLifecycleTests.order(h, id)
                #expect(read["id"]?.stringValue == id)
                for payment in read["payments"]?.arrayValue ?? [] {
                    let minor = Int64(payment["amount"]?["amount"]?.stringValue ?? "") ?? 0
                    #expect(minor > 0, "a payment of \(payment)")
                }
            }
            // The authentic deliveries were kept (repeats answered as duplicates), none lost as a failure.
            #expect(try await h.count("webhook_events") > 0)
            let answered = statuses.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            #expect(answered == rounds * 5)
        }
    }

    /// What the generated deliveries found, kept as fixed cases: each was answered 503 at every retry
    /// (never stored) before PayQL read NULs as U+FFFD and refused payments of no amount or of more
    /// than any provider takes.
    @Test func theDeliveriesTheFuzzerFoundAreStoredAndAnswered() async throws {
        try await GatewayHarness.run { h in
            let (razorpay, cashfree, instamojo) = try await Self.ordersAtEachProvider(h)
            let razorpayOrder = try #require(razorpay["providerOrderId"]?.stringValue)
            let credentials = h.sandbox.credentials
            func razorpayDelivery(_ text: String) async throws -> Int {
                let body = Array(text.utf8)
                return try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + "/webhooks/razorpay", headers: [
                    ("content-type", "application/json"),
                    ("x-razorpay-signature", Encoding.hex(Crypto.hmac(.sha256, key: Array(credentials.razorpayWebhookSecret.utf8), message: body))),
                ], body: body)).status
            }
            func payment(_ id: String, amount: String) -> String {
                #"{"entity":"event","event":"payment.captured","contains":["payment"],"payload":{"payment":{"entity":"#
                    + #"{"id":"\#(id)","entity":"payment","amount":\#(amount),"currency":"INR","status":"captured","order_id":"\#(razorpayOrder)","#
                    + #""method":"upi","description":"a\u0000b"}}},"created_at":1764600000}"#
            }
            // A NUL in a value the event is applied by, and in one it is not.
            #expect(try await razorpayDelivery(payment(#"pay_nul\u0000"#, amount: "50000")) == 200)
            #expect(try await razorpayDelivery(payment("pay_described", amount: "50000")) == 200)
            // No amount, and more than the order's sum of payments can hold.
            #expect(try await razorpayDelivery(payment("pay_zero", amount: "0")) == 200)
            #expect(try await razorpayDelivery(payment("pay_huge1", amount: "9223372036854775807")) == 200)
            #expect(try await razorpayDelivery(payment("pay_huge2", amount: "9223372036854775807")) == 200)
            let stored = try await h.pool.query("SELECT payload::text FROM webhook_events WHERE provider = 'razorpay' ORDER BY received_at")
            #expect(stored.count == 5)
            #expect(try stored.contains { try $0.decode(String.self, at: 0).contains("pay_nul\u{FFFD}") })
            // The described payment is recorded (its description is not kept); the others are no payments.
            let payments = try await h.pool.query("SELECT provider_payment_id FROM payments ORDER BY provider_payment_id")
            #expect(try payments.map { try $0.decode(String.self, at: 0) } == ["pay_described", "pay_nul\u{FFFD}"])

            // Cashfree: an amount in rupees that converts to Int64.max paise.
            let receipt = try #require(cashfree["receipt"]?.stringValue)
            let cashfreeBody = Array(#"{"data":{"order":{"order_id":"\#(receipt)","order_amount":500.0,"order_currency":"INR"},"payment":{"cf_payment_id":"51149","payment_status":"SUCCESS","payment_amount":92233720368547758.07,"payment_currency":"INR","payment_group":"upi"}},"event_time":"2026-12-02T10:19:19+05:30","type":"PAYMENT_SUCCESS_WEBHOOK"}"#.utf8)
            let timestamp = String(Int64(Date().timeIntervalSince1970 * 1000))
            let cashfreeAnswer = try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + "/webhooks/cashfree", headers: [
                ("content-type", "application/json"), ("x-webhook-timestamp", timestamp),
                ("x-webhook-signature", Encoding.base64(Crypto.hmac(.sha256, key: Array(credentials.cashfreeClientSecret.utf8),
                                                                    message: Array(timestamp.utf8) + cashfreeBody))),
            ], body: cashfreeBody))
            #expect(cashfreeAnswer.status == 200)

            // Instamojo: a credit of nothing, and a NUL (%00) in the payment id.
            let gatewayOrder = try #require(instamojo["checkout"]?["gatewayOrderId"]?.stringValue)
            for (paymentID, amount) in [("MOJO0", "0"), ("MOJO\u{0}1", "500.00")] {
                var fields = [("amount", amount), ("currency", "INR"), ("payment_id", paymentID), ("payment_request_id", gatewayOrder), ("status", "Credit")]
                fields.append(("mac", Encoding.hex(Crypto.hmac(.sha1, key: credentials.instamojoPrivateSalt,
                                                               message: fields.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "|")))))
                let answer = try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + "/webhooks/instamojo",
                    headers: [("content-type", "application/x-www-form-urlencoded")], body: URLEncodedForm.encode(fields)))
                #expect(answer.status == 200, "\(paymentID)")
            }
            #expect(try await h.count("webhook_events") == 8)

            // Setu's partner call with a NUL in the order id: bad input, not a server error.
            let partner = try await h.client.execute(HTTPClientRequest(method: "POST", url: h.baseURL + "/setu/v1/getPaymentStatus",
                headers: [("content-type", "application/json"), ("X-SETU-BILLPAY-API-KEY", credentials.setuBillPayAPIKey)],
                body: Array(#"{"orderId":"COUWL\u0000"}"#.utf8)))
            #expect(partner.status == 400)
        }
    }
}
