import Foundation
import PaymentsCore
import Postgres
import Support
@testable import Gateway
import Testing

/// The live-update triggers of orders and payments (migrations 0013, 0016): a change NOTIFYs
/// `payql_events` with its order; the bookkeeping columns alone (an order's `updated_at`,
/// `last_synced_at`, `reconcile_after`, `reconcile_attempts`; a payment's `updated_at`) do not.
@Suite struct LiveNotifyTriggerTests {
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
}
