import Foundation
@testable import Gateway
import JSON
import Postgres
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The live-events listener across a PostgreSQL restart (a cluster of its own): it reconnects, every
/// open subscription is re-read once (events may have been missed meanwhile), and later changes
/// are delivered again.
@Suite struct LiveUpdateRestartTests {
    @Test func subscriptionsAreReReadAfterTheListenerReconnects() async throws {
        var configuration = EmbeddedPostgresConfiguration()
        let directory = NSTemporaryDirectory() + "payql-gwlive-restart-\(getpid())"
        configuration.dataDirectory = directory + "/pg"
        configuration.serverSettings = ["fsync": "off", "full_page_writes": "off", "max_connections": "100"]
        let cluster = try await EmbeddedPostgres.start(configuration)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await cluster.createDatabase("live")
            try await GatewayHarness.run(databaseURL: cluster.connectionString(database: "live")) { h in
                let order = try #require(try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")["id"]?.stringValue)
                let uuid = try #require(GlobalID(order)).uuid
                let stream = try LiveUpdateTests.open(h, order: order)
                try await LiveUpdateTests.expectEventStreamHead(stream)
                #expect(try await stream.nextEvent(named: "next") != nil)

                try await cluster.restart()
                // Nothing changed, yet the subscriber hears from the server again: the re-read after reconnecting.
                #expect(try await stream.nextEvent(named: "next", timeout: .seconds(60)) != nil)

                // And changes are delivered again (the pool may need a moment to replace its dead connections).
                let updated = try await h.eventually(timeout: .seconds(30)) {
                    (try? await h.pool.query("UPDATE orders SET needs_reconciliation = true WHERE id = \(uuid)")) != nil
                }
                #expect(updated)
                var flagged = false
                while !flagged, let next = try await stream.nextEvent(named: "next", timeout: .seconds(30)) {
                    flagged = try JSONParser.parse(Array(next.data.utf8))["data"]?["orderUpdated"]?["needsReconciliation"] == .bool(true)
                }
                #expect(flagged)
                stream.disconnect()
            }
        } catch {
            try? await cluster.stop()
            throw error
        }
        try await cluster.stop()
    }
}
