import Crypto
import Foundation
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import JSON
import Testing

/// Group commit of provider webhooks: several deliveries in one transaction keep every guarantee
/// of a delivery alone — stored once, applied once, in arrival order, and one bad delivery does
/// not fail the others. The batches are written directly (``WebhookBatchWriter``) so their
/// composition is exact, and through the intake (``WebhookIntake``) under concurrency.
@Suite struct WebhookGroupCommitTests {
    /// A Razorpay payment event for `order`, as the intake receives it once verified.
    static func delivery(_ eventID: String, order: String, payment: String, status: PaymentStatus,
                         type: String = "payment.captured", amount: Int64 = 50_000, salt: String = "") -> WebhookDelivery {
        let body = Array(#"{"event":"\#(type)","payment":"\#(payment)","order":"\#(order)","salt":"\#(salt)"}"#.utf8)
        let event = WebhookEvent(provider: .razorpay, eventID: eventID, type: type, orderID: order, paymentID: payment,
                                 paymentStatus: status, rawPaymentStatus: status.name.lowercased(),
                                 amount: Amount(minorUnits: amount, currency: .inr))
        return WebhookDelivery(event: event, body: body, bodyHash: Data(Crypto.hash(.sha256, body)),
                               payload: WebhookService.redactedPayload(body, provider: .razorpay))
    }

    /// A Razorpay order at the sandbox; its id and provider order id.
    static func razorpayOrder(_ h: GatewayHarness, amount: String = "50000") async throws -> (id: String, providerOrderID: String) {
        let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: amount)
        return (try #require(created["id"]?.stringValue), try #require(created["providerOrderId"]?.stringValue))
    }

    static func outcomes(_ results: [Result<WebhookService.Outcome, any Error>]) -> [WebhookService.Outcome?] {
        results.map { try? $0.get() }
    }

    @Test func aBadDeliveryAmongGoodOnesFailsAloneAndStoresNothing() async throws {
        try await GatewayHarness.run { h in
            let first = try await Self.razorpayOrder(h)
            let second = try await Self.razorpayOrder(h)
            // A NUL cannot be bound: the batch's statements fail, so each delivery is written again alone.
            let batch = [
                Self.delivery("evt_good_1", order: first.providerOrderID, payment: "pay_good_1", status: .captured),
                Self.delivery("evt_bad", order: second.providerOrderID, payment: "pay_bad\u{0}", status: .captured),
                Self.delivery("evt_good_2", order: second.providerOrderID, payment: "pay_good_2", status: .captured),
            ]
            let results = await WebhookBatchWriter(pool: h.pool).write(batch)
            #expect(Self.outcomes(results) == [.accepted("APPLIED"), nil, .accepted("APPLIED")])
            #expect(try await h.count("webhook_events") == 2)
            #expect(try await h.count("payments") == 2)
            // The bad one left no row behind: once fixed and redelivered it is applied, not a duplicate.
            let stored = try await h.pool.query("SELECT count(*) FROM webhook_events WHERE event_id = 'evt_bad'").single(Int64.self)
            #expect(stored == 0)
            for order in [first.id, second.id] {
                #expect(try await OrderLifecycleTests.order(h, order)["status"]?.stringValue == "PAID")
            }
        }
    }

    @Test func twoOrdersOfOneCustomerPaidInOneBatchKeepTheCustomersRewardCap() async throws {
        try await GatewayHarness.run { h in
            // One reward per customer (the default cap), coupons enough for both orders.
            let offer = try await RewardTests.upsertOffer(h, coupons: ["CAP-1", "CAP-2", "CAP-3"])
            #expect(offer.userErrorCodes("upsertRewardOffer") == [], "\(offer.json)")
            let customer = try await OrderLifecycleTests.createCustomer(h)
            var orders: [String] = []
            for _ in 0..<2 {
                let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)
                orders.append(try #require(created["providerOrderId"]?.stringValue))
            }
            // Both in one batch: they are applied side by side in one transaction.
            let batch = orders.enumerated().map { index, order in
                Self.delivery("evt_cap_\(index)", order: order, payment: "pay_cap_\(index)", status: .captured)
            }
            #expect(WebhookBatchWriter.waves(batch.map(\.event)) == [[0, 1]])
            let results = await WebhookBatchWriter(pool: h.pool).write(batch)
            #expect(Self.outcomes(results) == [.accepted("APPLIED"), .accepted("APPLIED")])
            let rewards = try await h.pool.query("SELECT count(*) FROM rewards WHERE status = 'ALLOTTED'").single(Int64.self)
            #expect(rewards == 1)
            let taken = try await h.pool.query("SELECT count(*) FROM reward_coupons WHERE reward_id IS NOT NULL").single(Int64.self)
            #expect(taken == 1)
        }
    }

    @Test func duplicatesInOneBatchAreStoredAndAppliedOnce() async throws {
        try await GatewayHarness.run { h in
            let order = try await Self.razorpayOrder(h)
            let original = Self.delivery("evt_dup", order: order.providerOrderID, payment: "pay_dup", status: .captured)
            // The same delivery twice, the same event id with another body, the same body under another event id.
            var sameBody = original
            sameBody.event.eventID = "evt_dup_other_id"
            let batch = [original, original,
                         Self.delivery("evt_dup", order: order.providerOrderID, payment: "pay_dup", status: .captured, salt: "x"),
                         sameBody]
            let results = await WebhookBatchWriter(pool: h.pool).write(batch)
            #expect(Self.outcomes(results) == [.accepted("APPLIED"), .duplicate, .duplicate, .duplicate])
            let rows = try await h.pool.query("SELECT outcome, deliveries FROM webhook_events").decode((String, Int32).self)
            #expect(rows.count == 1)
            #expect(rows.first?.0 == "APPLIED")
            #expect(rows.first?.1 == 4)
            #expect(try await h.count("payments") == 1)
            let paid = try await OrderLifecycleTests.order(h, order.id)
            #expect(paid["status"]?.stringValue == "PAID")
            #expect(paid["amountPaid"]?["amount"]?.stringValue == "50000")
            // Applied again later (another batch): a duplicate, nothing changes.
            let again = await WebhookBatchWriter(pool: h.pool).write([original])
            #expect(Self.outcomes(again) == [.duplicate])
            #expect(try await h.count("payments") == 1)
        }
    }

    @Test func outOfOrderWithinABatchEndsAsInOrder() async throws {
        try await GatewayHarness.run { h in
            let order = try await Self.razorpayOrder(h)
            let other = try await Self.razorpayOrder(h, amount: "70000")
            // Captured first, then the older authorized and failed of the same payment: statuses only move
            // forward, so the later ones change nothing (each sees the first's effect within the batch).
            let batch = [
                Self.delivery("evt_o1", order: order.providerOrderID, payment: "pay_o", status: .captured),
                Self.delivery("evt_x1", order: other.providerOrderID, payment: "pay_x", status: .authorized, type: "payment.authorized", amount: 70_000),
                Self.delivery("evt_o2", order: order.providerOrderID, payment: "pay_o", status: .authorized, type: "payment.authorized"),
                Self.delivery("evt_o3", order: order.providerOrderID, payment: "pay_o", status: .failed, type: "payment.failed"),
                Self.delivery("evt_x2", order: other.providerOrderID, payment: "pay_x", status: .captured, amount: 70_000),
            ]
            let results = await WebhookBatchWriter(pool: h.pool).write(batch)
            #expect(Self.outcomes(results) == Array(repeating: .accepted("APPLIED"), count: 5))
            let paid = try await OrderLifecycleTests.order(h, order.id)
            #expect(paid["status"]?.stringValue == "PAID")
            #expect(paid["amountPaid"]?["amount"]?.stringValue == "50000")
            #expect(paid["payments"]?.arrayValue?.map { $0["status"]?.stringValue } == ["CAPTURED"])
            // The timeline has the capture once and the order's move to PAID once.
            let kinds = paid["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
            #expect(kinds.filter { $0 == "PAYMENT_CAPTURED" }.count == 1)
            #expect(kinds.filter { $0 == "STATUS_CHANGED" }.count == 1)
            let otherNow = try await OrderLifecycleTests.order(h, other.id)
            #expect(otherNow["status"]?.stringValue == "PAID")
            #expect(otherNow["payments"]?.arrayValue?.map { $0["status"]?.stringValue } == ["CAPTURED"])
            // Every event row is linked to its order and payment.
            let unlinked = try await h.pool.query("""
                SELECT count(*) FROM webhook_events WHERE order_id IS NULL OR payment_id IS NULL OR processed_at IS NULL
                """).single(Int64.self)
            #expect(unlinked == 0)
            // One order.paid each in the outbox, enqueued by the batch's transaction.
            #expect(try await h.count("outbox") == 2)
        }
    }

    @Test func eachEventRowIsWrittenOnceWithItsOutcomeAndLinks() async throws {
        try await GatewayHarness.run { h in
            let order = try await Self.razorpayOrder(h)
            var ignored = Self.delivery("evt_w4", order: "", payment: "pay_w4", status: .captured, salt: "4")
            ignored.event.orderID = nil
            let batch = [
                Self.delivery("evt_w1", order: order.providerOrderID, payment: "pay_w1", status: .authorized, type: "payment.authorized"),
                Self.delivery("evt_w2", order: order.providerOrderID, payment: "pay_w1", status: .captured),
                Self.delivery("evt_w3", order: "order_nobody_made", payment: "pay_w3", status: .captured),
                ignored,
            ]
            let results = await WebhookBatchWriter(pool: h.pool).write(batch)
            #expect(Self.outcomes(results) == [.accepted("APPLIED"), .accepted("APPLIED"), .accepted("UNMATCHED"), .accepted("IGNORED")])
            let rows = try await h.pool.query("""
                SELECT event_id, outcome, order_id::text, payment_id::text, processed_at IS NOT NULL, ctid::text
                FROM webhook_events ORDER BY received_at
                """).decode((String, String, String?, String?, Bool, String).self)
            let payment = try await h.pool.query("SELECT id::text FROM payments WHERE provider_payment_id = 'pay_w1'").single(String.self)
            let orderRow = try await h.pool.query("SELECT id::text FROM orders WHERE provider_order_id = \(order.providerOrderID)").single(String.self)
            #expect(rows.map(\.0) == ["evt_w1", "evt_w2", "evt_w3", "evt_w4"])
            #expect(rows.map(\.1) == ["APPLIED", "APPLIED", "UNMATCHED", "IGNORED"])
            // Both deliveries of the one payment link the payment the first one created.
            #expect(rows.map(\.2) == [orderRow, orderRow, nil, nil])
            #expect(rows.map(\.3) == [payment, payment, nil, nil])
            #expect(rows.map(\.4) == [true, true, true, true])
            // Written once: no row has a second version (an UPDATE after the INSERT would move them on).
            #expect(rows.map(\.5) == ["(0,1)", "(0,2)", "(0,3)", "(0,4)"])
            // A later capture of the stored payment links it too, and is written once as well.
            let later = await WebhookBatchWriter(pool: h.pool).write([
                Self.delivery("evt_w5", order: order.providerOrderID, payment: "pay_w1", status: .captured, salt: "5"),
            ])
            #expect(Self.outcomes(later) == [.accepted("APPLIED")])
            let fifth = try await h.pool.query("SELECT payment_id::text, ctid::text FROM webhook_events WHERE event_id = 'evt_w5'")
                .decode((String?, String).self)
            #expect(fifth.first?.0 == payment)
            #expect(fifth.first?.1 == "(0,5)")
            #expect(try await h.count("payments") == 1)
        }
    }

    @Test func predictionsFollowTheBatchInArrivalOrder() async throws {
        try await GatewayHarness.run { h in
            let order = try await Self.razorpayOrder(h)
            _ = await WebhookBatchWriter(pool: h.pool).write([
                Self.delivery("evt_p0", order: order.providerOrderID, payment: "pay_stored", status: .authorized, type: "payment.authorized"),
            ])
            let stored = try await h.pool.query("SELECT id FROM payments WHERE provider_payment_id = 'pay_stored'").single(UUID.self)
            let orderID = try await h.pool.query("SELECT id FROM orders WHERE provider_order_id = \(order.providerOrderID)").single(UUID.self)
            var refund = Self.delivery("evt_p5", order: order.providerOrderID, payment: "pay_stored", status: .captured).event
            refund.refundID = "rfnd_1"
            let events = [
                Self.delivery("evt_p1", order: order.providerOrderID, payment: "pay_new", status: .authorized).event,
                Self.delivery("evt_p2", order: order.providerOrderID, payment: "pay_new", status: .captured).event,
                Self.delivery("evt_p3", order: order.providerOrderID, payment: "pay_stored", status: .captured).event,
                Self.delivery("evt_p4", order: "order_absent", payment: "pay_x", status: .captured).event,
                refund,
                WebhookEvent(provider: .setu, eventID: "evt_p6", type: "bill", orderID: order.providerOrderID),
            ]
            let (predicted, fork) = try await h.pool.withTransaction { connection in
                var locks = WebhookLocks()
                try await locks.prefetch(events, on: connection)
                return (WebhookBatchWriter.predictions(events, locks: locks), locks.fork(for: events[3]))
            }
            // A delivery applied beside others gets only its own order and payment.
            #expect(fork.known(order: "order_absent", provider: .razorpay).map { $0 == nil } == true)
            #expect(fork.known(payment: "pay_x", provider: .razorpay).map { $0 == nil } == true)
            #expect(fork.known(order: order.providerOrderID, provider: .razorpay) == nil)
            #expect(fork.known(payment: "pay_stored", provider: .razorpay) == nil)
            let created = try #require(predicted[0].newPaymentID)
            #expect(predicted[0].applied == AppliedWebhook(outcome: "APPLIED", orderID: orderID, paymentID: created))
            // The second delivery of the new payment links the same one (and creates it with that id if the first was a duplicate).
            #expect(predicted[1] == WebhookBatchWriter.Prediction(applied: AppliedWebhook(outcome: "APPLIED", orderID: orderID, paymentID: created),
                                                                  newPaymentID: created))
            #expect(predicted[2] == WebhookBatchWriter.Prediction(applied: AppliedWebhook(outcome: "APPLIED", orderID: orderID, paymentID: stored)))
            #expect(predicted[3] == WebhookBatchWriter.Prediction(applied: AppliedWebhook(outcome: "UNMATCHED")))
            #expect(predicted[4] == WebhookBatchWriter.Prediction())
            #expect(predicted[5] == WebhookBatchWriter.Prediction())
        }
    }

