import ChildProcess
import Foundation
@testable import Gateway
import JSON
import Postgres
import Sandbox
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 11: the outbox confirms each bill payment to Setu exactly once with two `payql serve`
/// processes running and one of them SIGKILLed in the middle of delivering.
@Suite struct SetuTwoInstancesTests {
    @Test func eachBillIsConfirmedOnceWhenAnInstanceIsKilledMidDelivery() async throws {
        try await GatewayHarness.run { h in
            let bills = 8
            var started: [(bill: String, setuOrder: String, providerOrder: String)] = []
            for _ in 0..<bills { started.append(try await SetuConfirmationTests.startAtRazorpay(h, amount: "250.00")) }
            // Setu answers the first four payment-events slowly: the instance that sends them is caught mid-delivery.
            _ = try await h.sandboxControl("/faults", body: #"{"route":"POST /setu/api/v2/webhooks/payment-event","kind":"latency","ms":3000,"times":4}"#)
            // A lease longer than the slow answers (3 s), so a live instance keeps its claims even on a busy machine;
            // the killed one's run out after it and the second instance takes them over.
            let flags = ServeProcess.setuArguments(h.sandbox) + ["--outbox-interval-ms", "50", "--outbox-lease-ms", "5000"]
            let first = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox, extra: flags)
            var second: ServeProcess?
            do {
                // Every order is paid (the harness takes Razorpay's webhooks; its gateway runs no outbox worker).
                for bill in started {
                    _ = try await h.sandboxControl("/razorpay/orders/\(bill.providerOrder)/complete", body: #"{"status":"paid"}"#)
                }
                // The first instance is sending: start the second, then kill the first in the middle of its deliveries.
                #expect(try await h.eventually(timeout: .seconds(30)) {
                    try await h.pool.query("SELECT count(*) FROM bill_payment_confirmations WHERE status = 'SENDING'").single(Int64.self) ?? 0 > 0
                })
                second = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox, extra: flags)
                first.process.terminate(signal: SIGKILL)
                _ = await withCheckedContinuation { continuation in
                    Thread.detachNewThread { continuation.resume(returning: first.process.waitForExit()) }
                }
                // The second instance finishes the work once the killed one's claims run out.
                #expect(try await h.eventually(timeout: .seconds(60)) {
                    try await h.pool.query("SELECT count(*) FROM bill_payment_confirmations WHERE status = 'ACKNOWLEDGED'").single(Int64.self) == Int64(bills)
                })
            } catch {
                first.process.terminate(signal: SIGKILL)
                _ = first.process.waitForExit()
                _ = await second?.stop()
                throw error
            }
            try? FileManager.default.removeItem(atPath: first.logPath)
            _ = await second?.stop()

            // At Setu: one outcome per bill, the confirmed payment's; a bill whose delivery was cut by the kill may have
            // been sent twice (Setu's payment-event is idempotent), every other exactly once.
            var resent = 0
            for bill in started {
                let setu = try await SetuConfirmationTests.setu(h, bill.setuOrder)
                let answers = setu["paymentEventAnswers"]?.arrayValue?.compactMap(\.intValue) ?? []
                #expect(!answers.isEmpty && answers.allSatisfy { $0 == 200 }, "\(bill.setuOrder): \(answers)")
                #expect(setu["paymentEvent"]?["paymentStatus"]?.stringValue == "SUCCESS")
                let confirmation = try await SetuConfirmationTests.bill(h, bill.bill)["confirmation"]
                #expect(setu["paymentEvent"]?["transactionId"] == confirmation?["transactionId"])
                if answers.count > 1 { resent += 1 }
            }
            #expect(resent <= 4)
            #expect(try await h.pool.query("SELECT count(*) FROM outbox WHERE kind = 'setu.payment_event' AND state = 'DELIVERED'")
                .single(Int64.self) == Int64(bills))
        }
    }
}
