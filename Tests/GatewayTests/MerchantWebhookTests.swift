import ChildProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import Gateway
import JSON
import PaymentsCore
import Postgres
import Testing

/// Merchant notifications through the outbox to a real HTTP receiver: signed, in order per order,
/// retried after 500s, given up past the horizon or on 410, redelivered by OPS, listed in the log.
@Suite struct MerchantWebhookTests {
    static let deliveries = """
        query($o: ID) { merchantWebhookDeliveries(first: 20, orderId: $o) {
          nodes { id eventType url attempts lastStatusCode lastError deliveredAt nextAttemptAt createdAt
                  order { id status } refund { id status } } } }
        """

    @Test func signedEventsReachTheMerchantInOrderPerOrder() async throws {
        let receiver = try MerchantReceiver()
        try await GatewayHarness.withMerchant(receiver) { h in
            let (order, payment) = try await RefundTests.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            _ = try RefundTests.refunded(try await RefundTests.refund(h, payment: payment, amount: "20000"))
            // Another order fails, then is paid late.
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "1000")
            let failed = try #require(created["id"]?.stringValue)
            try await Self.move(h, failed, to: .failed)
            try await Self.move(h, failed, to: .paid)
            // Nothing is sent before a worker runs; then everything once.
            #expect(receiver.all.isEmpty)
            try await h.drain(h.outboxWorker())
            let received = receiver.all
            #expect(received.allSatisfy { $0.signatureValid }, "a signature did not verify")
            #expect(received.allSatisfy { abs(($0.signatureTimestamp ?? 0) - Int64(Date().timeIntervalSince1970)) < 600 })
            #expect(received.filter { $0.orderID == order }.map(\.type) == ["order.paid", "refund.processed"])
            #expect(received.filter { $0.orderID == failed }.map(\.type) == ["order.failed", "order.late_payment"])
            #expect(Set(received.map(\.eventID)).count == received.count)
            #expect(received.allSatisfy { $0.eventID.hasPrefix("evt_") })
            // The body: ids, amounts as minor-unit strings.
            let paid = try JSONParser.parse(try #require(received.first { $0.type == "order.paid" }).body)
            #expect(paid["data"]?["status"]?.stringValue == "PAID")
            #expect(paid["data"]?["amount"]?["amount"]?.stringValue == "50000")
            #expect(paid["data"]?["amountPaid"]?["amount"]?.stringValue == "50000")
            #expect(paid["data"]?["amount"]?["currency"]?.stringValue == "INR")
            let refund = try JSONParser.parse(try #require(received.first { $0.type == "refund.processed" }).body)
            #expect(refund["data"]?["amount"]?["amount"]?.stringValue == "20000")
            #expect(refund["data"]?["refundId"]?.stringValue != nil)
            // The delivery log (OPS): one order's deliveries, newest first, delivered on the first attempt.
            let log = try await h.graphQL(Self.deliveries, variables: ["o": .string(order)], key: h.opsKey)
            let nodes = try #require(log.data("merchantWebhookDeliveries")?["nodes"]?.arrayValue, "\(log.json)")
            #expect(nodes.map { $0["eventType"]?.stringValue } == ["refund.processed", "order.paid"])
            #expect(nodes.allSatisfy { $0["attempts"]?.intValue == 1 && $0["lastStatusCode"]?.intValue == 200 })
            #expect(nodes.allSatisfy { $0["deliveredAt"]?.stringValue != nil && $0["nextAttemptAt"] == .null })
            #expect(nodes.allSatisfy { $0["url"]?.stringValue == receiver.url && $0["order"]?["id"]?.stringValue == order })
            #expect(nodes.first?["refund"]?["status"]?.stringValue == "SUCCEEDED")
            // SECRET keys do not read the log.
            let forbidden = try await h.graphQL(Self.deliveries, variables: ["o": .string(order)])
            #expect(forbidden.errorCodes == ["FORBIDDEN"])
        }
    }

    @Test func aCancelledOrderAndAFailedRefundAreReported() async throws {
        let receiver = try MerchantReceiver()
        try await GatewayHarness.withMerchant(receiver) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "+919812345678")
            let created = try await OrderLifecycleTests.createOrder(h, provider: "CASHFREE", amount: "17000", customer: customer)
            let cancelled = try #require(created["id"]?.stringValue)
            let answer = try await h.graphQL(CaptureAndCancelTests.cancel, variables: ["o": .string(cancelled), "r": "changed their mind"])
            #expect(answer.userErrorCodes("cancelOrder") == [], "\(answer.json)")

            // A Cashfree refund the sandbox holds PENDING, then fails.
            let (paid, payment) = try await RefundTests.paidOrder(h, provider: "CASHFREE", amount: "17000")
            let pending = try RefundTests.refunded(try await RefundTests.refund(h, payment: payment, amount: "7000", note: "PENDING"))
            let paidID = try #require(GlobalID(paid, of: .order)).uuid
            let receipt = try #require(try await h.pool.query("SELECT receipt FROM orders WHERE id = \(paidID)").single(String.self))
            let reference = try #require(pending["reference"]?.stringValue)
            let refundID = try #require(pending["id"]?.stringValue)
            try await h.sandboxControl("/cashfree/orders/\(receipt)/refunds/\(reference)/complete", body: #"{"status":"failed"}"#)
            let read = "query($id: ID!) { refund(id: $id) { status } }"
            #expect(try await h.eventually {
                try await h.graphQL(read, variables: ["id": .string(refundID)]).data("refund")?["status"]?.stringValue == "FAILED"
            })
            try await h.drain(h.outboxWorker())
            let received = receiver.all
            #expect(received.filter { $0.orderID == cancelled }.map(\.type) == ["order.cancelled"])
            #expect(received.filter { $0.orderID == paid }.map(\.type) == ["order.paid", "refund.failed"])
            let failed = try JSONParser.parse(try #require(received.first { $0.type == "refund.failed" }).body)
            #expect(failed["data"]?["status"]?.stringValue == "FAILED")
            #expect(failed["data"]?["amount"]?["amount"]?.stringValue == "7000")
            #expect(failed["data"]?["refundId"]?.stringValue == refundID)
            let cancel = try JSONParser.parse(try #require(received.first { $0.type == "order.cancelled" }).body)
            #expect(cancel["data"]?["status"]?.stringValue == "CANCELLED")
            #expect(cancel["data"]?["previousStatus"]?.stringValue == "CREATED")
        }
    }

