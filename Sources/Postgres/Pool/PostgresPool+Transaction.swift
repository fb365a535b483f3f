/// A transaction's isolation level.
public enum PostgresIsolationLevel: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgresPool {
    /// Runs `body` inside a transaction on an exclusive connection: BEGIN before,
    /// COMMIT after; ROLLBACK when `body` (or COMMIT) throws, whatever the error.
    ///
    /// A serialization failure or deadlock (SQLSTATE 40001/40P01) reruns the
    /// whole transaction, up to `maxAttempts` runs in all, with a short jittered
    /// pause between runs; `body` must therefore be safe to run again. Other
    /// errors are rethrown at once.
    public func withTransaction<Result>(
        isolationLevel level: PostgresIsolationLevel = .readCommitted,
        maxAttempts: Int = 3,
        isolation actor: isolated (any Actor)? = #isolation,
        file: String = #fileID, line: Int = #line,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await withConnection(file: file, line: line) { connection in
                    try await connection.transaction(level, body)
                }
            } catch let error as PostgresError where error.isTransientTransactionFailure && attempt < maxAttempts {
                logger.log(.debug, "postgres: transaction attempt \(attempt) failed with \(error.code); retrying")
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
            }
        }
    }
}

extension PostgresConnection {
    /// BEGIN; `body`; COMMIT — or ROLLBACK when anything throws. Use on a connection
    /// held exclusively (`PostgresPool.withConnection`).
    public func transaction<Result>(
        _ level: PostgresIsolationLevel = .readCommitted,
        isolation actor: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        _ = try await query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(level.rawValue)"))
        do {
            let result = try await body(self)
            let commit = try await query("COMMIT")
            if commit.commandTag == "ROLLBACK" {
                // An error inside `body` was caught and ignored: PostgreSQL rolled back instead.
                throw PostgresError(.server, message: "the transaction failed earlier (an error was caught inside it) and was rolled back", sqlState: "25P02")
            }
            return result
        } catch {
            await rollback()
            throw error
        }
    }

    /// ROLLBACK even when the current task is cancelled (an unstructured task does not
    /// inherit cancellation); a failure here leaves the connection to be closed by the pool.
    private func rollback() async {
        guard !isClosed else { return }
        let connection = self
        _ = try? await Task { try await connection.query("ROLLBACK") }.value
    }
}
