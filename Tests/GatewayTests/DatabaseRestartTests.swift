import Foundation
@testable import Gateway
import JSON
import Postgres
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL restarted while orders are being created: every order acknowledged to a client is
/// stored, the others failed with a clear error, and their retry (same receipt and idempotency
/// key) succeeds without a second provider order. Runs on a cluster of its own.
@Suite struct DatabaseRestartTests {
    /// One createOrder as the client saw it.
    struct Outcome: Sendable {
        var receipt: String
        var orderID: String?
        /// The top-level error's `extensions.code`, or the transport error.
        var code: String?
        var error: String?
    }

    @Test func ordersAcknowledgedAcrossARestartAreStoredAndTheOthersSucceedOnRetry() async throws {
        var configuration = EmbeddedPostgresConfiguration()
        configuration.dataDirectory = NSTemporaryDirectory() + "payql-gwrestart-\(getpid())/pg"
        configuration.serverSettings = ["fsync": "off", "full_page_writes": "off", "max_connections": "100"]
        let cluster = try await EmbeddedPostgres.start(configuration)
        defer { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "payql-gwrestart-\(getpid())") }
        do {
            try await cluster.createDatabase("restart")
            try await GatewayHarness.run(databaseURL: cluster.connectionString(database: "restart")) { h in
                try await Self.createAcrossRestart(h, cluster: cluster)
            }
        } catch {
            try? await cluster.stop()
            throw error
        }
        try await cluster.stop()
    }

    static func createAcrossRestart(_ h: GatewayHarness, cluster: EmbeddedPostgres) async throws {
        let lanes = 4
        let perLane = 12
        let restarted = RestartFlag()
        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var outcomes: [Outcome] = []
                    for n in 0..<perLane {
                        // Keep creating until the restart is over and a few more went through.
                        let receipt = "rs_\(lane)_\(n)"
                        outcomes.append(await Self.create(h, receipt: receipt))
                        if n >= 3 && !restarted.done.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(30)) }
                    }
                    return outcomes
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(150))
                try await cluster.restart()
                restarted.done.store(true, ordering: .relaxed)
                return []
            }
            var all: [Outcome] = []
            for try await lane in group { all += lane }
            return all
        }
        #expect(outcomes.count == lanes * perLane)
        let acknowledged = outcomes.filter { $0.orderID != nil }
        let failed = outcomes.filter { $0.orderID == nil }
        // The restart happened while orders were being created: some went through, some did not.
        #expect(!acknowledged.isEmpty && !failed.isEmpty, "\(acknowledged.count) acknowledged, \(failed.count) failed")
        // Every acknowledged order is stored, with its provider order.
        for outcome in acknowledged {
            let stored = try await h.pool.query("SELECT provider_order_id FROM orders WHERE receipt = \(outcome.receipt)").single(String?.self)
            #expect(stored != nil && stored! != nil, "acknowledged \(outcome.receipt) is not stored")
        }
        // The others said why (a top-level INTERNAL error saying to retry, no driver text), and succeed on
        // retry with the same receipt and key.
        for outcome in failed {
            #expect(outcome.code == "INTERNAL", "\(outcome.receipt): \(outcome.error ?? "")")
            #expect(outcome.error?.contains("retry") == true && outcome.error?.contains("postgres") == false, "\(outcome.error ?? "")")
            let retry = await Self.create(h, receipt: outcome.receipt)
            #expect(retry.orderID != nil, "retry of \(outcome.receipt) after '\(outcome.error ?? "")': \(retry.error ?? "")")
        }
        // Never two provider orders for one receipt.
        for outcome in outcomes {
            #expect(try await h.razorpayOrders(receipt: outcome.receipt).count <= 1, "\(outcome.receipt)")
        }
        #expect(try await h.count("orders") == Int64(lanes * perLane))
    }

    /// createOrder with `receipt` and an idempotency key named after it; what the client saw.
    static func create(_ h: GatewayHarness, receipt: String) async -> Outcome {
        do {
            let answer = try await h.createOrder(receipt: receipt, idempotencyKey: "key-\(receipt)")
            if let id = answer.data("createOrder")?["order"]?["id"]?.stringValue, answer.userErrorCodes("createOrder").isEmpty {
                return Outcome(receipt: receipt, orderID: id)
            }
            let codes = answer.errorCodes + answer.userErrorCodes("createOrder")
            let messages = answer.json["errors"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            return Outcome(receipt: receipt, code: codes.first, error: "HTTP \(answer.status): \(messages.joined(separator: "; ")) \(codes)")
        } catch {
            return Outcome(receipt: receipt, code: "transport", error: "\(error)")
        }
    }
}

/// Set once the restart is over (shared by the client lanes).
final class RestartFlag: Sendable {
    let done = Atomic<Bool>(false)
}
