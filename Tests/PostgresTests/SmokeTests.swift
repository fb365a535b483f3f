import Postgres
import Testing

@Suite struct SmokeTests {
    @Test func selectOne() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let rows = try await pool.query("SELECT \(Int64(41)) + 1 AS answer, \("hello") AS greeting")
        let (answer, greeting) = try #require(try rows.single((Int64, String).self))
        #expect(answer == 42)
        #expect(greeting == "hello")
    }
}
