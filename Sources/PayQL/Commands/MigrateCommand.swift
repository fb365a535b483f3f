import Postgres

/// `payql migrate [--database-url URL] [--data-dir DIR] [--migrations DIR]`
///
/// Applies the pending `schema/migrations/NNNN_name.sql` files (see `Migrator`).
/// With no URL (`--database-url`, `PAYQL_DATABASE_URL` or `DATABASE_URL`), the
/// embedded cluster in `--data-dir` (`PAYQL_DATA_DIR`, default `.payql/postgres`)
/// is started for the run and stopped afterwards. Progress goes to standard
/// error; each applied file is printed on standard output.
enum MigrateCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments)
        if let extra = options.positional.first { throw UsageError("unexpected argument '\(extra)'") }
        let migrations = options.string("migrations") ?? "schema/migrations"
        let logger = PostgresLogger { level, message in
            if level >= .info { printError("payql migrate: \(message)") }
        }

        var cluster: EmbeddedPostgres?
        let url: String
        if let given = options.string("database-url") ?? Environment.get("DATABASE_URL") {
            url = given
        } else {
            var configuration = EmbeddedPostgresConfiguration()
            if let directory = options.string("data-dir") { configuration.dataDirectory = directory }
            let started = try await EmbeddedPostgres.start(configuration, logger: logger)
            cluster = started
            url = started.connectionString()
        }

        let outcome: Result<[AppliedMigration], any Error>
        do {
            let pool = try PostgresPool(url: url, logger: logger)
            do {
                outcome = .success(try await Migrator(directory: migrations, logger: logger).migrate(using: pool))
            } catch {
                outcome = .failure(error)
            }
            pool.shutdown()
        } catch {
            outcome = .failure(error)
        }
        if let cluster { try await cluster.stop() }

        let applied = try outcome.get()
        for migration in applied { print("applied \(migration.fileName)") }
        if applied.isEmpty { printError("payql migrate: the database is up to date") }
        return 0
    }
}
