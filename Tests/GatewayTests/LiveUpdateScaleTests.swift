import ChildProcess
import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Testing

/// Issue 12's figure: 1,000 open subscriptions on one `payql serve` while their orders are paid
/// through another instance on the same database (the test's own PayQL, which receives the
/// sandbox's webhooks): every subscriber gets its order's PAID. Measures the latency (from the
/// paying transaction's `paid_at` to the PAID event read by the subscriber, both wall clock) and
/// the serving process's memory and threads before and after.
/// The figures are printed (`LIVE-FIGURES`) and kept in Benchmarks/live/README.md.
@Suite struct LiveUpdateScaleTests {
    static let subscribers = 1000

    @Test func thousandSubscribersOnOneInstanceSeeTheirOrdersPaidThroughAnother() async throws {
        try await GatewayHarness.run { h in
            // The orders, created through the test's own instance (ten at a time).
            let client = h.client
            let orders = try await withThrowingTaskGroup(of: (Int, String, String).self) { group in
                var made: [(String, String)] = Array(repeating: ("", ""), count: Self.subscribers)
                for index in 0..<Self.subscribers {
                    if index >= 10, let (done, id, provider) = try await group.next() { made[done] = (id, provider) }
                    group.addTask {
                        let answer = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { order { id providerOrderId } userErrors { code } } }"#)
                        let order = answer.data("createOrder")?["order"]
                        return (index, order?["id"]?.stringValue ?? "", order?["providerOrderId"]?.stringValue ?? "")
                    }
                }
                for try await (done, id, provider) in group { made[done] = (id, provider) }
                return made
            }
            #expect(orders.allSatisfy { !$0.0.isEmpty && !$0.1.isEmpty })
            _ = client

            let serving = try await ServeProcess.start(
                databaseURL: h.databaseURL, sandbox: h.sandbox,
                extra: ["--max-subscriptions-per-key", "2000"])
            let port = Int(serving.baseURL.split(separator: ":").last ?? "") ?? 0
            // Warm up (the first request loads the schema's plans), then measure.
            _ = try? EventStreamConnection(port: port, key: h.secretKey, body: LiveUpdateTests.body(id: orders[0].0))
            try await Task.sleep(for: .seconds(1))
            let before = processFigures(pid: serving.process.pid)

            let swarm = try SubscriberSwarm(port: port, key: h.secretKey, bodies: orders.map { LiveUpdateTests.body(id: $0.0) })
            let allOpen = try await h.eventually(timeout: .seconds(120)) {
                swarm.all.allSatisfy { $0.status == 200 && !$0.events.isEmpty }
            }
            #expect(allOpen, "\(swarm.all.filter { $0.events.isEmpty }.count) subscribers without a first result")
            try await Task.sleep(for: .seconds(1))
            let open = processFigures(pid: serving.process.pid)

            // Pay every order in the sandbox (ten at a time); its webhook reaches the other instance.
            let paidAt = try await withThrowingTaskGroup(of: (Int, ContinuousClock.Instant).self) { group in
                var times: [ContinuousClock.Instant?] = Array(repeating: nil, count: Self.subscribers)
                for index in 0..<Self.subscribers {
                    if index >= 10, let (done, at) = try await group.next() { times[done] = at }
                    group.addTask {
                        try await h.complete("razorpay", order: orders[index].1)
                        return (index, ContinuousClock.now)
                    }
                }
                for try await (done, at) in group { times[done] = at }
                return times
            }
            let everyonePaid = try await h.eventually(timeout: .seconds(120)) {
                swarm.all.allSatisfy { $0.events.contains { $0.data.contains("\"PAID\"") } }
            }
            let during = processFigures(pid: serving.process.pid)
            let received = swarm.all
            let missing = received.indices.filter { index in !received[index].events.contains { $0.data.contains("\"PAID\"") } }
            #expect(everyonePaid, "\(missing.count) subscribers did not see PAID")
            // From the paying transaction (orders.paid_at: its start, so an upper bound of commit → client) to the event read.
            let paidRows = try await h.pool.query("SELECT id::text, extract(epoch FROM paid_at)::float8 FROM orders WHERE paid_at IS NOT NULL")
            var paidEpoch: [String: Double] = [:]
            for (id, epoch) in try paidRows.decode((String, Double).self) { paidEpoch[id] = epoch }
            var latencies: [Double] = []
            for index in received.indices {
                guard let uuid = GlobalID(orders[index].0)?.uuid.uuidString.lowercased(), let committed = paidEpoch[uuid],
                      let event = received[index].events.first(where: { $0.data.contains("\"PAID\"") }) else { continue }
                latencies.append((event.at - committed) * 1000)
            }
            _ = paidAt
            latencies.sort()
            func percentile(_ p: Double) -> Double { latencies.isEmpty ? -1 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }

            swarm.close()
            let metrics = try await h.client.execute(HTTPClientRequest(method: "GET", url: serving.baseURL + "/metrics"))
            let freed = try await h.eventually(timeout: .seconds(20)) {
                let text = String(decoding: try await h.client.execute(HTTPClientRequest(method: "GET", url: serving.baseURL + "/metrics")).body, as: UTF8.self)
                return text.contains("payql_subscriptions_open 0")
            }
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("payql_subscriptions_open"))
            #expect(freed)
            try await Task.sleep(for: .seconds(1))
            let after = processFigures(pid: serving.process.pid)
            print("""
                LIVE-FIGURES subscribers=\(Self.subscribers) \
                latency_ms p50=\(String(format: "%.1f", percentile(0.5))) p90=\(String(format: "%.1f", percentile(0.9))) \
                p99=\(String(format: "%.1f", percentile(0.99))) max=\(String(format: "%.1f", latencies.last ?? -1)) under_1s=\(latencies.filter { $0 < 1000 }.count) \
                rss_kb before=\(before.rssKB) open=\(open.rssKB) after_paid=\(during.rssKB) closed=\(after.rssKB) \
                threads before=\(before.threads) open=\(open.threads) after_paid=\(during.threads) closed=\(after.threads)
                """)
            // No thread per subscriber: the serving process's threads do not grow with them.
            #expect(open.threads < before.threads + 20, "threads \(before.threads) -> \(open.threads)")
            #expect(await serving.stop() == 0)
        }
    }
}
