@testable import Postgres
import Testing

/// The I/O executor's loops: where tasks that prefer it run, and which connections they use.
@Suite struct IOExecutorTests {
    /// Tasks on the I/O executor run on the I/O loops, each resumed by the loop that read its
    /// result, and keep to connections their own loop reads: with two loops and two pipelined
    /// connections, both loops carry tasks, and a task seldom moves from one to the other.
    @Test(.timeLimit(.minutes(1))) func ioExecutorTasksSpreadOverTheLoopsAndKeepToThem() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 4)
        defer { pool.shutdown() }
        let steps = 60
        let runs = try await withThrowingTaskGroup(of: [ObjectIdentifier].self) { group in
            for task in 0..<8 {
                group.addTask {
                    try await pool.withIOExecutor {
                        var loops: [ObjectIdentifier] = []
                        for step in 0..<steps {
                            let value = Int64(task * 1000 + step)
                            #expect(try await pool.query("SELECT \(value)").single(Int64.self) == value)
                            let current = try #require(PostgresIOExecutor.shared.currentLoop, "resumed on an I/O loop")
                            loops.append(ObjectIdentifier(current))
                        }
                        return loops
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let used = Set(runs.flatMap { $0 })
        #expect(used.count == min(PostgresIOExecutor.shared.loops.count, 2))
        // Moves from one loop to the other between consecutive statements (the first few spread the tasks).
        let moves = runs.reduce(0) { total, loops in total + zip(loops, loops.dropFirst()).count { $0 != $1 } }
        #expect(moves <= runs.count * steps / 4, "\(moves) moves in \(runs.count * steps) statements")
    }
}
