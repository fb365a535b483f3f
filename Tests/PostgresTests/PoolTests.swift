import Synchronization
import Postgres
import Testing

/// The pool against a real server: exhaustion, transactions, retries, timeouts, misuse.
@Suite struct PoolTests {
    @Test func exhaustionEndsInATimeoutError() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 1, acquireTimeout: .milliseconds(300))
        defer { pool.shutdown() }
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { _ in
                // The only connection is held: a second acquirer must give up after the timeout.
                try await pool.withConnection { _ in }
            }
        }
        #expect(error?.code == .timeout)
        #expect(started.duration(to: .now) >= .milliseconds(300))
        #expect(started.duration(to: .now) < .seconds(5))
        // The leased connection was returned: the pool works again.
        #expect(try await pool.query("SELECT 1::int4").single(Int32.self) == 1)
        #expect(pool.statistics.open == 1)
        #expect(pool.statistics.waiting == 0)
    }

    #if DEBUG
    @Test func longHeldLeasesAreReportedAsProbableLeaks() async throws {
        let (configuration, _) = try await TestDatabase.freshSchema()
        var poolConfiguration = PostgresPoolConfiguration(connection: configuration)
        poolConfiguration.maxConnections = 1
        poolConfiguration.acquireTimeout = .milliseconds(200)
        poolConfiguration.leakWarningAfter = .milliseconds(50)
        let pool = PostgresPool(configuration: poolConfiguration)
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { _ in
                try await Task.sleep(for: .milliseconds(100))
                try await pool.withConnection { _ in }
            }
        }
        #expect(error?.message.contains("PoolTests.swift") == true)
    }
    #endif

    @Test func waitersAreServedWhenConnectionsComeBack() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 2)
        defer { pool.shutdown() }
        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await pool.withConnection { connection in
                        try await connection.query("SELECT \(Int64(index)) FROM pg_sleep(0.005)").single(Int64.self) ?? -1
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == (0..<40).reduce(0, +))
        #expect(pool.statistics.open <= 2)
        #expect(pool.statistics.leased == 0)
    }

    /// Many tasks' statements pipelined together on few connections: each task gets its
    /// own rows and its own errors, and a failing statement never undoes a neighbour's
    /// (every statement has its own sync point, so its own implicit transaction).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func concurrentStatementsEachGetTheirOwnRowsAndErrors(onIOThread: Bool) async throws {
        let pool = try await TestDatabase.pool(maxConnections: 3)
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE entries (task int8, step int8, PRIMARY KEY (task, step))")
        let tasks = 48, steps = 30
        @Sendable func run(_ task: Int64) async throws -> (inserted: Int, failures: Int) {
            var inserted = 0, failures = 0
            for step in Int64(0)..<Int64(steps) {
                switch step % 3 {
                case 0:
                    // Division by zero on every 5th task's steps: an error for this task only.
                    let divisor = task % 5 == 0 ? Int64(0) : task + 1
                    do {
                        let value = try await pool.query("SELECT (\(task * 1000 + step)::int8 / \(divisor)::int8)::int8").single(Int64.self)
                        #expect(divisor != 0 && value == (task * 1000 + step) / divisor)
                    } catch let error as PostgresError {
                        #expect(divisor == 0 && error.sqlState == "22012", "\(error)")
                        failures += 1
                    }
                case 1:
                    _ = try await pool.query("INSERT INTO entries (task, step) VALUES (\(task), \(step))")
                    inserted += 1
                default:
                    let rows = try await pool.query("SELECT \(task)::int8, \(step)::int8, \("task \(task) step \(step)")::text")
                    let decoded = try rows.decode((Int64, Int64, String).self)
                    #expect(decoded.count == 1 && decoded.first?.0 == task && decoded.first?.1 == step && decoded.first?.2 == "task \(task) step \(step)")
                }
            }
            return (inserted, failures)
        }
        let (inserted, failures) = try await withThrowingTaskGroup(of: (inserted: Int, failures: Int).self) { group in
            for task in 0..<tasks {
                group.addTask { onIOThread ? try await pool.withIOExecutor { try await run(Int64(task)) } : try await run(Int64(task)) }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.inserted, $0.1 + $1.failures) }
        }
        #expect(failures == (0..<tasks).filter { $0 % 5 == 0 }.count * (steps / 3))
        // Every reported INSERT is there: no neighbour's failure rolled one back.
        #expect(try await pool.query("SELECT count(*)::int8 FROM entries").single(Int64.self) == Int64(inserted))
        #expect(inserted == tasks * steps / 3)
        #expect(pool.statistics.open <= 3 && pool.statistics.leased == 0 && pool.statistics.shared == 0)
    }

    @Test(.timeLimit(.minutes(1))) func tasksMayRunOnTheIOThread() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await withTaskExecutorPreference(pool.taskExecutor) {
                        try await pool.query("SELECT \(Int64(index))").single(Int64.self) ?? -1000
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == (0..<100).reduce(0, +))
        let value = try await withTaskExecutorPreference(pool.taskExecutor) {
            try await pool.withTransaction { try await $0.query("SELECT 5::int8").single(Int64.self) }
        }
        #expect(value == 5)
        let viaPool = try await pool.withIOExecutor { try await pool.query("SELECT 6::int8").single(Int64.self) }
        #expect(viaPool == 6)
    }

    /// A statement's command tag and affected-row count come from its result.
    @Test func commandsReportTheirTagAndAffectedRows() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        _ = try await pool.withConnection { try await $0.query("CREATE TABLE tagged (value int8)") }
        let insert = try await pool.query("INSERT INTO tagged SELECT generate_series(1, \(Int64(3)))")
        #expect(insert.commandTag == "INSERT 0 3")
        #expect(insert.affectedRows == 3)
        let update = try await pool.query("UPDATE tagged SET value = value + 1 WHERE value > \(Int64(1))")
        #expect(update.commandTag == "UPDATE 2" && update.affectedRows == 2)
        let select = try await pool.query("SELECT value FROM tagged")
        #expect(select.commandTag == "SELECT 3" && select.affectedRows == 3 && select.count == 3)
    }

    @Test func transactionsCommitOrRollBack() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE ledger (id int8 PRIMARY KEY, amount int8 NOT NULL)")
        try await pool.withTransaction { connection in
            _ = try await connection.query("INSERT INTO ledger VALUES (1, 100)")
        }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await pool.withTransaction { connection in
                _ = try await connection.query("INSERT INTO ledger VALUES (2, 200)")
                throw Refused()
            }
        }
        // A server error inside also rolls back everything before it.
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                _ = try await connection.query("INSERT INTO ledger VALUES (3, 300)")
                _ = try await connection.query("INSERT INTO ledger VALUES (1, 1)")
            }
        }
        // An error caught inside the closure still aborts the transaction: COMMIT must not pretend.
        let swallowed = await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                _ = try await connection.query("INSERT INTO ledger VALUES (4, 400)")
                _ = try? await connection.query("INSERT INTO ledger VALUES (1, 1)")
            }
        }
        #expect(swallowed?.sqlState == "25P02")
        #expect(try await pool.query("SELECT id FROM ledger ORDER BY id").decode(Int64.self) == [1])
    }

    @Test func serializationFailuresAreRetried() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 4)
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE counter (id int PRIMARY KEY, value int8 NOT NULL)")
        _ = try await pool.query("INSERT INTO counter VALUES (1, 0)")
        let attempts = AttemptCounter()
        // Two serializable read-modify-write transactions that overlap on purpose: one must fail
        // with 40001 at least once and be rerun; both increments must land.
        let gate = Gate(parties: 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await pool.withTransaction(isolationLevel: .serializable, maxAttempts: 5) { connection in
                        let attempt = attempts.next()
                        let value = try await connection.query("SELECT value FROM counter WHERE id = 1").single(Int64.self) ?? 0
                        if attempt <= 2 { await gate.arrive() }
                        _ = try await connection.query("UPDATE counter SET value = \(value + 1) WHERE id = 1")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await pool.query("SELECT value FROM counter").single(Int64.self) == 2)
        #expect(attempts.count >= 3)
    }

    @Test func retriesAreBounded() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let attempts = AttemptCounter()
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withTransaction(maxAttempts: 3) { connection in
                _ = attempts.next()
                _ = try await connection.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$")
            }
        }
        #expect(error?.code == .serializationFailure)
        #expect(attempts.count == 3)
    }

    @Test func statementTimeoutCancelsOnTheServer() async throws {
        var (configuration, _) = try await TestDatabase.freshSchema()
        configuration.statementTimeout = .milliseconds(100)
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connection: configuration))
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT pg_sleep(5)") }
        #expect(error?.code == .queryCanceled)
        #expect(try await pool.query("SELECT 2::int4").single(Int32.self) == 2)
    }

    @Test func sharedQueriesRefuseTransactionControl() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        for sql in ["BEGIN", "  begin isolation level serializable", "COMMIT", "rollback", "START TRANSACTION", "SAVEPOINT a"] {
            let error = await #expect(throws: PostgresError.self) { try await pool.query(PostgresQuery(unsafeSQL: sql)) }
            #expect(error?.code == .invalidInput, "\(sql)")
        }
    }

    @Test func aConnectionLeftInATransactionIsNotReused() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 1)
        defer { pool.shutdown() }
        let first = try await pool.withConnection { connection in
            _ = try await connection.query("BEGIN")
            return connection.backendPID
        }
        // A fresh session, outside the abandoned transaction.
        let (pid, inTransaction) = try await pool.withConnection { connection in
            (connection.backendPID, try await connection.query("SELECT pg_current_xact_id_if_assigned() IS NOT NULL").single(Bool.self))
        }
        #expect(pid != first)
        #expect(inTransaction == false)
        #expect(pool.statistics.open == 1)
    }

    @Test func shutdownFailsWaitersAndLaterCalls() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 1)
        try await pool.withConnection { _ in
            let waiter = Task { try await pool.withConnection { _ in } }
            try await Task.sleep(for: .milliseconds(50))
            pool.shutdown()
            let error = await #expect(throws: PostgresError.self) { try await waiter.value }
            #expect(error?.code == .poolClosed)
        }
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(error?.code == .poolClosed)
        #expect(pool.statistics.open == 0)
    }
}

/// Counts attempts across tasks.
final class AttemptCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

/// Lets `parties` tasks continue only once all of them have arrived (each at most once).
actor Gate {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(parties: Int) { self.parties = parties }
    func arrive() async {
        arrived += 1
        if arrived >= parties {
            waiting.forEach { $0.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
