import Foundation
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import JSON
import Testing

/// A wave's payments recorded in one statement (``PaymentStore/record(_:verification:source:on:)``): the
/// same rows, timeline entries, amounts received and order moves as one statement per payment.
@Suite struct WebhookWaveTests {
    /// Three orders: a new capture that pays the first, a new authorization of the second, and the capture of
    /// the third's stored authorization — recorded together, then each settled.
    @Test func paymentsOfSeveralOrdersAreRecordedTogetherByTheSingleRules() async throws {
        try await GatewayHarness.run { h in
            let first = try await WebhookGroupCommitTests.razorpayOrder(h)
            let second = try await WebhookGroupCommitTests.razorpayOrder(h)
            let third = try await WebhookGroupCommitTests.razorpayOrder(h, amount: "70000")
            _ = await WebhookBatchWriter(pool: h.pool).write([
                WebhookGroupCommitTests.delivery("evt_r0", order: third.providerOrderID, payment: "pay_r3", status: .authorized,
                                                 type: "payment.authorized", amount: 70_000),
            ])
            let stored = try await h.pool.query("SELECT id FROM payments WHERE provider_payment_id = 'pay_r3'").single(UUID.self)
            let events = [
                WebhookGroupCommitTests.delivery("evt_r1", order: first.providerOrderID, payment: "pay_r1", status: .captured).event,
                WebhookGroupCommitTests.delivery("evt_r2", order: second.providerOrderID, payment: "pay_r2", status: .authorized,
                                                 type: "payment.authorized").event,
                WebhookGroupCommitTests.delivery("evt_r3", order: third.providerOrderID, payment: "pay_r3", status: .captured,
                                                 amount: 70_000).event,
            ]
            let newID = UUID()
            let (together, recorded, orders) = try await h.pool.withTransaction { connection in
                var locks = WebhookLocks()
                try await locks.prefetch(events, on: connection)
                let together = WebhookBatchWriter.recordedTogether(events.enumerated().map { position, event in
                    (position, event, UUID(), position == 0 ? newID : nil)
                }, locks: locks).map { item in
                    var batched = item.batched
                    batched.webhookEventID = nil  // no event rows in this test
                    return batched
                }
                let recorded = try await PaymentStore.record(together, verification: .signedWebhook, source: "WEBHOOK", on: connection)
                var orders: [OrderRecord] = []
                for (batched, result) in zip(together, recorded) {
                    orders.append(try await PaymentStore.settle(batched.order, paid: result.paid, status: result.status,
                                                                paymentID: result.payment.id, source: "WEBHOOK", webhookEventID: nil,
                                                                on: connection))
                }
                return (together, recorded, orders)
            }
            #expect(together.count == 3)
            #expect(together.map { $0.existing?.id } == [nil, nil, stored])
            #expect(recorded.map(\.payment.status) == ["CAPTURED", "AUTHORIZED", "CAPTURED"])
            #expect(recorded.map(\.payment.providerPaymentID) == ["pay_r1", "pay_r2", "pay_r3"])
            // A new payment gets the id chosen for it; a stored one keeps its own.
            #expect(recorded[0].payment.id == newID)
            #expect(recorded[2].payment.id == stored)
            #expect(recorded.map(\.payment.verificationMethod) == ["SIGNED_WEBHOOK", "SIGNED_WEBHOOK", "SIGNED_WEBHOOK"])
            #expect(recorded[0].payment.capturedAt != nil && recorded[1].payment.capturedAt == nil && recorded[2].payment.capturedAt != nil)
            #expect(recorded.map(\.paid) == [50_000, 0, 70_000])
            #expect(orders.map(\.status) == [.paid, .pending, .paid])
            #expect(try await h.count("payments") == 3)
            let paid = try await h.pool.query("""
                SELECT amount_paid_minor, status FROM orders WHERE provider_order_id = ANY(\([first, second, third].map(\.providerOrderID)))
                ORDER BY amount_minor, provider_order_id = \(second.providerOrderID)
                """).decode((Int64, String).self)
            #expect(paid.map(\.0).sorted() == [0, 50_000, 70_000])
            #expect(Set(paid.map(\.1)) == ["PAID", "PENDING"])
            // One timeline entry per payment that moved, linked to its payment.
            for (id, kind) in [(first.id, "PAYMENT_CAPTURED"), (second.id, "PAYMENT_AUTHORIZED"), (third.id, "PAYMENT_CAPTURED")] {
                let kinds = try await OrderLifecycleTests.order(h, id)["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
                #expect(kinds.filter { $0 == kind }.count == 1, "\(kinds)")
            }
            let unlinked = try await h.pool.query("""
                SELECT count(*) FROM order_events WHERE kind LIKE 'PAYMENT_%' AND payment_id IS NULL
                """).single(Int64.self)
            #expect(unlinked == 0)

            // Again, all three now stored: nothing moves (statuses only move forward), no timeline entry, the amounts stay.
            let entries = try await h.count("order_events")
            let again = try await h.pool.withTransaction { connection in
                var locks = WebhookLocks()
                try await locks.prefetch(events, on: connection)
                let together = WebhookBatchWriter.recordedTogether(events.enumerated().map { ($0, $1, UUID(), nil) }, locks: locks)
                    .map { item in var batched = item.batched; batched.webhookEventID = nil; return batched }
                return try await PaymentStore.record(together, verification: .signedWebhook, source: "WEBHOOK", on: connection)
            }
            #expect(again.map(\.payment.status) == ["CAPTURED", "AUTHORIZED", "CAPTURED"])
            #expect(again.map(\.paid) == [50_000, 0, 70_000])
            #expect(try await h.count("order_events") == entries)
            #expect(try await h.count("payments") == 3)
        }
    }

    @Test func aWaveRecordsItsPaymentsTogetherOnlyWhenTheLocksHoldThem() async throws {
        try await GatewayHarness.run { h in
            let first = try await WebhookGroupCommitTests.razorpayOrder(h)
            let second = try await WebhookGroupCommitTests.razorpayOrder(h)
            var refund = WebhookGroupCommitTests.delivery("evt_t3", order: second.providerOrderID, payment: "pay_t3", status: .captured).event
            refund.refundID = "rfnd_t3"
            let events = [
                WebhookGroupCommitTests.delivery("evt_t1", order: first.providerOrderID, payment: "pay_t1", status: .captured).event,
                WebhookGroupCommitTests.delivery("evt_t2", order: second.providerOrderID, payment: "pay_t2", status: .captured).event,
                refund,
                WebhookGroupCommitTests.delivery("evt_t4", order: "order_absent", payment: "pay_t4", status: .captured).event,
            ]
            let (all, notPrefetched, alone) = try await h.pool.withTransaction { connection in
                var locks = WebhookLocks()
                try await locks.prefetch(events, on: connection)
                let wave = events.enumerated().map { ($0, $1, UUID(), UUID?.none) }
                return (WebhookBatchWriter.recordedTogether(wave, locks: locks).map(\.position),
                        WebhookBatchWriter.recordedTogether(wave, locks: WebhookLocks()).map(\.position),
                        WebhookBatchWriter.recordedTogether(Array(wave.prefix(1)), locks: locks).map(\.position))
            }
            // The two captures of prefetched orders; not the refund, not the order nobody made.
            #expect(all == [0, 1])
            #expect(notPrefetched == [])
            #expect(alone == [])
            // Written through the batch writer: both applied and their orders paid, as one at a time would.
            let results = await WebhookBatchWriter(pool: h.pool).write(Array([
                WebhookGroupCommitTests.delivery("evt_t1", order: first.providerOrderID, payment: "pay_t1", status: .captured),
                WebhookGroupCommitTests.delivery("evt_t2", order: second.providerOrderID, payment: "pay_t2", status: .captured),
            ]))
            #expect(WebhookGroupCommitTests.outcomes(results) == [.accepted("APPLIED"), .accepted("APPLIED")])
            for order in [first.id, second.id] {
                let now = try await OrderLifecycleTests.order(h, order)
                #expect(now["status"]?.stringValue == "PAID")
                #expect(now["amountPaid"]?["amount"]?.stringValue == "50000")
                let kinds = now["timeline"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
                #expect(kinds.filter { $0 == "PAYMENT_CAPTURED" }.count == 1)
                #expect(kinds.filter { $0 == "STATUS_CHANGED" }.count == 1)
            }
            let linked = try await h.pool.query("""
                SELECT count(*) FROM order_events e JOIN webhook_events w ON w.id = e.webhook_event_id WHERE e.kind = 'PAYMENT_CAPTURED'
                """).single(Int64.self)
            #expect(linked == 2)
        }
    }

    @Test func twoPaymentsOfOneOrderAreRefused() async throws {
        try await GatewayHarness.run { h in
            let order = try await WebhookGroupCommitTests.razorpayOrder(h)
            let events = ["pay_u1", "pay_u2"].map {
                WebhookGroupCommitTests.delivery("evt_\($0)", order: order.providerOrderID, payment: $0, status: .captured).event
            }
            await #expect(throws: GatewayRequestError.self) {
                try await h.pool.withTransaction { connection in
                    var locks = WebhookLocks()
                    try await locks.prefetch(events, on: connection)
                    let together = events.compactMap { WebhookService.batchable($0, eventRowID: UUID(), newPaymentID: nil, locks: locks) }
                        .map { batched in var batched = batched; batched.webhookEventID = nil; return batched }
                    _ = try await PaymentStore.record(together, verification: .signedWebhook, source: "WEBHOOK", on: connection)
                }
            }
            #expect(try await h.count("payments") == 0)
        }
    }

    /// The batch's locking reads probe the unique index once per key, whatever plan PostgreSQL caches: with
    /// a generic plan and no statistics (a table filling faster than autovacuum analyzes it), the same read
    /// written as `provider = ANY(…) AND provider_payment_id = ANY(…)` walked every payment of the provider.
    @Test func theLockingReadsProbeTheUniqueIndexPerKeyWhateverThePlan() async throws {
        try await GatewayHarness.run { h in
            let order = try await WebhookGroupCommitTests.razorpayOrder(h)
            let orderID = try await h.pool.query("SELECT id FROM orders WHERE provider_order_id = \(order.providerOrderID)").single(UUID.self)
            _ = try await h.pool.query("""
                INSERT INTO payments (order_id, provider, provider_payment_id, status, amount_minor, currency)
                SELECT \(orderID), 'razorpay', 'pay_fill_' || n, 'FAILED', 100, 'INR' FROM generate_series(1, 500) AS n
                """)
            let events = ["pay_fill_7", "pay_absent_1", "pay_absent_2", "pay_absent_3"].map {
                WebhookGroupCommitTests.delivery("evt_\($0)", order: order.providerOrderID, payment: $0, status: .captured).event
            }
            let (read, known) = try await h.pool.withConnection { connection in
                func paymentsRead() async throws -> Int64 {
                    _ = try await connection.query("SELECT pg_stat_force_next_flush()")
                    return try await connection.query("""
                        SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relname = 'payments'
                        """).single(Int64.self) ?? -1
                }
                let before = try await paymentsRead()
                let known = try await connection.transaction { connection in
                    // Always the generic plan (as after five executions of a prepared statement).
                    _ = try await connection.query("SET LOCAL plan_cache_mode = force_generic_plan")
                    var locks = WebhookLocks()
                    try await locks.prefetch(events, on: connection)
                    return events.map { locks.known(payment: $0.paymentID ?? "", provider: .razorpay).map { $0 != nil } }
                }
                return (try await paymentsRead() - before, known)
            }
            #expect(known == [true, false, false, false])
            // The one stored payment of the four (a scan of the provider's payments would read all 500).
            #expect(read <= 4, "payments read: \(read)")
        }
    }
}
