import Foundation
import Testing
@testable import GraphQL

/// String and block string printing against graphql-js 16.6's own functions
/// (`printString`, `printBlockString`), outputs stored in
/// `Fixtures/language/printer-strings.json`.
@Suite struct PrinterStringTests {
    private static func entries(_ key: String) throws -> [[String]] {
        let data = try Data(contentsOf: LanguageFixtures.directory.appendingPathComponent("printer-strings.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object[key] as? [[String]])
    }

    private static func pairs(_ key: String) throws -> [(String, String)] {
        try entries(key).compactMap { $0.count >= 2 ? ($0[0], $0[1]) : nil }
    }

    @Test func blockStringsPrintAsGraphQLJS() throws {
        let cases = try Self.pairs("blockStrings")
        #expect(cases.count >= 15)
        for (value, expected) in cases {
            #expect(BlockString.print(value) == expected, "value: \(value.debugDescription)")
        }
    }

    @Test func stringsPrintAsGraphQLJS() throws {
        let cases = try Self.pairs("strings")
        #expect(cases.count >= 4)
        for (value, expected) in cases {
            #expect(Printer.printString(value) == expected, "value: \(value.debugDescription)")
        }
    }

    /// Where graphql-js's printed block string reads back as the same value, ours does too.
    @Test func blockStringsRoundTripWhereGraphQLJSDoes() throws {
        let roundTripping = try Self.entries("blockStrings").filter { $0.count == 3 && $0[2] == "true" }
        #expect(roundTripping.count >= 10)
        for entry in roundTripping {
            guard case .string(let string) = try Parser.parseValue(BlockString.print(entry[0])) else {
                Issue.record("not a string: \(entry[0].debugDescription)")
                continue
            }
            #expect(string.block)
            #expect(string.value == entry[0])
        }
    }
}
