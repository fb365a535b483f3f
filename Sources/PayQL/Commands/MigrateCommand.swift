import Postgres

/// `payql migrate [--database-url URL] [--data-dir DIR] [--migrations DIR]`
///
/// Applies the pending `schema/migrations/NNNN_name.sql` files (see `Migrator`).
/// With no URL (`--database-url`, `PAYQL_DATABASE_URL` or `DATABASE_URL`), the
/// embedded cluster in `--data-dir` (`PAYQL_DATA_DIR`, default `.payql/postgres`)
/// is started for the run and stopped afterwards (`DatabaseSession`). Progress
/// goes to standard error; each applied file is printed on standard output.
enum MigrateCommand {
    static let usage = """
    usage: payql migrate [--database-url URL | --data-dir .payql/postgres] [--migrations schema/migrations]
    Applies the pending migrations. With no database URL (--database-url,
    PAYQL_DATABASE_URL or DATABASE_URL), the private PostgreSQL cluster in
    --data-dir is started for the run and stopped afterwards.
    """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments)
        if options.wantsHelp {
            print(usage)
            return 0
        }
        if let extra = options.positional.first { throw UsageError("unexpected argument '\(extra)'\n\(usage)") }
        let logger = PostgresLogger { level, message in
            if level >= .info { printError("payql migrate: \(message)") }
        }
        let session = try await DatabaseSession.open(options, logger: logger)
        let outcome: Result<[AppliedMigration], any Error>
        do {
            outcome = .success(try await session.migrate())
        } catch {
            outcome = .failure(error)
        }
        await session.close()

        let applied = try outcome.get()
        for migration in applied { print("applied \(migration.fileName)") }
        if applied.isEmpty { printError("payql migrate: the database is up to date") }
        return 0
    }
}
