import Postgres
import Testing

/// Server errors arrive typed, with their SQLSTATE, and never spoil the connection or a neighbour's statement.
@Suite struct ErrorTests {
    @Test func uniqueViolationIsTyped() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE customers (id int8 PRIMARY KEY, email text UNIQUE)")
        _ = try await pool.query("INSERT INTO customers VALUES (\(Int64(1)), \("a@example.com"))")
        let error = await #expect(throws: PostgresError.self) {
            try await pool.query("INSERT INTO customers VALUES (\(Int64(2)), \("a@example.com"))")
        }
        #expect(error?.code == .uniqueViolation)
        #expect(error?.sqlState == "23505")
        #expect(error?.constraint == "customers_email_key")
        #expect(try await pool.query("SELECT count(*) FROM customers").single(Int64.self) == 1)
    }

    @Test func otherErrorsKeepTheirSQLState() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let syntax = await #expect(throws: PostgresError.self) { try await pool.query("SELEC 1") }
        #expect(syntax?.code == .server)
        #expect(syntax?.sqlState == "42601")
        let division = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1 / \(Int64(0))") }
        #expect(division?.sqlState == "22012")
        let check = await #expect(throws: PostgresError.self) {
            try await pool.query("CREATE TEMP TABLE c (v int CHECK (v > 0)); INSERT INTO c VALUES (-1)")
        }
        // Several statements in one extended-protocol query are refused by the server.
        #expect(check?.sqlState == "42601")
        // The same statement fails the same way twice (a failed prepare is not cached).
        for _ in 0..<2 {
            let again = await #expect(throws: PostgresError.self) { try await pool.query("SELECT nope FROM nowhere") }
            #expect(again?.sqlState == "42P01")
        }
    }

    @Test func pipelinedFailuresStayWithTheirStatement() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 2)
        defer { pool.shutdown() }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        let divisor = Int64(index % 5 == 0 ? 0 : 1)
                        let value = try await pool.query("SELECT \(Int64(index)) / \(divisor)").single(Int64.self)
                        return (index, value == Int64(index))
                    } catch let error as PostgresError where error.sqlState == "22012" {
                        return (index, index % 5 == 0)
                    }
                }
            }
            var results: [Int: Bool] = [:]
            for try await (index, correct) in group { results[index] = correct }
            return results
        }
        #expect(outcomes.count == 200)
        #expect(outcomes.values.allSatisfy { $0 })
        #expect(pool.statistics.open <= 2)
    }

    @Test func badConnectionStringsAndUnreachableServers() async throws {
        let bad = #expect(throws: PostgresError.self) { try PostgresConfiguration(connectionString: "host=x nonsense=1") }
        #expect(bad?.code == .invalidInput)
        let configuration = try PostgresConfiguration(connectionString: "host=/nonexistent-payql-socket-dir port=1 user=u dbname=d password=hunter2")
        #expect(!configuration.description.contains("hunter2"))
        let error = await #expect(throws: PostgresError.self) { try await PostgresConnection.connect(configuration: configuration) }
        #expect(error?.code == .connectionFailure)
        #expect(error.map { "\($0)".contains("hunter2") } == false)
    }
}
