import Foundation

/// One migration file: `NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    /// The number prefix; migrations apply in ascending order.
    public var version: Int64
    /// The part after the number (`core_tables`).
    public var name: String
    /// The file's name.
    public var fileName: String
    /// The SQL, run as one script through the simple query protocol.
    public var sql: String

    /// A migration from its file name (`NNNN_name.sql`) and SQL; nil for a name not of that form.
    public init?(fileName: String, sql: String) {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_"),
              stem[..<underscore].count >= 4, stem[..<underscore].allSatisfy(\.isASCII), stem[..<underscore].allSatisfy(\.isNumber),
              let version = Int64(stem[..<underscore]), stem.index(after: underscore) < stem.endIndex else { return nil }
        self.version = version
        self.name = String(stem[stem.index(after: underscore)...])
        self.fileName = fileName
        self.sql = sql
    }
}

/// What `Migrator.migrate` did with one migration.
public struct AppliedMigration: Sendable, Equatable {
    /// The migration's version.
    public var version: Int64
    /// The file's name.
    public var fileName: String
    /// SHA-256 of the file, hex.
    public var checksum: String
}

/// Applies `schema/migrations/NNNN_name.sql` files, forward only.
///
/// Under a session advisory lock (two PayQL instances starting together take
/// turns), each pending migration runs in its own transaction together with
/// its row in `payql_schema_migrations` (version, name, SHA-256 checksum,
/// time). An applied migration whose file has changed since is an error
/// (`.checksumMismatch`), never a silent skip. A migration must not contain
/// its own BEGIN/COMMIT, nor statements that cannot run in a transaction
/// (`CREATE INDEX CONCURRENTLY`).
public struct Migrator: Sendable {
    /// The directory holding the `.sql` files (a description when the migrations were given in code).
    public var directory: String
    /// Migrations given in code (embedded in the binary) instead of read from `directory`.
    private var embedded: [Migration]?
    /// The table recording applied migrations (created if missing, in the first schema of `search_path`).
    public var tableName = "payql_schema_migrations"
    /// The `pg_advisory_lock` key shared by every PayQL instance.
    public var lockKey = Int64(bitPattern: fnv1aValue("payql.schema_migrations"))
    private let logger: PostgresLogger

    /// A migrator for the files in `directory`.
    public init(directory: String, logger: PostgresLogger = .disabled) {
        self.directory = directory
        self.logger = logger
    }

    /// A migrator for migrations carried in the binary (`source` names them in log lines).
    public init(migrations: [Migration], source: String = "the embedded migrations", logger: PostgresLogger = .disabled) {
        self.directory = source
        self.embedded = migrations
        self.logger = logger
    }

    /// Reads and orders the migration files. Throws `.migrationFailed` for a missing
    /// directory, a `.sql` file not named `NNNN_name.sql`, or two files with one version.
    public func loadMigrations() throws -> [Migration] {
        if let embedded {
            for (index, migration) in embedded.enumerated() where embedded[..<index].contains(where: { $0.version == migration.version }) {
                throw PostgresError(.migrationFailed, message: "two embedded migrations have the version \(migration.version)")
            }
            return embedded.sorted { $0.version < $1.version }
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw PostgresError(.migrationFailed, message: "cannot read the migrations directory \(directory): \(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            guard Migration(fileName: fileName, sql: "") != nil else {
                throw PostgresError(.migrationFailed, message: "migration file '\(fileName)' is not named NNNN_name.sql")
            }
            guard let data = FileManager.default.contents(atPath: directory + "/" + fileName),
                  let sql = String(data: data, encoding: .utf8)
            else {
                throw PostgresError(.migrationFailed, message: "cannot read migration \(fileName) as UTF-8")
            }
            guard let migration = Migration(fileName: fileName, sql: sql) else { continue }   // the name was checked above
            if let other = migrations.first(where: { $0.version == migration.version }) {
                throw PostgresError(.migrationFailed, message: "migrations \(other.fileName) and \(fileName) have the same version \(migration.version)")
            }
            migrations.append(migration)
        }
        return migrations.sorted { $0.version < $1.version }
    }

    /// Applies every pending migration, in order; returns those applied now.
    /// Throws `.checksumMismatch` if an applied file changed, or the failing
    /// migration's error (its transaction rolled back; earlier ones stay).
    @discardableResult
    public func migrate(using pool: PostgresPool) async throws -> [AppliedMigration] {
        let migrations = try loadMigrations()
        return try await pool.withConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))")
            do {
                let applied = try await apply(migrations, on: connection)
                _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))")
                return applied
            } catch {
                if !connection.isClosed {
                    let unlock = connection
                    let key = lockKey
                    _ = try? await Task { try await unlock.query("SELECT pg_advisory_unlock(\(key))") }.value
                }
                throw error
            }
        }
    }

    private func apply(_ migrations: [Migration], on connection: PostgresConnection) async throws -> [AppliedMigration] {
        _ = try await connection.query("""
            CREATE TABLE IF NOT EXISTS \(identifier: tableName) (
                version bigint PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        var recorded: [Int64: (name: String, checksum: String)] = [:]
        for (version, name, checksum) in try await connection.query("SELECT version, name, checksum FROM \(identifier: tableName)").decode((Int64, String, String).self) {
            recorded[version] = (name, checksum)
        }
        let known = Set(migrations.map(\.version))
        for version in recorded.keys.sorted() where !known.contains(version) {
            logger.log(.warning, "migrations: the database has migration \(version) (\(recorded[version]?.name ?? "")), which \(directory) does not contain")
        }
        var applied: [AppliedMigration] = []
        for migration in migrations {
            let checksum = try await connection.query("SELECT encode(sha256(\(Data(migration.sql.utf8))), 'hex')").single(String.self) ?? ""
            if let existing = recorded[migration.version] {
                guard existing.checksum == checksum else {
                    throw PostgresError(.checksumMismatch, message: "migration \(migration.fileName) was edited after it was applied (applied \(existing.checksum.prefix(12)), file \(checksum.prefix(12))); add a new migration instead")
                }
                continue
            }
            logger.log(.info, "migrations: applying \(migration.fileName)")
            do {
                try await connection.transaction { connection in
                    _ = try await connection.simpleQuery(PostgresQuery(unsafeSQL: migration.sql))
                    _ = try await connection.query("INSERT INTO \(identifier: tableName) (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(checksum))")
                }
            } catch var error as PostgresError {
                error.message = "migration \(migration.fileName) failed: \(error.message)"
                throw error
            }
            applied.append(AppliedMigration(version: migration.version, fileName: migration.fileName, checksum: checksum))
        }
        return applied
    }
}
