import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Testing

/// `/metrics` beyond provider calls: webhook deliveries by provider and result, the PostgreSQL pool, and the
/// reconciler backlog read from the database at scrape time (docs/operations.md, "Metrics").
@Suite struct GatewayMetricsTests {
    static func scrape(_ h: GatewayHarness) async throws -> String {
        let response = try await h.client.execute(.init(url: h.baseURL + "/metrics"))
        #expect(response.status == 200)
        return String(decoding: response.body, as: UTF8.self)
    }

    /// The value of the sample line starting with `series` (name and labels), if any.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func webhookDeliveriesAreCountedByProviderAndResult() async throws {
        try await GatewayHarness.run { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let completion = try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
            let id = try #require(created["id"]?.stringValue)
            #expect(try await h.eventually { try await OrderLifecycleTests.order(h, id)["status"]?.stringValue == "PAID" })
            // Redelivered: counted as duplicates, not applied again.
            let first = try #require(completion["webhooks"]?.arrayValue?.first?["id"]?.stringValue)
            try await h.sandboxControl("/webhooks/\(first)/redeliver")
            // Forged: rejected.
            let forged = try await h.client.execute(.init(method: "POST", url: h.baseURL + "/webhooks/razorpay",
                                                          headers: [("x-razorpay-signature", String(repeating: "a", count: 64)),
                                                                    ("content-type", "application/json")],
                                                          body: Array(#"{"event":"payment.captured","payload":{}}"#.utf8)))
            #expect(forged.status == 401)
            let text = try await Self.scrape(h)
            #expect(Self.value(text, #"payql_webhook_events_total{provider="razorpay",result="applied"}"#) == 3, "\(text)")
            #expect(Self.value(text, #"payql_webhook_events_total{provider="razorpay",result="duplicate"}"#) == 1)
            #expect(Self.value(text, #"payql_webhook_events_total{provider="razorpay",result="rejected"}"#) == 1)
            #expect(Self.value(text, "payql_db_pool_waiters") != nil)
            #expect(Self.value(text, #"payql_db_pool_connections{state="idle"}"#) != nil)
        }
    }

    @Test func theReconcilerBacklogIsReadFromTheDatabaseAtScrapeTime() async throws {
        try await GatewayHarness.run { h in
            let before = try await Self.scrape(h)
            #expect(Self.value(before, "payql_reconciler_backlog") == 0, "\(before)")
            #expect(Self.value(before, "payql_orders_needing_reconciliation") == 0)
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(created["id"]?.stringValue)
            let uuid = try #require(GlobalID(id, of: .order)?.uuid)
            // As after a lost provider answer: flagged, due 90 s ago.
            _ = try await h.pool.query("""
                UPDATE orders SET needs_reconciliation = true, reconcile_after = now() - interval '90 seconds' WHERE id = \(uuid)
                """)
            // Scrapes within a second share one read: wait past it (generous: a busy machine).
            try await Task.sleep(for: .milliseconds(1200))
            let after = try await Self.scrape(h)
            #expect(Self.value(after, "payql_reconciler_backlog") == 1, "\(after)")
            #expect(Self.value(after, "payql_orders_needing_reconciliation") == 1)
            #expect((Self.value(after, "payql_reconciler_oldest_due_seconds") ?? 0) >= 90)
            #expect((Self.value(after, "payql_metrics_refresh_failures_total") ?? 0) == 0)
        }
    }

    @Test func theOutboxDepthAndAgeAreReadByKindAndGoBackToZero() async throws {
        try await GatewayHarness.run { h in
            // Two undelivered messages, the older 40 s old, due only tomorrow (no worker takes them meanwhile).
            for age in [40, 5] {
                _ = try await h.pool.query("""
                    INSERT INTO outbox (kind, object_type, object_id, payload, next_attempt_at, created_at)
                    VALUES ('metrics.test', 'Order', gen_random_uuid(), '{}'::jsonb, now() + interval '1 day',
                            now() - make_interval(secs => \(Int64(age))))
                    """)
            }
            let text = try await Self.scrape(h)
            #expect(Self.value(text, #"payql_outbox_depth{kind="metrics.test"}"#) == 2, "\(text)")
            #expect((Self.value(text, #"payql_outbox_oldest_age_seconds{kind="metrics.test"}"#) ?? 0) >= 40)
            _ = try await h.pool.query("""
                UPDATE outbox SET state = 'DELIVERED', next_attempt_at = NULL, delivered_at = now() WHERE kind = 'metrics.test'
                """)
            try await Task.sleep(for: .milliseconds(1200))
            let drained = try await Self.scrape(h)
            #expect(Self.value(drained, #"payql_outbox_depth{kind="metrics.test"}"#) == 0, "\(drained)")
            #expect(Self.value(drained, #"payql_outbox_oldest_age_seconds{kind="metrics.test"}"#) == 0)
        }
    }
}