    @Test(arguments: [1, 2])
    func concurrentDeliveriesThroughTheIntakeAreEachAppliedOnce(writers: Int) async throws {
        try await GatewayHarness.run { h in
            var orders: [String] = []
            for _ in 0..<4 { orders.append(try await Self.razorpayOrder(h, amount: "100").providerOrderID) }
            let intake = WebhookIntake(pool: h.pool, writer: WebhookBatchWriter(pool: h.pool), maxBatch: 16, writers: writers)
            // 60 distinct payments, each delivered twice, all at once.
            let deliveries = (0..<120).map { n in
                Self.delivery("evt_c\(n % 60)", order: orders[n % 4], payment: "pay_c\(n % 60)", status: .captured, amount: 100)
            }
            let outcomes = try await withThrowingTaskGroup(of: WebhookService.Outcome.self) { group in
                for delivery in deliveries { group.addTask { try await intake.submit(delivery) } }
                var all: [WebhookService.Outcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.filter { $0 == .accepted("APPLIED") }.count == 60)
            #expect(outcomes.filter { $0 == .duplicate }.count == 60)
            #expect(try await h.count("webhook_events") == 60)
            #expect(try await h.count("payments") == 60)
            let deliveries2 = try await h.pool.query("SELECT sum(deliveries)::bigint FROM webhook_events").single(Int64.self)
            #expect(deliveries2 == 120)
            // Each order received its 15 payments' worth.
            let paid = try await h.pool.query("SELECT amount_paid_minor FROM orders WHERE provider_order_id = ANY(\(orders))").decode(Int64.self)
            #expect(paid == [1_500, 1_500, 1_500, 1_500])
        }
    }
}

/// The group-commit bookkeeping, event by event, without I/O.
@Suite struct WebhookIntakeStateTests {
    @Test func anIdleIntakeWritesAtOnceAndABusyOneBatchesInArrivalOrder() {
        var state = WebhookIntakeState<Int>(maxBatch: 3, maxWriters: 1)
        guard case .write(let first) = state.submitted(1) else { Issue.record("not written at once"); return }
        #expect(first == [1])
        for n in 2...6 {
            guard case .none = state.submitted(n) else { Issue.record("written beside a running batch"); return }
        }
        guard case .write(let second) = state.batchFinished() else { Issue.record("nothing taken"); return }
        #expect(second == [2, 3, 4])
        guard case .write(let third) = state.batchFinished() else { Issue.record("nothing taken"); return }
        #expect(third == [5, 6])
        guard case .none = state.batchFinished() else { Issue.record("an empty batch"); return }
        #expect(state.writing == 0)
        // Idle again: the next one is written at once.
        guard case .write(let fourth) = state.submitted(7) else { Issue.record("not written at once"); return }
        #expect(fourth == [7])
    }

