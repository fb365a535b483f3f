import Foundation
@testable import Gateway
import Postgres
import Synchronization
import Testing

/// The outbox: its schedule and decisions as pure functions, and against a real database the
/// enqueue inside the caller's transaction, several workers sharing messages with none delivered
/// twice, order per object, retries on the schedule, give-up and refusal.
@Suite struct OutboxTests {
    static let t0 = PostgresTimestamp(microsecondsSinceEpoch: 1_700_000_000_000_000)

    @Test func decisionsFollowTheScheduleUntilTheHorizon() {
        var configuration = OutboxConfiguration()
        configuration.schedule = OutboxSchedule(delays: [.seconds(10), .seconds(60)])
        configuration.giveUpAfter = .seconds(3600)
        let t0 = Self.t0
        #expect(OutboxSchedule.standard.delay(afterAttempt: 0) == .seconds(10))
        #expect(OutboxSchedule.standard.delay(afterAttempt: 99) == .seconds(3600))
        #expect(OutboxSchedule(delays: []).delay(afterAttempt: 1) == .seconds(300))
        #expect(OutboxPolicy.decide(.delivered(), attempts: 1, retrySince: t0, now: t0, configuration) == .delivered)
        #expect(OutboxPolicy.decide(.refused("400"), attempts: 1, retrySince: t0, now: t0, configuration) == .giveUp)
        #expect(OutboxPolicy.decide(.retry("500"), attempts: 1, retrySince: t0, now: t0, configuration) == .retry(at: t0.adding(.seconds(10))))
        #expect(OutboxPolicy.decide(.retry("500"), attempts: 7, retrySince: t0, now: t0, configuration) == .retry(at: t0.adding(.seconds(60))))
        // Never scheduled past the horizon; a failure at or after it is the last.
        let late = t0.adding(.seconds(3590))
        #expect(OutboxPolicy.decide(.retry("500"), attempts: 7, retrySince: t0, now: late, configuration) == .retry(at: t0.adding(.seconds(3600))))
        #expect(OutboxPolicy.decide(.retry("500"), attempts: 8, retrySince: t0, now: t0.adding(.seconds(3600)), configuration) == .giveUp)
    }

