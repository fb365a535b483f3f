import Foundation
@testable import Postgres
import Testing

/// The text forms PostgreSQL sends, decoded without a server (including forms the server rarely sends).
@Suite struct TextFormatTests {
    private func decode<Value: PostgresDecodable>(_ type: Value.Type, _ text: String, as dataType: PostgresDataType) throws -> Value {
        try Array(text.utf8).withUnsafeBytes { try Value.decode(text: $0, type: dataType) }
    }

    @Test func timestampsWithOffsetsAndFractions() throws {
        let utc = try decode(PostgresTimestamp.self, "2024-01-02 03:04:05+00", as: .timestamptz)
        #expect(utc.microsecondsSinceEpoch == 1_704_164_645_000_000)
        let india = try decode(PostgresTimestamp.self, "2024-01-02 08:34:05.25+05:30", as: .timestamptz)
        #expect(india.microsecondsSinceEpoch == utc.microsecondsSinceEpoch + 250_000)
        // More than six fractional digits are cut to microseconds; second offsets are honoured.
        let long = try decode(PostgresTimestamp.self, "1969-12-31 23:59:59.9999999-00:00:01", as: .timestamptz)
        #expect(long.microsecondsSinceEpoch == 1_000_000 - 1)
        #expect(PostgresTimestamp(microsecondsSinceEpoch: -1).description == "1969-12-31 23:59:59.999999+00")
        for bad in ["infinity", "2024-01-02", "2024-01-02 03:04:05+", "0044-03-15 12:00:00+00 BC", "2024-01-02 03:04:05.+00"] {
            #expect(throws: PostgresDecodingFailure.self, "\(bad)") { try decode(PostgresTimestamp.self, bad, as: .timestamptz) }
        }
        #expect(throws: PostgresDecodingFailure.self) { try decode(PostgresTimestamp.self, "2024-01-02 03:04:05+00", as: .date) }
    }

    @Test func arrayLiterals() throws {
        #expect(try decode([String].self, "{}", as: .textArray) == [])
        #expect(try decode([String].self, #"{a,"b c","d\"e","f\\g",""}"#, as: .textArray) == ["a", "b c", "d\"e", "f\\g", ""])
        #expect(try decode([Int64].self, "{1,-2,9223372036854775807}", as: .int8Array) == [1, -2, .max])
        #expect(try decode([String].self, "{x}", as: .varcharArray) == ["x"])
        for bad in ["", "{", "a,b", #"{"unterminated}"#, "{{1,2},{3,4}}"] {
            #expect(throws: PostgresDecodingFailure.self, "\(bad)") { try decode([String].self, bad, as: .textArray) }
        }
        #expect(throws: PostgresDecodingFailure.self) { try decode([Int64].self, "{1,x}", as: .int8Array) }
        var encoded: [UInt8] = []
        _ = ["a\"b", "c\\d", "NULL"].encode(into: &encoded)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"a\"b","c\\d","NULL"}"#)
    }

    @Test func integersRejectOverflowAndJunk() throws {
        #expect(try decode(Int16.self, "-32768", as: .int2) == .min)
        for bad in ["32768", "", "-", "1.5", " 1", "0x10"] {
            #expect(throws: PostgresDecodingFailure.self, "\(bad)") { try decode(Int16.self, bad, as: .int2) }
        }
        #expect(throws: PostgresDecodingFailure.self) { try decode(Int16.self, "1", as: .int4) }
        #expect(try decode(Int64.self, "-9223372036854775808", as: .int8) == .min)
    }

    @Test func byteaHexAndBooleans() throws {
        #expect(try decode(Data.self, "\\x00ff10", as: .bytea) == Data([0, 255, 16]))
        #expect(throws: PostgresDecodingFailure.self) { try decode(Data.self, "\\x0", as: .bytea) }
        #expect(throws: PostgresDecodingFailure.self) { try decode(Data.self, "\\000", as: .bytea) }
        #expect(try decode(Bool.self, "t", as: .bool))
        #expect(throws: PostgresDecodingFailure.self) { try decode(Bool.self, "true", as: .bool) }
    }

    @Test func transactionControlIsRecognised() {
        for sql in ["BEGIN", "begin;", "\n\tStart transaction", "COMMIT", "end", "ABORT", "savepoint x", "RELEASE x", "rollback to x"] {
            #expect(startsTransactionControl(sql), "\(sql)")
        }
        for sql in ["SELECT 'BEGIN'", "beginning", "INSERT INTO t VALUES (1)", "", "   ", "COMMITTED"] {
            #expect(!startsTransactionControl(sql), "\(sql)")
        }
    }
}
