import Foundation
import Postgres
import Testing

/// Migrations against a real server: order, one transaction each, checksums, concurrency.
@Suite final class MigratorTests {
    /// The directories this test made; removed when the test ends (a new instance runs each test).
    private var created: [String] = []

    deinit {
        for path in created { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A temporary directory with the given files.
    private func directory(_ files: [String: String]) throws -> String {
        let path = NSTemporaryDirectory() + "payql-migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        created.append(path)
        for (name, sql) in files { try sql.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }

    private let ordered = [
        // Deliberately listed out of order: 0002 only works after 0001, 0010 after 0002.
        "0010_index.sql": "CREATE INDEX items_label_idx ON items (label);",
        "0001_items.sql": "CREATE TABLE items (id int8 PRIMARY KEY);\nINSERT INTO items VALUES (1);",
        "0002_label.sql": "ALTER TABLE items ADD COLUMN label text NOT NULL DEFAULT 'x';",
        "README.md": "not a migration",
    ]

    @Test func appliesInOrderOnceAndRecordsChecksums() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let path = try directory(ordered)
        let migrator = Migrator(directory: path)
        #expect(try migrator.loadMigrations().map(\.version) == [1, 2, 10])
        let applied = try await migrator.migrate(using: pool)
        #expect(applied.map(\.fileName) == ["0001_items.sql", "0002_label.sql", "0010_index.sql"])
        #expect(applied.allSatisfy { $0.checksum.count == 64 })
        // Running again applies nothing (0001 would fail if run twice).
        #expect(try await migrator.migrate(using: pool).isEmpty)
        let recorded = try await pool.query("SELECT version, name FROM payql_schema_migrations ORDER BY version").decode((Int64, String).self)
        #expect(recorded.map(\.0) == [1, 2, 10])
        #expect(recorded.map(\.1) == ["items", "label", "index"])
        #expect(try await pool.query("SELECT label FROM items").single(String.self) == "x")
    }

    @Test func anEditedAppliedMigrationIsAnError() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let path = try directory(ordered)
        try await Migrator(directory: path).migrate(using: pool)
        try "CREATE TABLE items (id int8 PRIMARY KEY); -- edited".write(toFile: path + "/0001_items.sql", atomically: true, encoding: .utf8)
        let error = await #expect(throws: PostgresError.self) { try await Migrator(directory: path).migrate(using: pool) }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message.contains("0001_items.sql") == true)
    }

    @Test func aFailingMigrationRollsBackAloneAndStops() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let path = try directory([
            "0001_ok.sql": "CREATE TABLE kept (v int);",
            "0002_broken.sql": "CREATE TABLE half (v int);\nINSERT INTO nowhere VALUES (1);",
            "0003_later.sql": "CREATE TABLE later (v int);",
        ])
        let error = await #expect(throws: PostgresError.self) { try await Migrator(directory: path).migrate(using: pool) }
        #expect(error?.sqlState == "42P01")
        #expect(error?.message.contains("0002_broken.sql") == true)
        let tables = try await pool.query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").decode(String.self)
        #expect(tables == ["kept", "payql_schema_migrations"])
        #expect(try await pool.query("SELECT count(*) FROM payql_schema_migrations").single(Int64.self) == 1)
        // The advisory lock was released: another run can proceed (and fails the same way).
        await #expect(throws: PostgresError.self) { try await Migrator(directory: path).migrate(using: pool) }
    }

    @Test func concurrentMigratorsApplyEachMigrationOnce() async throws {
        let (configuration, _) = try await TestDatabase.freshSchema()
        let path = try directory([
            "0001_slow.sql": "CREATE TABLE once (v int);\nSELECT pg_sleep(0.3);",
            "0002_more.sql": "CREATE TABLE twice_would_fail (v int);",
        ])
        let applied = try await withThrowingTaskGroup(of: [AppliedMigration].self) { group in
            for _ in 0..<3 {
                group.addTask {
                    // Separate pools: like separate PayQL instances starting together.
                    let pool = PostgresPool(configuration: PostgresPoolConfiguration(connection: configuration))
                    defer { pool.shutdown() }
                    return try await Migrator(directory: path).migrate(using: pool)
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.map(\.version).sorted() == [1, 2])
    }

    @Test func badFileNamesAreRefused() throws {
        for name in ["1_short.sql", "abcd_letters.sql", "0001.sql", "0001_.sql"] {
            let path = try directory([name: "SELECT 1;"])
            #expect(throws: PostgresError.self, "\(name)") { try Migrator(directory: path).loadMigrations() }
        }
        let duplicate = try directory(["0001_a.sql": "SELECT 1;", "01_b.sql": "SELECT 1;", "0001_c.sql": "SELECT 1;"])
        #expect(throws: PostgresError.self) { try Migrator(directory: duplicate).loadMigrations() }
        #expect(throws: PostgresError.self) { try Migrator(directory: "/nonexistent/payql").loadMigrations() }
    }

    @Test func theProjectMigrationsApplyAndHoldTheirConstraints() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let applied = try await Migrator(directory: repository.path + "/schema/migrations").migrate(using: pool)
        #expect(!applied.isEmpty)
        let tables = Set(try await pool.query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()").decode(String.self))
        for table in ["customers", "bank_accounts", "linked_accounts", "orders", "payments", "refunds", "idempotency_records", "webhook_events", "rewards"] {
            #expect(tables.contains(table), "\(table)")
        }
        // Webhook events are unique per provider and event id.
        let payload = PostgresJSONB(text: "{}")
        _ = try await pool.query("INSERT INTO webhook_events (provider, event_id, event_type, payload) VALUES ('razorpay', 'evt_1', 'payment.captured', \(payload))")
        let duplicate = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO webhook_events (provider, event_id, event_type, payload) VALUES ('razorpay', 'evt_1', 'payment.captured', \(payload))")
        }
        #expect(duplicate?.code == .uniqueViolation)
        // Amounts are positive minor units with an upper-case currency; statuses are checked.
        let bad = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO orders (provider, amount_minor, currency, receipt) VALUES ('razorpay', \(Int64(100)), 'inr', 'rcpt_1')")
        }
        #expect(bad?.code == .checkViolation)
        let status = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO orders (provider, amount_minor, currency, status, receipt) VALUES ('razorpay', 100, 'INR', 'SHIPPED', 'rcpt_2')")
        }
        #expect(status?.code == .checkViolation)
        // Every order has a receipt (the one reference sent to every provider), 3–40 of [A-Za-z0-9_-], unique.
        let noReceipt = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO orders (provider, amount_minor, currency) VALUES ('razorpay', 100, 'INR')")
        }
        #expect(noReceipt?.code == .notNullViolation)
        let badReceipt = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO orders (provider, amount_minor, currency, receipt) VALUES ('razorpay', 100, 'INR', 'a b')")
        }
        #expect(badReceipt?.code == .checkViolation)
        _ = try await pool.query("INSERT INTO orders (provider, amount_minor, currency, receipt) VALUES ('razorpay', 100, 'INR', 'rcpt_3')")
        let sameReceipt = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO orders (provider, amount_minor, currency, receipt) VALUES ('cashfree', 200, 'INR', 'rcpt_3')")
        }
        #expect(sameReceipt?.code == .uniqueViolation)
    }
}
