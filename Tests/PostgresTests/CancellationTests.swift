import Postgres
import Testing

/// A task cancelled mid-statement gets control back at once and leaves a usable connection.
@Suite struct CancellationTests {
    @Test func cancelledStatementDoesNotPoisonTheConnection() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 1)
        defer { pool.shutdown() }
        let pid = try await pool.withConnection { $0.backendPID }
        for round in 0..<3 {
            let started = ContinuousClock.now
            let sleeper = Task {
                try await pool.withConnection { connection in try await connection.query("SELECT pg_sleep(10)") }
            }
            try await Task.sleep(for: .milliseconds(150))
            sleeper.cancel()
            let outcome = await sleeper.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(started.duration(to: .now) < .seconds(5))
            // Same session (not discarded), no leftover cancel, no open transaction.
            let (samePID, value) = try await pool.withConnection { connection in
                (connection.backendPID, try await connection.query("SELECT \(Int64(round))").single(Int64.self))
            }
            #expect(samePID == pid)
            #expect(value == Int64(round))
        }
        #expect(pool.statistics.open == 1)
    }

    @Test func lateCancelsNeverHitTheNextStatement() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 1)
        defer { pool.shutdown() }
        for index in 0..<40 {
            let quick = Task {
                try await pool.withConnection { connection in try await connection.query("SELECT pg_sleep(0.002)") }
            }
            try await Task.sleep(for: .microseconds(500 * (index % 6)))
            quick.cancel()
            _ = await quick.result
            // Whatever the race, the following statement must run normally.
            let value = try await pool.withConnection { try await $0.query("SELECT \(Int64(index))").single(Int64.self) }
            #expect(value == Int64(index))
        }
    }

    @Test func cancelledPipelinedStatementReturnsAtOnce() async throws {
        let (configuration, _) = try await TestDatabase.freshSchema()
        var poolConfiguration = PostgresPoolConfiguration(connection: configuration)
        poolConfiguration.maxConnections = 2
        poolConfiguration.pipelinedConnections = 1
        let pool = PostgresPool(configuration: poolConfiguration)
        defer { pool.shutdown() }
        // Alone on its connection: the server is asked to cancel it.
        let started = ContinuousClock.now
        let alone = Task { try await pool.query("SELECT pg_sleep(10)") }
        try await Task.sleep(for: .milliseconds(150))
        alone.cancel()
        await #expect(throws: CancellationError.self) { try await alone.value }
        #expect(started.duration(to: .now) < .seconds(5))
        // With a neighbour pipelined behind it: the cancelled task returns at once, the neighbour gets its own answer.
        // The statement takes 5 s; "at once" is anything clearly shorter (the bound leaves room for a busy machine).
        let slow = Task { try await pool.query("SELECT pg_sleep(5)") }
        try await Task.sleep(for: .milliseconds(50))
        let neighbour = Task { try await pool.query("SELECT \(Int64(7))").single(Int64.self) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = ContinuousClock.now
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(cancelledAt.duration(to: .now) < .seconds(2))
        #expect(try await neighbour.value == 7)
        #expect(try await pool.query("SELECT 8::int8").single(Int64.self) == 8)
        #expect(pool.statistics.open == 1)
    }

    @Test func alreadyCancelledTasksSendNothing() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE hits (v int)")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await pool.query("INSERT INTO hits VALUES (1)")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.query("SELECT count(*) FROM hits").single(Int64.self) == 0)
    }
}