    @Test func wavesKeepEachOrderInArrivalOrderAndRefundsAlone() {
        func event(_ order: String, _ payment: String, refund: String? = nil) -> WebhookEvent {
            var event = WebhookEvent(provider: .razorpay, eventID: "e", type: "t", orderID: order, paymentID: payment)
            event.refundID = refund
            return event
        }
        let events = [
            event("o1", "p1"), event("o2", "p2"), event("o1", "p1"), event("o3", "p3"),
            event("o2", "p4"), event("o4", "p5", refund: "r1"), event("o5", "p6"), event("o1", "p7"),
        ]
        #expect(WebhookBatchWriter.waves(events) == [[0, 1, 3], [2, 4], [5], [6, 7]])
    }

    @Test func severalWritersEachTakeTheirOwnBatch() {
        var state = WebhookIntakeState<Int>(maxBatch: 10, maxWriters: 2)
        guard case .write = state.submitted(1), case .write = state.submitted(2) else { Issue.record("a free writer unused"); return }
        guard case .none = state.submitted(3) else { Issue.record("a third writer"); return }
        #expect(state.writing == 2)
        guard case .write(let next) = state.batchFinished() else { Issue.record("nothing taken"); return }
        #expect(next == [3])
        guard case .none = state.batchFinished(), case .none = state.batchFinished() else { Issue.record("an empty batch"); return }
        #expect(state.writing == 0)
    }
}
