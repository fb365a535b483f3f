import Postgres
import Testing

/// `pg_ctl restart` under a live pool: statements in flight fail typed, then the pool reconnects
/// and no connection is leaked. Runs on a cluster of its own so other tests are not disturbed.
@Suite struct RestartTests {
    @Test func poolRecoversAfterServerRestart() async throws {
        let cluster = try await TestDatabase.startCluster(name: "restart")
        var configuration = try cluster.postgresConfiguration()
        configuration.applicationName = "payql-restart-test"
        var poolConfiguration = PostgresPoolConfiguration(connection: configuration)
        poolConfiguration.maxConnections = 4
        let pool = PostgresPool(configuration: poolConfiguration)
        defer { pool.shutdown() }

        // Warm up: pipelined and exclusive connections open.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index % 2 == 0 {
                        _ = try await pool.query("SELECT \(Int64(index))")
                    } else {
                        _ = try await pool.withConnection { try await $0.query("SELECT pg_sleep(0.01)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(pool.statistics.open >= 2)

        // A statement in flight during the restart fails as a connection failure, not a hang.
        let inFlight = Task { try await pool.withConnection { try await $0.query("SELECT pg_sleep(30)") } }
        try await Task.sleep(for: .milliseconds(200))
        try await cluster.restart()
        let error = await #expect(throws: PostgresError.self) { try await inFlight.value }
        #expect(error?.code == .connectionFailure)

        // The pool recovers: every call succeeds on new connections.
        for index in 0..<10 {
            #expect(try await pool.query("SELECT \(Int64(index))").single(Int64.self) == Int64(index))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask { _ = try await pool.withTransaction { try await $0.query("SELECT 1") } }
            }
            try await group.waitForAll()
        }

        // No leaks: the server sees exactly the pool's connections, within the limit.
        let statistics = pool.statistics
        #expect(statistics.open <= 4)
        #expect(statistics.leased == 0 && statistics.shared == 0 && statistics.waiting == 0)
        let serverSide = try await pool.query(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'payql-restart-test'"
        ).single(Int64.self)
        #expect(serverSide == Int64(pool.statistics.open))
        pool.shutdown()
        try await cluster.stop()
    }
}
