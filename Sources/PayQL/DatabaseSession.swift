import Gateway
import Postgres

/// The database a `payql` command works against: the server named by a URL, or
/// the embedded private cluster started for the command's lifetime.
///
/// Options (each with its `PAYQL_*` fall-back; `DATABASE_URL` is also read):
/// `--database-url URL`, `--data-dir DIR` (embedded cluster, default
/// `.payql/postgres`), `--migrations DIR` (default: the migrations embedded in the binary).
struct DatabaseSession {
    /// The pool every caller shares; shut down by `close()`.
    let pool: PostgresPool
    /// The embedded cluster, when no database URL was given.
    let cluster: EmbeddedPostgres?
    /// Where the migrations are read from; nil: those embedded in the binary.
    let migrationsDirectory: String?
    /// Where progress is logged.
    let logger: PostgresLogger

    /// Connects to `--database-url`/`DATABASE_URL`, or starts the embedded cluster.
    static func open(_ options: Options, logger: PostgresLogger) async throws -> DatabaseSession {
        let migrations = options.string("migrations")
        if let url = options.string("database-url") ?? Environment.get("DATABASE_URL") {
            return DatabaseSession(pool: try PostgresPool(url: url, logger: logger), cluster: nil,
                                   migrationsDirectory: migrations, logger: logger)
        }
        var configuration = EmbeddedPostgresConfiguration()
        if let directory = options.string("data-dir") { configuration.dataDirectory = directory }
        let cluster = try await EmbeddedPostgres.start(configuration, logger: logger)
        do {
            let pool = try PostgresPool(url: cluster.connectionString(), logger: logger)
            return DatabaseSession(pool: pool, cluster: cluster, migrationsDirectory: migrations, logger: logger)
        } catch {
            try? await cluster.stop()
            throw error
        }
    }

    /// Applies the pending migrations; returns the ones applied now.
    func migrate() async throws -> [AppliedMigration] {
        if let migrationsDirectory {
            return try await Migrator(directory: migrationsDirectory, logger: logger).migrate(using: pool)
        }
        return try await Migrator(migrations: try Gateway.migrations(), logger: logger).migrate(using: pool)
    }

    /// `nil` when the database answers `SELECT 1`, else why not (no secrets: libpq's message only).
    func readinessProblem() async -> String? {
        do {
            _ = try await pool.query("SELECT 1")
            return nil
        } catch {
            return "database: \(error)"
        }
    }

    /// Closes the pool, then stops the embedded cluster unless another PayQL process still uses it.
    func close() async {
        pool.shutdown()
        if let cluster {
            do { try await cluster.stop() } catch { printError("payql: stopping the embedded PostgreSQL cluster failed: \(error)") }
        }
    }
}