    @Test func failuresAreRetriedThenGivenUpAndOpsCanRedeliver() async throws {
        // Two 500s, then 200 for the first event; the second order's event always 500 (until told otherwise).
        let receiver = try MerchantReceiver { index, _ in index < 2 ? 500 : 200 }
        try await GatewayHarness.withMerchant(receiver) { h in
            let (order, _) = try await RefundTests.paidOrder(h, provider: "RAZORPAY", amount: "30000")
            let clock = TestClock()
            let worker = h.outboxWorker(clock: clock)
            #expect(try await worker.runOnce() == 1)
            clock.advance(.seconds(11))
            #expect(try await worker.runOnce() == 1)
            clock.advance(.seconds(61))
            #expect(try await worker.runOnce() == 1)
            #expect(receiver.all.map(\.answered) == [500, 500, 200])
            #expect(Set(receiver.all.map(\.eventID)).count == 1, "a retry is the same event")
            #expect(Set(receiver.all.map(\.body)).count == 1, "a retry is the same body")
            let log = try await h.graphQL(Self.deliveries, variables: ["o": .string(order)], key: h.opsKey)
            let delivered = try #require(log.data("merchantWebhookDeliveries")?["nodes"]?.arrayValue?.first)
            #expect(delivered["attempts"]?.intValue == 3)
            #expect(delivered["lastStatusCode"]?.intValue == 200)
            #expect(delivered["lastError"] == .null)

            // Now the receiver fails for good: the next event is retried until 24 h have passed, then given up.
            receiver.answer { _, _ in 503 }
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "1000")
            let second = try #require(created["id"]?.stringValue)
            try await Self.move(h, second, to: .failed)
            var passes = 0
            while passes < 40, try await h.pool.query("SELECT count(*) FROM outbox WHERE state = 'PENDING'").single(Int64.self) != 0 {
                try await worker.runOnce()
                clock.advance(.seconds(3600))
                passes += 1
            }
            let pending = try await h.graphQL(Self.deliveries, variables: ["o": .string(second)], key: h.opsKey)
            let givenUp = try #require(pending.data("merchantWebhookDeliveries")?["nodes"]?.arrayValue?.first)
            #expect(givenUp["lastError"]?.stringValue == "HTTP 503")
            #expect(givenUp["lastStatusCode"]?.intValue == 503)
            #expect(givenUp["deliveredAt"] == .null && givenUp["nextAttemptAt"] == .null)
            let attempts = try #require(givenUp["attempts"]?.intValue)
            #expect(attempts >= 20 && attempts <= 27, "hourly after the first minutes, for 24 h: \(attempts)")
            let sentBefore = receiver.all.count
            try await worker.runOnce()
            #expect(receiver.all.count == sentBefore, "a given-up message is not sent again by itself")

            // OPS redelivers it: the same event id and body, a new signature time.
            receiver.answer { _, _ in 200 }
            let id = try #require(givenUp["id"]?.stringValue)
            let redeliver = "mutation($d: ID!) { redeliverMerchantWebhook(input: {deliveryId: $d}) { delivery { id nextAttemptAt } userErrors { code } } }"
            let asked = try await h.graphQL(redeliver, variables: ["d": .string(id)], key: h.opsKey)
            #expect(asked.userErrorCodes("redeliverMerchantWebhook") == [])
            #expect(asked.data("redeliverMerchantWebhook")?["delivery"]?["nextAttemptAt"]?.stringValue != nil)
            try await h.drain(worker)
            let last = try #require(receiver.all.last)
            #expect(last.answered == 200 && last.signatureValid)
            #expect(last.eventID == receiver.all[sentBefore - 1].eventID)
            #expect(last.body == receiver.all[sentBefore - 1].body)
            // Unknown ids and other types are a userError; SECRET keys cannot redeliver.
            let unknown = try await h.graphQL(redeliver, variables: ["d": .string(GlobalID(.merchantWebhookDelivery, UUID()).description)], key: h.opsKey)
            #expect(unknown.userErrorCodes("redeliverMerchantWebhook") == ["NOT_FOUND"])
            let wrongType = try await h.graphQL(redeliver, variables: ["d": .string(second)], key: h.opsKey)
            #expect(wrongType.userErrorCodes("redeliverMerchantWebhook") == ["NOT_FOUND"])
            #expect(try await h.graphQL(redeliver, variables: ["d": .string(id)]).errorCodes == ["FORBIDDEN"])
        }
    }

    @Test func aGoneEndpointIsGivenUpAtOnceAndExpiryIsReported() async throws {
        let receiver = try MerchantReceiver { _, _ in 410 }
        try await GatewayHarness.withMerchant(receiver) { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "1000")
            let text = try #require(created["id"]?.stringValue)
            let order = try #require(GlobalID(text, of: .order))
            try await ReconcileStore(pool: h.pool).expire(orderID: order.uuid)
            try await h.drain(h.outboxWorker())
            #expect(receiver.all.map(\.type) == ["order.expired"])
            let row = try await h.pool.query("SELECT state, attempts, last_status_code FROM outbox").single((String, Int32, Int32?).self)
            #expect(row?.0 == "GIVEN_UP")
            #expect(row?.1 == 1)
            #expect(row?.2 == 410)
        }
    }

    @Test func withoutAURLEventsAreRecordedAndGivenUp() async throws {
        try await GatewayHarness.run { h in
            let (order, _) = try await RefundTests.paidOrder(h, provider: "RAZORPAY", amount: "1000")
            try await h.drain(h.outboxWorker())
            let log = try await h.graphQL(Self.deliveries, variables: ["o": .string(order)], key: h.opsKey)
            let node = try #require(log.data("merchantWebhookDeliveries")?["nodes"]?.arrayValue?.first, "\(log.json)")
            #expect(node["eventType"]?.stringValue == "order.paid")
            #expect(node["lastError"]?.stringValue?.contains("no merchant webhook URL") == true)
            #expect(node["deliveredAt"] == .null)
        }
    }

    /// Two `payql serve` processes deliver one outbox; one is SIGKILLed while its POSTs are at the
    /// receiver. Every message is delivered (at least once), each object's messages first arrive in
    /// order, and the duplicates are exactly the messages the killed process had sent but not recorded.
    @Test func twoProcessesOneKilledMidDeliveryDeliverEveryMessage() async throws {
        let receiver = try MerchantReceiver(pause: .milliseconds(300))
        try await GatewayHarness.withMerchant(receiver) { h in
            let objects = (0..<8).map { _ in UUID() }
            let perObject = 5
            try await h.pool.withTransaction { connection in
                for n in 0..<perObject {
                    for (index, object) in objects.enumerated() {
                        let body = #"{"id":"evt_\#(index)_\#(n)","type":"test.event","data":{"orderId":"o\#(index)","n":\#(n)}}"#
                        try await Outbox.enqueue(kind: .merchantWebhook, object: .order(object), payload: PostgresJSONB(text: body), on: connection)
                    }
                }
            }
            let total = objects.count * perObject
            let flags = ["--merchant-webhook-url", receiver.url, "--outbox-interval-ms", "50", "--outbox-lease-ms", "3000", "--reconciler", "false"]
            let environment = ["PAYQL_MERCHANT_WEBHOOK_SECRET": receiver.secret]
            let doomed = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox, extra: flags, environment: environment)
            let survivor: ServeProcess
            do {
                survivor = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox, extra: flags, environment: environment)
            } catch {
                doomed.process.terminate(signal: SIGKILL)
                _ = await doomed.stop()
                throw error
            }
            // Both are delivering: kill one while POSTs are held at the receiver.
            let busy = try await h.eventually(timeout: .seconds(60)) { receiver.busy >= 2 && receiver.all.count >= 2 }
            doomed.process.terminate(signal: SIGKILL)
            let killedAt = receiver.all.count
            let done = try await h.eventually(timeout: .seconds(120)) {
                try await h.pool.query("SELECT count(*) FROM outbox WHERE state = 'DELIVERED'").single(Int64.self) == Int64(total)
            }
            _ = await doomed.stop()
            let survivorStatus = await survivor.stop()
            #expect(busy)
            #expect(done, "delivered: \(Set(receiver.all.map(\.eventID)).count) of \(total)")
            #expect(survivorStatus == 0)
            let received = receiver.all
            let distinct = Set(received.map(\.eventID))
            #expect(distinct.count == total, "every message reached the merchant")
            #expect(received.allSatisfy { $0.signatureValid })
            // Each object's messages first arrived in enqueue order.
            for index in objects.indices {
                var firsts: [String] = []
                for event in received where event.orderID == "o\(index)" && !firsts.contains(event.eventID) { firsts.append(event.eventID) }
                #expect(firsts == (0..<perObject).map { "evt_\(index)_\($0)" }, "object \(index): \(firsts)")
            }
            let duplicates = received.count - distinct.count
            // A duplicate is a message the killed process had POSTed (in flight or answered) but not yet
            // recorded as delivered; it was sent again when its lease ended. At most one batch.
            #expect(duplicates <= 20)
            let retried = try await h.pool.query("SELECT count(*) FROM outbox WHERE attempts > 1").single(Int64.self) ?? -1
            print("two-process outbox: \(total) messages, \(received.count) POSTs, \(duplicates) duplicates, \(retried) re-claimed after the kill, \(killedAt) POSTs before it")
        }
    }

    /// Moves an order as a provider event would (OrderStore.applyStatus, in one transaction).
    static func move(_ h: GatewayHarness, _ order: String, to status: OrderStatusName) async throws {
        let id = try #require(GlobalID(order, of: .order)).uuid
        try await h.pool.withTransaction { connection in
            let locked = try #require(try await OrderStore.lock(orderID: id, on: connection))
            try await OrderStore.applyStatus(order: locked, proposed: status, providerStatus: nil, source: "WEBHOOK", on: connection)
        }
    }

    @Test func theSignatureIsTheDocumentedHMAC() {
        // t=1700000000, body {"a":1}, secret "s": HMAC-SHA256("s", "1700000000.{\"a\":1}").
        let header = MerchantWebhooks.signature(secret: Secret("s"), timestamp: 1_700_000_000, body: Array(#"{"a":1}"#.utf8))
        #expect(header.hasPrefix("t=1700000000,v1="))
        #expect(MerchantReceiver.verify(header: header, body: Array(#"{"a":1}"#.utf8), secret: "s").0)
        #expect(!MerchantReceiver.verify(header: header, body: Array(#"{"a":2}"#.utf8), secret: "s").0)
        #expect(!MerchantReceiver.verify(header: header, body: Array(#"{"a":1}"#.utf8), secret: "t").0)
        #expect(MerchantWebhooks.orderEventType(from: .failed, to: .paid) == "order.late_payment")
        #expect(MerchantWebhooks.orderEventType(from: .created, to: .paid) == "order.paid")
        #expect(MerchantWebhooks.orderEventType(from: .created, to: .pending) == nil)
        #expect(MerchantWebhooks.orderEventType(from: .created, to: .cancelled) == "order.cancelled")
    }
}
