import Foundation
@testable import Postgres
import Testing

/// Every supported Swift type goes to the server as a bind and comes back decoded, unchanged.
@Suite struct TypeRoundTripTests {
    /// Binds `value` as its own type, has the server cast it to `sqlType` and back, and decodes it.
    private func roundTrip<Value: PostgresEncodable & PostgresDecodable & Equatable>(
        _ pool: PostgresPool, _ value: Value, as sqlType: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var bindings = PostgresBindings()
        bindings.append(value)
        let rows = try await pool.query(PostgresQuery(unsafeSQL: "SELECT $1::\(sqlType)", bindings: bindings))
        let decoded = try #require(try rows.single(Value.self), sourceLocation: sourceLocation)
        #expect(decoded == value, "\(sqlType)", sourceLocation: sourceLocation)
    }

    @Test func integersAtTheirLimits() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        for value in [Int16.min, -1, 0, 1, .max] { try await roundTrip(pool, value, as: "int2") }
        for value in [Int32.min, -1, 0, 1, .max] { try await roundTrip(pool, value, as: "int4") }
        for value in [Int64.min, -1, 0, 1, .max] { try await roundTrip(pool, value, as: "int8") }
        for value in [Int.min, 0, .max] { try await roundTrip(pool, value, as: "int8") }
        // A narrower column widens into a wider Swift integer, never the other way.
        #expect(try await pool.query("SELECT 7::int2").single(Int64.self) == 7)
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT 7::int8").single(Int32.self) }
    }

    @Test func boolStringAndDouble() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        try await roundTrip(pool, true, as: "bool")
        try await roundTrip(pool, false, as: "bool")
        for text in ["", "plain", "ünïcödé ✓ 🇮🇳 ₹", String(repeating: "x", count: 100_000), "line\nbreak\ttab"] {
            try await roundTrip(pool, text, as: "text")
        }
        for value in [0.0, -0.5, 0.1, 1e-300, 1.7976931348623157e308, .pi, .infinity, -.infinity] {
            try await roundTrip(pool, value, as: "float8")
        }
        let nan = try #require(try await pool.query("SELECT \(Double.nan)::float8").single(Double.self))
        #expect(nan.isNaN)
    }

    @Test func numericIsExact() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        for text in ["0", "-12.340", "123456789012345678901234567890.123456789", "0.000000001", "NaN"] {
            try await roundTrip(pool, try #require(PostgresNumeric(text)), as: "numeric")
        }
        #expect(PostgresNumeric("1e5") == nil)
        #expect(PostgresNumeric("12.3.4") == nil)
        #expect(PostgresNumeric(minorUnits: 12345, scale: 2).text == "123.45")
        #expect(PostgresNumeric(minorUnits: -5, scale: 2).text == "-0.05")
        let sum = try await pool.query("SELECT \(PostgresNumeric(minorUnits: 10, scale: 2)) + 0.20").single(PostgresNumeric.self)
        #expect(sum?.text == "0.30")
    }

    @Test func timestampsDatesAndUUIDs() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        for micros: Int64 in [0, 1, -1, 1_700_000_000_123_456, -2_208_988_800_000_000, 253_402_300_799_999_999] {
            try await roundTrip(pool, PostgresTimestamp(microsecondsSinceEpoch: micros), as: "timestamptz")
        }
        // Text with an offset from the server decodes to the same instant.
        let offset = try await pool.query("SELECT '2024-03-01 10:00:00.5+05:30'::timestamptz::text::timestamptz").single(PostgresTimestamp.self)
        #expect(offset?.description == "2024-03-01 04:30:00.500000+00")
        for (year, month, day) in [(1, 1, 1), (1970, 1, 1), (2024, 2, 29), (9999, 12, 31)] {
            try await roundTrip(pool, try #require(PostgresDate(year: year, month: month, day: day)), as: "date")
        }
        #expect(PostgresDate(year: 2023, month: 2, day: 29) == nil)
        let uuid = UUID()
        try await roundTrip(pool, uuid, as: "uuid")
        let generated = try await pool.query("SELECT gen_random_uuid()").single(UUID.self)
        #expect(generated != nil)
        // The server's text and PayQL's own reading agree with Foundation's, byte for byte, both ways.
        for _ in 0..<200 {
            let sent = UUID()
            let text = try await pool.query("SELECT \(sent)::uuid::text").single(String.self)
            #expect(text == sent.uuidString.lowercased())
            #expect(try await pool.query("SELECT \(sent.uuidString)::uuid").single(UUID.self) == sent)
        }
        let edge = UUID(uuid: (0, 0xFF, 0x10, 0x0A, 0xA0, 0x0F, 0xF0, 0x01, 0x80, 0x7F, 0xFE, 0xEF, 0x12, 0x34, 0xAB, 0xCD))
        try await roundTrip(pool, edge, as: "uuid")
        for malformed in ["", "not-a-uuid", "00000000-0000-0000-0000-00000000000g", "000000000000-0000-0000-0000-00000000", "00000000-0000-0000-0000-0000000000000"] {
            let parsed = Array(malformed.utf8).withUnsafeBytes { UUID.parseCanonical($0) }
            #expect(parsed == nil, "\(malformed)")
        }
        #expect(Array("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11".utf8).withUnsafeBytes { UUID.parseCanonical($0) }
                == UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
    }

    @Test func jsonbByteaAndArrays() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let json = try await pool.query("SELECT \(PostgresJSONB(text: #"{"b": [1, 2], "a": "x\"y"}"#))").single(PostgresJSONB.self)
        #expect(json?.text == #"{"a": "x\"y", "b": [1, 2]}"#)
        try await roundTrip(pool, Data((0...255).map(UInt8.init)), as: "bytea")
        try await roundTrip(pool, Data(), as: "bytea")
        let texts = ["", "plain", "with space", "comma,inside", "quote\"inside", "back\\slash", "{braces}", "NULL", "ünï"]
        try await roundTrip(pool, texts, as: "text[]")
        try await roundTrip(pool, [String](), as: "text[]")
        try await roundTrip(pool, [Int64.min, 0, Int64.max], as: "int8[]")
        try await roundTrip(pool, [Int32(-1), 2], as: "int4[]")
        let length = try await pool.query("SELECT cardinality(\(texts))").single(Int32.self)
        #expect(length == Int32(texts.count))
        // Elements with quotes and backslashes at either end and in runs (a JSON payload's), each compared by the
        // server with the same text bound alone: the array's escaping, not only our own decoding of it.
        let escaped = [#"{"a":"x\"y","b\\":"\\"}"#, #""""#, #"\"#, #"\\\"#, #"ends with a quote""#, #""starts"#, "plain"]
        for (index, text) in escaped.enumerated() {
            let same = try await pool.query("SELECT (\(escaped)::text[])[\(Int32(index + 1))] = \(text)").single(Bool.self)
            #expect(same == true, "\(text)")
        }
        try await roundTrip(pool, escaped, as: "text[]")
    }

    @Test func nullsDecodeAsOptionals() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let none: Int64? = nil
        let rows = try await pool.query("SELECT \(none), \(Optional<String>.none)::text, NULL::uuid, NULL::bytea, 5::int8")
        let (a, b, c, d, e) = try #require(try rows.single((Int64?, String?, UUID?, Data?, Int64?).self))
        #expect(a == nil && b == nil && c == nil && d == nil && e == 5)
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT NULL::int8").single(Int64.self) }
        #expect(error?.code == .decodingFailed)
        // Optional elements bind and decode NULL (`[String?]` as a text[] with NULLs; a set-based insert's nullable columns).
        try await roundTrip(pool, ["a", nil, "NULL", ""] as [String?], as: "text[]")
        try await roundTrip(pool, [nil, Int64(7)] as [Int64?], as: "int8[]")
        #expect(try await pool.query("SELECT \(["x", nil] as [String?])::text[] IS NOT DISTINCT FROM ARRAY['x', NULL]").single(Bool.self) == true)
        // A NULL element cannot become a non-optional String.
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT ARRAY['a', NULL]::text[]").single([String].self) }
    }

    @Test func decodingByNameAndMismatches() async throws {
        let pool = try await TestDatabase.pool()
        defer { pool.shutdown() }
        let rows = try await pool.query("SELECT 1::int4 AS one, 'two' AS two")
        let row = try #require(rows.first)
        #expect(try row.decode(String.self, column: "two") == "two")
        #expect(try row.decode(Int32.self, column: "one") == 1)
        #expect(rows.columns == ["one", "two"])
        let mismatch = #expect(throws: PostgresError.self) { try row.decode(Bool.self, column: "one") }
        #expect(mismatch?.code == .decodingFailed)
        #expect(mismatch?.message.contains("one") == true)
        #expect(throws: PostgresError.self) { try row.decode(Int32.self, column: "missing") }
        #expect(throws: PostgresError.self) { try row.decode(Int32.self, at: 9) }
    }
}