    @Test func aMessageExistsExactlyWhenItsTransactionCommits() async throws {
        try await Self.withPool { pool in
            struct Rollback: Error {}
            let object = OutboxObject(type: "Order", id: UUID())
            await #expect(throws: Rollback.self) {
                try await pool.withTransaction { connection in
                    try await Outbox.enqueue(kind: .test, object: object, payload: PostgresJSONB(text: #"{"n":1}"#), on: connection)
                    throw Rollback()
                }
            }
            #expect(try await Self.count(pool) == 0)
            let id = try await pool.withTransaction { connection in
                try await Outbox.enqueue(kind: .test, object: object, payload: PostgresJSONB(text: #"{"n":2}"#), on: connection)
            }
            let row = try await pool.query("SELECT uuid, state, attempts, payload->>'n' FROM outbox").single((UUID, String, Int32, String).self)
            #expect(row?.0 == id)
            #expect(row?.1 == "PENDING")
            #expect(row?.2 == 0)
            #expect(row?.3 == "2")
        }
    }

    @Test func twoWorkersDeliverEveryMessageOnceAndInOrderPerObject() async throws {
        try await Self.withPool { pool in
            let objects = (0..<12).map { _ in UUID() }
            let perObject = 12
            // Interleaved: object 0's first, object 1's first, ..., then every object's second, ...
            try await pool.withTransaction { connection in
                for n in 0..<perObject {
                    for object in objects {
                        try await Outbox.enqueue(kind: .test, object: .order(object), payload: PostgresJSONB(text: #"{"n":\#(n)}"#), on: connection)
                    }
                }
            }
            let log = DeliveryLog()
            let workers = (0..<2).map { worker in
                Self.worker(pool, handler: OutboxHandler(kind: .test) { message, _ in
                    log.record(message, worker: worker)
                    // A little time inside the attempt, so the two workers' claims overlap.
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
                    return .delivered(statusCode: 200)
                }) { configuration in
                    configuration.batchSize = 5
                    configuration.concurrency = 3
                }
            }
            for worker in workers { worker.start() }
            let done = try await Self.eventually {
                try await pool.query("SELECT count(*) FROM outbox WHERE state = 'DELIVERED'").single(Int64.self) == Int64(objects.count * perObject)
            }
            for worker in workers { await worker.shutdown() }
            #expect(done)
            let deliveries = log.deliveries
            #expect(deliveries.count == objects.count * perObject)
            #expect(Set(deliveries.map(\.id)).count == deliveries.count, "a message was delivered twice")
            // Both workers took part.
            #expect(Set(deliveries.map(\.worker)) == [0, 1])
            // Per object, deliveries started in enqueue order.
            for object in objects {
                let sequence = deliveries.filter { $0.object == object }.map(\.sequence)
                #expect(sequence == sequence.sorted(), "object \(object) out of order: \(sequence)")
            }
            #expect(try await pool.query("SELECT max(attempts) FROM outbox").single(Int32.self) == 1)
        }
    }

    @Test func failedAttemptsAreRetriedOnTheScheduleAndLaterMessagesWait() async throws {
        try await Self.withPool { pool in
            let object = OutboxObject.order(UUID())
            let (first, second) = try await pool.withTransaction { connection in
                (try await Outbox.enqueue(kind: .test, object: object, payload: PostgresJSONB(text: #"{"n":1}"#), on: connection),
                 try await Outbox.enqueue(kind: .test, object: object, payload: PostgresJSONB(text: #"{"n":2}"#), on: connection))
            }
            let failuresLeft = Mutex(2)
            let log = DeliveryLog()
            let clock = TestClock()
            let worker = Self.worker(pool, clock: clock, handler: OutboxHandler(kind: .test) { message, _ in
                log.record(message, worker: 0)
                let fail = failuresLeft.withLock { left in
                    guard message.id == first, left > 0 else { return false }
                    left -= 1
                    return true
                }
                return fail ? .retry("HTTP 500", statusCode: 500, target: "http://merchant.test/hook") : .delivered(statusCode: 204)
            })
            #expect(try await worker.runOnce() == 1)        // the first fails; the second waits behind it
            #expect(try await worker.runOnce() == 0)        // not due again for 10 s
            let failed = try await pool.query("SELECT attempts, last_status_code, last_error, target FROM outbox WHERE uuid = \(first)")
                .single((Int32, Int32?, String?, String?).self)
            #expect(failed?.0 == 1)
            #expect(failed?.1 == 500)
            #expect(failed?.2 == "HTTP 500")
            #expect(failed?.3 == "http://merchant.test/hook")
            clock.advance(.seconds(11))
            #expect(try await worker.runOnce() == 1)        // fails again; next in 60 s
            clock.advance(.seconds(30))
            #expect(try await worker.runOnce() == 0)
            clock.advance(.seconds(31))
            #expect(try await worker.runOnce() == 1)        // delivered
            #expect(try await worker.runOnce() == 1)        // now the second
            #expect(log.deliveries.map(\.id) == [first, first, first, second])
            let states = try await pool.query("SELECT state, attempts, last_error, delivered_at IS NOT NULL FROM outbox ORDER BY id")
                .decode((String, Int32, String?, Bool).self)
            #expect(states.map(\.0) == ["DELIVERED", "DELIVERED"])
            #expect(states.map(\.1) == [3, 1])
            #expect(states[0].2 == nil)
            #expect(states.allSatisfy { $0.3 })
        }
    }

    @Test func aMessageIsGivenUpWhenRefusedOrPastTheHorizonAndTheNextGoesOn() async throws {
        try await Self.withPool { pool in
            let retried = OutboxObject.order(UUID()), refused = OutboxObject.order(UUID())
            let ids = try await pool.withTransaction { connection in
                [try await Outbox.enqueue(kind: .test, object: retried, payload: PostgresJSONB(text: #"{"fail":"retry"}"#), on: connection),
                 try await Outbox.enqueue(kind: .test, object: retried, payload: PostgresJSONB(text: #"{"fail":"no"}"#), on: connection),
                 try await Outbox.enqueue(kind: .test, object: refused, payload: PostgresJSONB(text: #"{"fail":"refuse"}"#), on: connection)]
            }
            let clock = TestClock()
            let worker = Self.worker(pool, clock: clock, handler: OutboxHandler(kind: .test) { message, _ in
                if message.payload.text.contains("retry") { return .retry("connection refused") }
                if message.payload.text.contains("refuse") { return .refused("HTTP 410", statusCode: 410) }
                return .delivered()
            }) { configuration in
                configuration.giveUpAfter = .seconds(3600)
                configuration.schedule = OutboxSchedule(delays: [.seconds(600)])
            }
            #expect(try await worker.runOnce() == 2)        // the first of `retried` (fails) and `refused` (given up)
            for _ in 0..<6 {
                clock.advance(.seconds(601))
                try await worker.runOnce()
            }
            #expect(try await worker.runOnce() == 1)        // the second of `retried`, now that the first is given up
            let rows = try await pool.query("SELECT uuid, state, attempts, last_error, given_up_at IS NOT NULL FROM outbox ORDER BY id")
                .decode((UUID, String, Int32, String?, Bool).self)
            #expect(rows.map(\.0) == ids)
            #expect(rows[0].1 == "GIVEN_UP")
            #expect(rows[0].2 == 7)                          // 0, 10, 20, ..., 60 min: the one at the horizon is the last
            #expect(rows[0].3 == "connection refused")
            #expect(rows[0].4)
            #expect(rows[1].1 == "DELIVERED")               // went on once the one before it was given up
            #expect(rows[2].1 == "GIVEN_UP")
            #expect(rows[2].2 == 1)
            #expect(rows[2].3 == "HTTP 410")
            // Asked again (OPS): PENDING, due now, with a fresh horizon.
            #expect(try await OutboxStore(pool: pool).redeliver(id: ids[2], kind: .test))
            #expect(try await OutboxStore(pool: pool).redeliver(id: UUID(), kind: .test) == false)
            #expect(try await pool.query("SELECT state FROM outbox WHERE uuid = \(ids[2])").single(String.self) == "PENDING")
        }
    }

    @Test func anAttemptPastItsDeadlineIsCutShortAndRetried() async throws {
        try await Self.withPool { pool in
            try await pool.withTransaction { connection in
                try await Outbox.enqueue(kind: .test, object: .order(UUID()), payload: PostgresJSONB(text: "{}"), on: connection)
            }
            let worker = Self.worker(pool, handler: OutboxHandler(kind: .test) { _, _ in
                try? await Task.sleep(for: .seconds(60))
                return .delivered()
            }) { configuration in configuration.attemptTimeout = .milliseconds(200) }
            let started = ContinuousClock.now
            #expect(try await worker.runOnce() == 1)
            #expect(ContinuousClock.now - started < .seconds(30))
            let row = try await pool.query("SELECT state, last_error FROM outbox").single((String, String?).self)
            #expect(row?.0 == "PENDING")
            #expect(row?.1?.hasPrefix("no answer within") == true)
        }
    }

    @Test func aWorkerClaimsOnlyTheKindsItHandles() async throws {
        try await Self.withPool { pool in
            try await pool.withTransaction { connection in
                try await Outbox.enqueue(kind: OutboxKind(rawValue: "someone.else"), object: .order(UUID()), payload: PostgresJSONB(text: "{}"),
                                         on: connection)
            }
            let worker = Self.worker(pool, handler: OutboxHandler(kind: .test) { _, _ in .delivered() })
            #expect(try await worker.runOnce() == 0)
            #expect(try await pool.query("SELECT attempts FROM outbox").single(Int32.self) == 0)
        }
    }

    // MARK: Support

    /// A fresh migrated database, its pool shut down afterwards.
    @Test func finishedMessagesPastTheRetentionArePurgedAndPendingOnesStay() async throws {
        try await Self.withPool { pool in
            // 1,500 old delivered messages (more than one batch), 3 old given up, 2 old pending, 4 recent delivered.
            let states = Array(repeating: "DELIVERED", count: 1500) + ["GIVEN_UP", "GIVEN_UP", "GIVEN_UP", "PENDING", "PENDING"]
            try await pool.withTransaction { connection in
                for _ in 0..<(states.count + 4) {
                    try await Outbox.enqueue(kind: .test, object: .order(UUID()), payload: PostgresJSONB(text: "{}"), on: connection)
                }
            }
            let ids = try await pool.query("SELECT id FROM outbox ORDER BY id").decode(Int64.self)
            for (id, state) in zip(ids, states) {
                let due: PostgresTimestamp? = state == "PENDING" ? Self.t0 : nil
                _ = try await pool.query("""
                    UPDATE outbox SET state = \(state), next_attempt_at = \(due), created_at = now() - interval '31 days' WHERE id = \(id)
                    """)
            }
            _ = try await pool.query("UPDATE outbox SET state = 'DELIVERED', next_attempt_at = NULL WHERE created_at > now() - interval '1 day'")
            let worker = Self.worker(pool, clock: TestClock(), handler: OutboxHandler(kind: .test) { _, _ in .delivered(statusCode: 200) }) {
                $0.now = { PostgresTimestamp(Date()) }
                $0.retention = .seconds(30 * 86_400)
            }
            #expect(try await worker.purgeOnce() == 1503)
            #expect(try await pool.query("SELECT state, count(*) FROM outbox GROUP BY state ORDER BY state").decode((String, Int64).self)
                .map { "\($0.0)=\($0.1)" } == ["DELIVERED=4", "PENDING=2"])
            #expect(try await worker.purgeOnce() == 0)
            // Without a retention nothing is deleted.
            let keeper = Self.worker(pool, handler: OutboxHandler(kind: .test) { _, _ in .delivered(statusCode: 200) }) { $0.retention = nil }
            _ = try await pool.query("UPDATE outbox SET created_at = now() - interval '400 days'")
            #expect(try await keeper.purgeOnce() == 0)
            #expect(try await Self.count(pool) == 6)
        }
    }

    static func withPool(_ body: (PostgresPool) async throws -> Void) async throws {
        let pool = try PostgresPool(url: try await GatewayCluster.freshDatabase().url)
        _ = try await Migrator(migrations: try Gateway.migrations()).migrate(using: pool)
        do {
            try await body(pool)
        } catch {
            pool.shutdown()
            throw error
        }
        pool.shutdown()
    }

    static func count(_ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM outbox").single(Int64.self) ?? -1
    }

    /// A worker with a fast schedule (10 s, then 60 s) on `clock`; not started unless the test does.
    static func worker(_ pool: PostgresPool, clock: TestClock = TestClock(), handler: OutboxHandler,
                       adjust: (inout OutboxConfiguration) -> Void = { _ in }) -> OutboxWorker {
        var configuration = OutboxConfiguration()
        configuration.now = { clock.now() }
        configuration.interval = .milliseconds(20)
        configuration.schedule = OutboxSchedule(delays: [.seconds(10), .seconds(60)])
        adjust(&configuration)
        return OutboxWorker(pool: pool, handlers: [handler], configuration: configuration)
    }

    static func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

extension OutboxKind {
    /// The kind these tests enqueue.
    static let test = OutboxKind(rawValue: "test.message")
}

/// Every attempt a handler saw (thread-safe).
final class DeliveryLog: Sendable {
    struct Delivery: Sendable {
        var id: UUID
        var sequence: Int64
        var object: UUID
        var worker: Int
    }

    private let entries = Mutex<[Delivery]>([])

    func record(_ message: OutboxMessage, worker: Int) {
        entries.withLock { $0.append(Delivery(id: message.id, sequence: message.sequence, object: message.object.id, worker: worker)) }
    }

    var deliveries: [Delivery] { entries.withLock { $0 } }
}
