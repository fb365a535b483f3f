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

    /// Printing is a fixed point: print(parse(print(doc))) == print(doc), except
    /// for the one form graphql-js cannot read back either (next test).
    @Test(arguments: names.filter { $0 != "mixed-bodiless-type-then-shorthand-query" })
    func printIsIdempotent(name: String) throws {
        let input = try LanguageFixtures.text("print", name + ".graphql")
        guard let document = try? Parser.parse(input) else { return }
        let printed = Printer.print(document)
        #expect(Printer.print(try Parser.parse(printed)) == printed)
    }

    /// `type T` then `query { a }` prints as `type T` and `{ a }`, which reads
    /// back as one type with a body (and fails): graphql-js prints the same.
    @Test func bodilessTypeThenShorthandQueryPrintsAsGraphQLJSDoes() throws {
        let printed = Printer.print(try Parser.parse("type T query { a }"))
        #expect(printed == "type T\n\n{\n  a\n}")
        #expect(throws: GraphQLError.self) { try Parser.parse(printed) }
    }
}
