@testable import Postgres
import Testing

/// Statements that tasks on the I/O thread send in the same turn share one sync point;
/// a group that fails is taken apart so that no task sees an outcome it would not
/// have had alone.
@Suite struct PipelineGroupTests {
    /// A connection on a fresh schema, with `sql` run once so its statements are prepared
    /// (a statement that must be prepared opens a group of its own).
    /// A pool on a fresh schema whose `pool.query` statements all share one pipelined
    /// connection (so that its counters see every statement).
    private func onePipelinedConnectionPool() async throws -> PostgresPool {
        let (configuration, _) = try await TestDatabase.freshSchema("grp")
        var poolConfiguration = PostgresPoolConfiguration(connection: configuration)
        poolConfiguration.pipelinedConnections = 1
        return PostgresPool(configuration: poolConfiguration)
    }

    private func connection(setUp sql: [PostgresQuery], warm: [PostgresQuery]) async throws -> PostgresConnection {
        let (configuration, _) = try await TestDatabase.freshSchema("grp")
        let connection = try await PostgresConnection.connect(configuration: configuration)
        for statement in sql { _ = try await connection.simpleQuery(statement) }
        for statement in warm { _ = try? await connection.pipelinedQuery(statement) }
        return connection
    }

    private static func insert(_ value: Int64) -> PostgresQuery { "INSERT INTO items (value) VALUES (\(value))" }

