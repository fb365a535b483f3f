import Testing
@testable import GraphQL

/// Golden files: each `Fixtures/language/print/NAME.graphql` with the output of
/// graphql-js 16.6 (`print(parse(text))`, or its syntax error) in `NAME.expected`.
@Suite struct PrinterGoldenTests {
    static let names = LanguageFixtures.names(in: "print")

    @Test func fixturesArePresent() {
        #expect(Self.names.count > 100)
    }

    @Test(arguments: names)
    func printsAsGraphQLJS(name: String) throws {
        let input = try LanguageFixtures.text("print", name + ".graphql")
        var expected = try LanguageFixtures.text("print", name + ".expected")
        if expected.hasSuffix("\n") { expected.removeLast() }
        #expect(formatOrError(input) == expected)
    }

    /// Printing is a fixed point: print(parse(print(doc))) == print(doc).
    @Test(arguments: names)
    func printIsIdempotent(name: String) throws {
        let input = try LanguageFixtures.text("print", name + ".graphql")
        guard let document = try? Parser.parse(input) else { return }
        let printed = Printer.print(document)
        #expect(Printer.print(try Parser.parse(printed)) == printed)
    }
}
