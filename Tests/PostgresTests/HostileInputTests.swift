import Foundation
import Postgres
import Testing

/// Whatever a value contains, it travels as data and never becomes SQL.
@Suite struct HostileInputTests {
    static let hostile = [
        "O'Brien", "'; DROP TABLE notes; --", "\"; DROP TABLE notes; --", "$1", "\\", "' OR '1'='1",
        "Robert'); DROP TABLE notes;--", "E'\\x00'", "😀'\"`",
    ]

    @Test func hostileStringsAreStoredVerbatim() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        _ = try await pool.query("CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)")
        for text in Self.hostile {
            _ = try await pool.query("INSERT INTO notes (body) VALUES (\(text))")
        }
        let stored = try await pool.query("SELECT body FROM notes ORDER BY id").decode(String.self)
        #expect(stored == Self.hostile)
        for text in Self.hostile {
            let count = try await pool.query("SELECT count(*) FROM notes WHERE body = \(text)").single(Int64.self)
            #expect(count == 1, "\(text)")
        }
        // The table survived every attempt.
        #expect(try await pool.query("SELECT count(*) FROM notes").single(Int64.self) == Int64(Self.hostile.count))
    }

    @Test func nulByteIsRefusedBeforeSending() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT \("a\u{0}b")") }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("NUL") == true)
        // Bytes with NUL are fine as bytea.
        let bytes = Data([0, 39, 59, 0, 255])
        #expect(try await pool.query("SELECT \(bytes)").single(Data.self) == bytes)
        #expect(try await pool.query("SELECT 1::int4").single(Int32.self) == 1)
    }

    @Test func invalidUTF8StaysData() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let invalid = Data([0x27, 0xff, 0xfe, 0x3b, 0xc3, 0x28])
        // Invalid UTF-8 travels as bytea untouched ...
        #expect(try await pool.query("SELECT \(invalid)").single(Data.self) == invalid)
        // ... and is refused by the server as text with a typed error, not executed.
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT convert_from(\(invalid), 'UTF8')") }
        #expect(error?.sqlState == "22021")
        // A Swift String cannot hold invalid UTF-8: decoding repairs it to U+FFFD, which round-trips.
        let repaired = String(decoding: [0x61, 0xff, 0x62], as: UTF8.self)
        #expect(try await pool.query("SELECT \(repaired)::text").single(String.self) == "a\u{FFFD}b")
    }

    @Test func identifiersAreQuoted() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let name = "we\"ird; DROP TABLE x"
        _ = try await pool.query("CREATE TABLE \(identifier: name) (v int)")
        _ = try await pool.query("INSERT INTO \(identifier: name) VALUES (1)")
        #expect(try await pool.query("SELECT count(*) FROM \(identifier: name)").single(Int64.self) == 1)
    }

    @Test func descriptionsHideBoundValues() async throws {
        let secret = "4111 1111 1111 1111"
        let query: PostgresQuery = "SELECT * FROM cards WHERE number = \(secret) AND cvv = \(Int64(123))"
        #expect(query.description == "SELECT * FROM cards WHERE number = $1 AND cvv = $2 [****, ****]")
        #expect(!query.description.contains("4111"))
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) {
            try await pool.query("SELECT * FROM missing_table WHERE number = \(secret)")
        }
        #expect(error?.sqlState == "42P01")
        #expect(error.map { "\($0)".contains("4111") } == false)
        #expect(error?.query?.contains("****") == true)
    }
}