    /// Runs `statement` and names its outcome: "ok" or the SQLSTATE.
    private static func outcome(_ connection: PostgresConnection, _ statement: PostgresQuery) async -> String {
        do {
            _ = try await connection.pipelinedQuery(statement)
            return "ok"
        } catch let error as PostgresError {
            return error.sqlState ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    /// Three statements started in one turn of the I/O thread: they leave under one sync
    /// point. The middle one fails: the group rolls back, the first (rolled back) and the
    /// third (skipped) are replayed alone and succeed; the failing one is replayed alone
    /// too (an earlier statement ran before it in the group) and fails on its own.
    @Test(.timeLimit(.minutes(1))) func aFailingStatementInAGroupUndoesNoNeighbour() async throws {
        let divide: PostgresQuery = "SELECT (1::int8 / \(Int64(0)))::int8"
        let connection = try await connection(setUp: ["CREATE TABLE items (value int8 PRIMARY KEY)"], warm: [Self.insert(-1), divide])
        defer { connection.close() }
        let before = connection.pipelineCounters
        let outcomes = await withTaskExecutorPreference(PostgresIOExecutor.shared) {
            async let first = Self.outcome(connection, Self.insert(1))
            async let second = Self.outcome(connection, divide)
            async let third = Self.outcome(connection, Self.insert(3))
            return await [first, second, third]
        }
        #expect(outcomes == ["ok", "22012", "ok"])
        let after = connection.pipelineCounters
        #expect(after.statements - before.statements == 6, "3 in the group, then 3 replayed alone")
        #expect(after.syncs - before.syncs == 4, "one sync for the group, one per replay")
        #expect(after.replays - before.replays == 3)
        let values = try await connection.query("SELECT value FROM items ORDER BY value").decode(Int64.self)
        #expect(values == [-1, 1, 3])
    }

    /// A statement that fails first in its group ran exactly as it would have alone: its
    /// error is reported without running it again; only its skipped neighbours are replayed.
    @Test(.timeLimit(.minutes(1))) func anErrorFirstInItsGroupIsNotRunTwice() async throws {
        let connection = try await connection(setUp: ["CREATE TABLE items (value int8 PRIMARY KEY)"], warm: [Self.insert(1)])
        defer { connection.close() }
        let before = connection.pipelineCounters
        let outcomes = await withTaskExecutorPreference(PostgresIOExecutor.shared) {
            async let duplicate = Self.outcome(connection, Self.insert(1))
            async let fresh = Self.outcome(connection, Self.insert(2))
            async let another = Self.outcome(connection, Self.insert(3))
            return await [duplicate, fresh, another]
        }
        #expect(outcomes == ["23505", "ok", "ok"])
        let after = connection.pipelineCounters
        #expect(after.statements - before.statements == 5 && after.replays - before.replays == 2)
        #expect(try await connection.query("SELECT count(*)::int8 FROM items").single(Int64.self) == 3)
    }

    /// A group whose commit fails (a deferred unique constraint) cannot say which statement
    /// caused it: every statement is replayed alone, and only the real culprit fails.
    @Test(.timeLimit(.minutes(1))) func aFailedCommitReplaysTheWholeGroup() async throws {
        let connection = try await connection(
            setUp: ["CREATE TABLE items (value int8, CONSTRAINT items_value UNIQUE (value) DEFERRABLE INITIALLY DEFERRED)"],
            warm: [Self.insert(0)]
        )
        defer { connection.close() }
        let before = connection.pipelineCounters
        let outcomes = await withTaskExecutorPreference(PostgresIOExecutor.shared) {
            async let first = Self.outcome(connection, Self.insert(7))
            async let second = Self.outcome(connection, Self.insert(7))
            async let third = Self.outcome(connection, Self.insert(8))
            return await [first, second, third]
        }
        #expect(outcomes == ["ok", "23505", "ok"])
        #expect(connection.pipelineCounters.replays - before.replays == 3)
        let values = try await connection.query("SELECT value FROM items ORDER BY value").decode(Int64.self)
        #expect(values == [0, 7, 8])
    }

    /// A statement that is not prepared yet opens a new group, so a neighbour's failure can
    /// never skip its prepare; its first use still succeeds next to a failing statement.
    @Test(.timeLimit(.minutes(1))) func aNewStatementIsPreparedOutsideOthersGroups() async throws {
        let divide: PostgresQuery = "SELECT (1::int8 / \(Int64(0)))::int8"
        let connection = try await connection(setUp: [], warm: [divide])
        defer { connection.close() }
        let outcomes = await withTaskExecutorPreference(PostgresIOExecutor.shared) {
            async let failing = Self.outcome(connection, divide)
            async let fresh = Self.outcome(connection, "SELECT \(Int64(41)) + 1")
            return await [failing, fresh]
        }
        #expect(outcomes == ["22012", "ok"])
        // Prepared, and usable afterwards.
        #expect(try await connection.pipelinedQuery("SELECT \(Int64(1)) + 1").single(Int64.self) == 2)
    }

    /// Only plain data statements share sync points; utility and DDL statements never do.
    @Test func groupableStatementsAreRecognised() {
        for sql in ["SELECT 1", "  select 1", "(SELECT 1)", "INSERT INTO t VALUES (1)", "update t set a = 1", "DELETE FROM t",
                    "WITH x AS (SELECT 1) SELECT * FROM x", "VALUES (1)", "TABLE t", "\nSelect\t1"] {
            #expect(startsGroupableStatement(sql), "\(sql)")
        }
        for sql in ["VACUUM t", "CREATE TABLE t (a int)", "SET search_path = x", "BEGIN", "selects", "SELECTED 1", "", "  ",
                    "CREATE INDEX CONCURRENTLY i ON t (a)", "LOCK t", "NOTIFY c", "DROP TABLE t"] {
            #expect(!startsGroupableStatement(sql), "\(sql)")
        }
    }

    /// Tasks on the cooperative pool gather: with other statements in flight, the first to
    /// send yields once and sends the statements queued meanwhile with its own.
    @Test(.timeLimit(.minutes(1))) func poolStatementsFromOtherExecutorsGatherUnderSharedSyncPoints() async throws {
        let pool = try await onePipelinedConnectionPool()
        defer { pool.shutdown() }
        let connection = try await pool.withConnection { $0 }
        _ = try await pool.query("CREATE TABLE items (task int8, step int8)")
        let before = connection.pipelineCounters
        let tasks = 32, steps = 5
        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var sum: Int64 = 0
                    for step in 0..<steps {
                        if step == 2 {
                            _ = try await pool.query("INSERT INTO items VALUES (\(Int64(task)), \(Int64(step)))")
                        } else {
                            sum += try await pool.query("SELECT \(Int64(task))::int8").single(Int64.self) ?? -1000
                        }
                    }
                    return sum
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == Int64(steps - 1) * (0..<Int64(tasks)).reduce(0, +))
        #expect(try await pool.query("SELECT count(*)::int8 FROM items").single(Int64.self) == Int64(tasks))
        let after = connection.pipelineCounters
        #expect(after.statements - before.statements == tasks * steps + 1, "the count above included")
        #expect(after.syncs - before.syncs < tasks * steps)
    }

    /// Through the pool, tasks on the I/O thread do share sync points (fewer syncs than statements).
    @Test(.timeLimit(.minutes(1))) func poolStatementsFromTheIOThreadShareSyncPoints() async throws {
        let pool = try await onePipelinedConnectionPool()
        defer { pool.shutdown() }
        let connection = try await pool.withConnection { $0 }
        let before = connection.pipelineCounters
        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<32 {
                group.addTask { try await pool.withIOExecutor { try await pool.query("SELECT \(Int64(index))::int8").single(Int64.self) ?? -1000 } }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == (0..<32).reduce(0, +))
        let after = connection.pipelineCounters
        #expect(after.statements - before.statements == 32)
        #expect(after.syncs - before.syncs < 32)
    }
}
