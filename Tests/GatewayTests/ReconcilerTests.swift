import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Postgres
import Sandbox
import Testing

/// The reconciler: its schedule and decisions as pure functions, and against a real database
/// several workers sharing the due orders without re-reading one twice.
@Suite struct ReconcilerTests {
    static let t0 = PostgresTimestamp(microsecondsSinceEpoch: 1_700_000_000_000_000)

    static func candidate(_ status: OrderStatusName = .created, flagged: Bool = false, providerOrder: Bool = true,
                          expiresAt: PostgresTimestamp? = nil, attempts: Int = 1, pendingRefunds: Bool = false) -> ReconcileCandidate {
        ReconcileCandidate(status: status, needsReconciliation: flagged, hasProviderOrder: providerOrder, createdAt: t0,
                           expiresAt: expiresAt, attempts: attempts, pendingRefunds: pendingRefunds)
    }

    @Test func scheduleGoesFromSecondsToMinutesAndRepeatsItsLastDelay() {
        let schedule = ReconcileSchedule.standard
        #expect(schedule.delay(afterAttempt: 0) == .seconds(5))
        #expect(schedule.delay(afterAttempt: 1) == .seconds(5))
        #expect(schedule.delay(afterAttempt: 4) == .seconds(60))
        #expect(schedule.delay(afterAttempt: 8) == .seconds(1800))
        #expect(schedule.delay(afterAttempt: 500) == .seconds(1800))
        #expect(ReconcileSchedule(delays: []).delay(afterAttempt: 3) == .seconds(300))
    }

