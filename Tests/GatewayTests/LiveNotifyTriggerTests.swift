import Foundation
import PaymentsCore
import Postgres
import Support
@testable import Gateway
import Testing

/// The live-update triggers of orders and payments (migrations 0013, 0016, 0019): a change NOTIFYs
/// `payql_events` with its order; the bookkeeping columns alone (an order's `updated_at`,
/// `last_synced_at`, `reconcile_after`, `reconcile_attempts`; a payment's `updated_at`) do not.
@Suite struct LiveNotifyTriggerTests {
    /// A started listener on `payql_events` whose payloads go into `heard`, once it is connected.
    static func listening(_ h: GatewayHarness, into heard: Locked<[String]>) async throws -> PostgresListener {
        let connected = Locked(false)
        let listener = try PostgresListener(configuration: try PostgresConfiguration(connectionString: h.databaseURL),
                                            channels: ["payql_events"]) { event in
            switch event {
            case .connected: connected.withLock { $0 = true }
            case .notification(_, let payload): heard.withLock { $0.append(payload) }
            case .disconnected: break
            }
        }
        listener.start()
        #expect(try await h.eventually { connected.withLock { $0 } })
        return listener
    }

    @Test func bookkeepingAloneNotifiesNothingAndAChangeNotifiesItsOrder() async throws {
        try await GatewayHarness.run { h in
            let quiet = try await WebhookGroupCommitTests.razorpayOrder(h)
            let changed = try await WebhookGroupCommitTests.razorpayOrder(h)
            _ = await WebhookBatchWriter(pool: h.pool).write([
                WebhookGroupCommitTests.delivery("evt_n1", order: quiet.providerOrderID, payment: "pay_n1", status: .authorized,
                                                 type: "payment.authorized"),
            ])
            let quietID = try #require(try await h.pool.query("SELECT id FROM orders WHERE provider_order_id = \(quiet.providerOrderID)").single(UUID.self))
            let changedID = try #require(try await h.pool.query("SELECT id FROM orders WHERE provider_order_id = \(changed.providerOrderID)").single(UUID.self))

            let heard = Locked<[String]>([])
            let listener = try await Self.listening(h, into: heard)
            // Bookkeeping only, each in its own transaction: no notification.
            _ = try await h.pool.query("""
                UPDATE orders SET updated_at = now() + interval '1 second', last_synced_at = now(), reconcile_after = now(),
                    reconcile_attempts = reconcile_attempts + 1
                WHERE id = \(quietID)
                """)
            _ = try await h.pool.query("UPDATE payments SET updated_at = now() + interval '1 second' WHERE order_id = \(quietID)")
            // Then a real change of the other order and of the first order's payment: notified, in commit order.
            _ = try await h.pool.query("UPDATE orders SET provider_status = 'attempted' WHERE id = \(changedID)")
            _ = try await h.pool.query("UPDATE payments SET method = 'card' WHERE order_id = \(quietID)")
            let both = try await h.eventually { heard.withLock { $0.count >= 2 } }
            await listener.shutdown()
            #expect(both)
            // Notifications arrive in commit order: had the bookkeeping notified, it would be first.
            #expect(heard.withLock { $0 } == ["Order:\(changedID.uuidString.lowercased())", "Order:\(quietID.uuidString.lowercased())"])
        }
    }