    @Test func decisionsFollowStatusExpiryAndCreation() {
        var configuration = ReconcilerConfiguration()
        configuration.schedule = ReconcileSchedule(delays: [.seconds(5), .seconds(60)])
        let t0 = Self.t0
        // Final and confirmed: nothing to ask.
        #expect(ReconcilePolicy.before(Self.candidate(.paid), now: t0, configuration) == .done)
        // Final but flagged (a verification that could not be confirmed): ask.
        #expect(ReconcilePolicy.before(Self.candidate(.failed, flagged: true), now: t0, configuration) == .sync(last: false))
        // No provider order and no flag: createOrder may still be at the provider.
        #expect(ReconcilePolicy.before(Self.candidate(providerOrder: false), now: t0.adding(.seconds(10)), configuration)
                == .wait(until: t0.adding(.seconds(60))))
        #expect(ReconcilePolicy.before(Self.candidate(providerOrder: false), now: t0.adding(.seconds(61)), configuration) == .sync(last: false))
        // Without a provider expiry: created + 24 h + 24 h is the last look.
        #expect(ReconcilePolicy.before(Self.candidate(), now: t0.adding(.seconds(47 * 3600)), configuration) == .sync(last: false))
        #expect(ReconcilePolicy.before(Self.candidate(), now: t0.adding(.seconds(48 * 3600)), configuration) == .sync(last: true))
        // With one: its expiry + 24 h.
        let expiry = t0.adding(.seconds(3600))
        #expect(ReconcilePolicy.before(Self.candidate(expiresAt: expiry), now: t0.adding(.seconds(25 * 3600)), configuration) == .sync(last: true))
        // After the look: the schedule, never past the deadline; EXPIRED after the last look.
        #expect(ReconcilePolicy.after(Self.candidate(attempts: 1), now: t0, last: false, configuration) == .again(at: t0.adding(.seconds(5))))
        #expect(ReconcilePolicy.after(Self.candidate(attempts: 9), now: t0, last: false, configuration) == .again(at: t0.adding(.seconds(60))))
        let nearEnd = expiry.adding(.seconds(24 * 3600 - 10))
        #expect(ReconcilePolicy.after(Self.candidate(expiresAt: expiry, attempts: 9), now: nearEnd, last: false, configuration)
                == .again(at: expiry.adding(.seconds(24 * 3600))))
        #expect(ReconcilePolicy.after(Self.candidate(attempts: 9), now: t0, last: true, configuration) == .expire)
        #expect(ReconcilePolicy.after(Self.candidate(.paid), now: t0, last: true, configuration) == .done)
        // A PAID order with a PENDING refund is asked about on the schedule, past its deadline too.
        #expect(ReconcilePolicy.before(Self.candidate(.paid, pendingRefunds: true), now: t0, configuration) == .sync(last: false))
        let late = t0.adding(.seconds(100 * 3600))
        #expect(ReconcilePolicy.after(Self.candidate(.paid, attempts: 2, pendingRefunds: true), now: late, last: false, configuration)
                == .again(at: late.adding(.seconds(60))))
    }

    @Test func aRefundWhoseAnswerWasLostIsSettledByTheReconciler() async throws {
        try await GatewayHarness.run { h in
            let (order, payment) = try await RefundTests.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            // Every attempt answers 500 before Razorpay refunds anything (after the work, its webhook would settle it).
            try await h.sandboxControl("/faults", body: #"{"route": "POST /razorpay/v1/payments/*/refund", "kind": "status", "status": 500}"#)
            let lost = try await RefundTests.refund(h, payment: payment, amount: "20000")
            #expect(lost.userErrorCodes("createRefund") == ["PROVIDER_TIMEOUT"])
            #expect(lost.data("createRefund")?["refund"]?["needsReconciliation"]?.boolValue == true, "\(lost.json)")
            try await h.sandboxControl("/faults", method: "DELETE")
            let clock = TestClock()
            let log = ReconcilerLog()
            let reconciler = h.reconciler(clock: clock, log: log)
            // A refund younger than the creation grace may still be at the provider: not yet.
            #expect(try await reconciler.runOnce() == 0)
            clock.advance(.seconds(120))
            #expect(try await reconciler.runOnce() == 1)
            #expect(log.failures == [])
            let refunds = try await h.graphQL("query($id: ID!) { order(id: $id) { amountRefunded { amount } refunds { status needsReconciliation } } }",
                                              variables: ["id": .string(order)]).data("order")
            #expect(refunds?["refunds"]?.arrayValue?.first?["status"]?.stringValue == "SUCCEEDED")
            #expect(refunds?["refunds"]?.arrayValue?.first?["needsReconciliation"]?.boolValue == false)
            #expect(refunds?["amountRefunded"]?["amount"]?.stringValue == "20000")
            // Razorpay made exactly one refund (the re-read repeats the request under the same idempotency key).
            let providerPayment = try #require(try await h.pool.query("SELECT provider_payment_id FROM payments").single(String.self))
            let atRazorpay = try await h.client.execute(.init(method: "GET", url: h.sandbox.baseURL(for: .razorpay) + "/v1/payments/\(providerPayment)/refunds",
                                                              headers: [("authorization", "Basic " + RefundTests.razorpayBasic(h))]))
            #expect(try JSONParser.parse(atRazorpay.body)["count"]?.intValue == 1)
            // Settled: the PAID order is not asked about again.
            clock.advance(.seconds(3600))
            #expect(try await reconciler.runOnce() == 0)
        }
    }

    @Test func twoWorkersClaimEachOrderOnce() async throws {
        try await GatewayHarness.run { h in
            let count = 60
            for index in 0..<count {
                let answer = try await h.createOrder(receipt: "share_\(index)")
                #expect(answer.userErrorCodes("createOrder") == [])
            }
            // Past the creation grace: every open order is due once. The next look is a minute away.
            let clock = TestClock()
            clock.advance(.seconds(120))
            let logs = [ReconcilerLog(), ReconcilerLog()]
            let workers = logs.map { log in
                h.reconciler(clock: clock, log: log) { configuration in
                    configuration.batchSize = 4
                    configuration.concurrency = 2
                    configuration.schedule = ReconcileSchedule(delays: [.seconds(60)])
                }
            }
            for worker in workers { worker.start() }
            // A claim is committed a moment before its worker logs it: wait for both, or stopping the workers
            // could cancel one between the two (seen at load 29: 56 of 60 logged).
            let done = try await h.eventually(timeout: .seconds(60)) {
                try await h.pool.query("SELECT count(*) FROM orders WHERE reconcile_attempts = 0").single(Int64.self) == 0
                    && logs[0].claimed.count + logs[1].claimed.count >= count
            }
            for worker in workers { await worker.shutdown() }
            #expect(done)
            let claims = logs[0].claimed + logs[1].claimed
            #expect(claims.count == count)
            #expect(Set(claims).count == count)
            // Both took part (batches of 4: one worker alone would need 15 rounds).
            #expect(!logs[0].claimed.isEmpty && !logs[1].claimed.isEmpty)
            #expect(logs[0].failures + logs[1].failures == [])
            let attempts = try await h.pool.query("SELECT max(reconcile_attempts), min(reconcile_attempts) FROM orders")
                .single((Int32, Int32).self)
            #expect(attempts?.0 == 1 && attempts?.1 == 1)
            // Each was asked once and rescheduled a minute on.
            let unscheduled = try await h.pool.query("SELECT count(*) FROM orders WHERE reconcile_after IS NULL").single(Int64.self)
            #expect(unscheduled == 0)
        }
    }

    @Test func anOrderStillOpenPastExpiryAndGraceBecomesExpired() async throws {
        try await GatewayHarness.run { h in
            let answer = try await h.createOrder(receipt: "never_paid")
            let id = try #require(answer.data("createOrder")?["order"]?["id"]?.stringValue)
            let clock = TestClock()
            let log = ReconcilerLog()
            let reconciler = h.reconciler(clock: clock, log: log) { $0.defaultOrderLifetime = .seconds(3600) }
            clock.advance(.seconds(120))
            #expect(try await reconciler.runOnce() == 1)
            #expect(try await h.order(id)?["status"]?.stringValue == "CREATED")
            clock.advance(.seconds(25 * 3600))
            #expect(try await reconciler.runOnce() == 1)
            #expect(try await h.order(id)?["status"]?.stringValue == "EXPIRED")
            #expect(log.failures == [])
            // Never asked about again.
            clock.advance(.seconds(48 * 3600))
            #expect(try await reconciler.runOnce() == 0)
        }
    }
}