    /// Every row of a statement that changes several is announced — orders moved together, a webhook batch's
    /// wave (one statement for all its payments and their orders), payments inserted and updated by one
    /// statement's CTEs, an upsert's inserted and updated rows — and a row whose bookkeeping alone changed is
    /// not: whatever the triggers become (0019 compares the columns that usually move first; statement-level
    /// triggers were tried), each changed row must reach the listener.
    @Test func everyRowOfAMultiRowStatementIsAnnounced() async throws {
        try await GatewayHarness.run { h in
            var orders: [(id: UUID, providerOrderID: String)] = []
            for _ in 0..<7 {
                let created = try await WebhookGroupCommitTests.razorpayOrder(h)
                let id = try #require(try await h.pool.query("SELECT id FROM orders WHERE provider_order_id = \(created.providerOrderID)").single(UUID.self))
                orders.append((id, created.providerOrderID))
            }
            func announced(_ indices: [Int]) -> Set<String> { Set(indices.map { "Order:\(orders[$0].id.uuidString.lowercased())" }) }
            let heard = Locked<[String]>([])
            let listener = try await Self.listening(h, into: heard)
            /// Waits for `indices`' orders to be heard (each change is committed before the next begins, and
            /// notifications arrive in commit order), then takes everything heard so far.
            func take(_ indices: [Int]) async throws -> Set<String> {
                let all = try await h.eventually { Set(heard.withLock { $0 }).isSuperset(of: announced(indices)) }
                #expect(all)
                return heard.withLock { taken in defer { taken.removeAll() }; return Set(taken) }
            }

            // One UPDATE of three orders: orders 0 and 1 change, order 2 only in its bookkeeping. Then a webhook
            // batch of three orders' payments: one wave, their payments inserted by one statement.
            _ = try await h.pool.query("""
                UPDATE orders SET provider_status = CASE WHEN id = ANY(\([orders[0].id, orders[1].id].map(\.uuidString))::uuid[]) THEN 'attempted' ELSE provider_status END,
                    updated_at = now() + interval '1 second', reconcile_attempts = reconcile_attempts + 1
                WHERE id = ANY(\([orders[0].id, orders[1].id, orders[2].id].map(\.uuidString))::uuid[])
                """)
            let wave = [3, 4, 5].map { index in
                WebhookGroupCommitTests.delivery("evt_stmt_\(index)", order: orders[index].providerOrderID, payment: "pay_stmt_\(index)",
                                                 status: .authorized, type: "payment.authorized")
            }
            let results = await WebhookBatchWriter(pool: h.pool).write(wave)
            #expect(WebhookGroupCommitTests.outcomes(results) == Array(repeating: .accepted("APPLIED"), count: 3))
            #expect(try await take([0, 1, 3, 4, 5]) == announced([0, 1, 3, 4, 5]))

            // One statement whose CTEs insert payments of orders 6 and 2 and update those of orders 3 and 4; one that
            // touches only the `updated_at` of order 5's payment; then order 0 changes.
            _ = try await h.pool.query("""
                WITH inserted AS (
                    INSERT INTO payments (order_id, provider, provider_payment_id, status, amount_minor, currency)
                    VALUES (\(orders[6].id), 'razorpay', 'pay_stmt_6', 'PENDING', 100, 'INR'),
                           (\(orders[2].id), 'razorpay', 'pay_stmt_2', 'PENDING', 100, 'INR')
                    RETURNING id
                ),
                updated AS (
                    UPDATE payments SET method = 'card' WHERE order_id = ANY(\([orders[3].id, orders[4].id].map(\.uuidString))::uuid[]) RETURNING id
                )
                SELECT (SELECT count(*) FROM inserted) + (SELECT count(*) FROM updated)
                """)
            _ = try await h.pool.query("UPDATE payments SET updated_at = now() + interval '1 second' WHERE order_id = \(orders[5].id)")
            _ = try await h.pool.query("UPDATE orders SET provider_status = 'changed' WHERE id = \(orders[0].id)")
            #expect(try await take([6, 2, 3, 4, 0]) == announced([6, 2, 3, 4, 0]))

            // An upsert: the payments of orders 6 and 2 updated, a new one of order 1 inserted, in one statement; then
            // order 5 changes.
            _ = try await h.pool.query("""
                INSERT INTO payments (order_id, provider, provider_payment_id, status, amount_minor, currency)
                VALUES (\(orders[6].id), 'razorpay', 'pay_stmt_6', 'PENDING', 100, 'INR'),
                       (\(orders[2].id), 'razorpay', 'pay_stmt_2', 'PENDING', 100, 'INR'),
                       (\(orders[1].id), 'razorpay', 'pay_stmt_1', 'PENDING', 100, 'INR')
                ON CONFLICT (provider, provider_payment_id) DO UPDATE SET method = 'upi'
                """)
            _ = try await h.pool.query("UPDATE orders SET provider_status = 'changed' WHERE id = \(orders[5].id)")
            #expect(try await take([6, 2, 1, 5]) == announced([6, 2, 1, 5]))
            await listener.shutdown()
        }
    }
}
