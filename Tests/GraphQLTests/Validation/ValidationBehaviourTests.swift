import GraphQL
import JSON
import Testing

/// Behaviour that graphql-js cannot produce fixtures for: custom scalar hooks,
/// the error limit on large documents, and robustness on arbitrary documents.
@Suite struct ValidationBehaviourTests {
    static let scalarSchemaSDL = """
    scalar Even

    type Query {
      half(value: Even): Int
      halves(values: [Even!]): Int
    }
    """

    /// A custom scalar's `parseValue` hook decides whether a literal is valid;
    /// its error is worded as graphql-js words a plain `Error` from `parseLiteral`.
    @Test func customScalarHookRejectsLiterals() throws {
        var resolvers = SchemaResolvers()
        resolvers.scalar("Even", ScalarHooks(parseValue: { value in
            guard case .int(let number) = value, number % 2 == 0 else {
                throw ScalarCoercionError("not an even integer")
            }
            return value
        }))
        let schema = try GraphQLSchema(sdl: Self.scalarSchemaSDL, resolvers: resolvers)
        let document = try Parser.parse("{ a: half(value: 4) b: half(value: 3) c: halves(values: [2, \"x\"]) }")
        let errors = validate(schema: schema, document: document)
        #expect(errors.map(\.message) == [
            "Expected value of type \"Even\", found 3; not an even integer",
            "Expected value of type \"Even!\", found \"x\"; not an even integer",
        ])
        #expect(errors.map { $0.locations.map(\.description) } == [["1:36"], ["1:61"]])
    }

    /// Without hooks a custom scalar accepts any literal, as graphql-js's SDL scalars do.
    @Test func customScalarWithoutHooksAcceptsLiterals() throws {
        let schema = try GraphQLSchema(sdl: Self.scalarSchemaSDL)
        let document = try Parser.parse("{ half(value: {any: [1, \"thing\"]}) }")
        #expect(validate(schema: schema, document: document).isEmpty)
    }

    /// Validation looks types and fields up in a per-schema table whose slots come
    /// from a name's length and first, middle and last bytes: names alike in all
    /// four (`Faaaz` / `Fbaaz`, `xaaaz` / `xbaaz` / `xcaaz`) still find their own
    /// definitions, and a repeated fragment name finds the last fragment of that
    /// name. Messages and locations as graphql-js 16 reports them.
    @Test func lookalikeNamesFindTheirOwnDefinitions() throws {
        let schema = try GraphQLSchema(sdl: """
        type Query { faaaz: Faaaz fbaaz: Fbaaz }
        type Faaaz { xaaaz: Int }
        type Fbaaz { xbaaz: String xcaaz: Faaaz }
        """)
        func check(_ query: String) throws -> [[String]] {
            try validate(schema: schema, document: Parser.parse(query)).map { error in
                [error.message] + error.locations.map(\.description)
            }
        }
        #expect(try check("{ faaaz { xaaaz } fbaaz { xbaaz xcaaz { xaaaz } } }").isEmpty)
        #expect(try check("{ faaaz { xaaaz xbaaz } fbaaz { xbaaz xcaaz { xaaaz } xdaaz } ... on Fbaaz { xbaaz } }") == [
            ["Cannot query field \"xbaaz\" on type \"Faaaz\". Did you mean \"xaaaz\"?", "1:17"],
            ["Cannot query field \"xdaaz\" on type \"Fbaaz\". Did you mean \"xbaaz\" or \"xcaaz\"?", "1:55"],
            ["Fragment cannot be spread here as objects of type \"Query\" can never be of type \"Fbaaz\".", "1:63"],
        ])
        #expect(try check("{ faaaz { ...F } } fragment F on Faaaz { xaaaz } fragment F on Fbaaz { xbaaz }") == [
            ["Fragment \"F\" cannot be spread here as objects of type \"Faaaz\" can never be of type \"Fbaaz\".", "1:11"],
            ["There can be only one fragment named \"F\".", "1:29", "1:59"],
        ])
    }

    /// Thousands of identical fields, and thousands of identical fields with one
    /// outlier: the first is valid, the second stops at the error limit.
    @Test func repeatedFieldsAndErrorLimit() throws {
        let schema = try GraphQLSchema(sdl: "type Query { a(x: Int): Int b: Int }")
        let limits = ParserLimits(maxBytes: 1 << 22, maxTokens: 1_000_000, maxDepth: 64)
        let same = try Parser.parse("{ " + String(repeating: "a(x: 1) ", count: 5_000) + "}", limits: limits)
        #expect(validate(schema: schema, document: same).isEmpty)

        let outlier = try Parser.parse("{ " + String(repeating: "a(x: 1) ", count: 5_000) + "a: b }", limits: limits)
        let errors = validate(schema: schema, document: outlier, maxErrors: 10)
        #expect(errors.count == 11)
        #expect(errors.first?.message == "Fields \"a\" conflict because \"a\" and \"b\" are different fields. Use different aliases on the fields to fetch both if this was intentional.")
        #expect(errors.last?.message == "Too many validation errors, error limit reached. Validation aborted.")
        #expect(errors.last?.locations.isEmpty == true)
    }

    /// A long chain of fragments (each spreading the next) is followed without
    /// recursion deep enough to matter, and a cycle at its end is found.
    @Test func longFragmentChainWithCycle() throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Int next: Query }")
        var text = "{ ...F0 }\n"
        for index in 0..<2_000 { text += "fragment F\(index) on Query { a ...F\(index + 1) }\n" }
        text += "fragment F2000 on Query { ...F0 }\n"
        let limits = ParserLimits(maxBytes: 1 << 22, maxTokens: 1_000_000, maxDepth: 64)
        let errors = validate(schema: schema, document: try Parser.parse(text, limits: limits))
        #expect(errors.count == 1)
        #expect(errors.first?.message.hasPrefix("Cannot spread fragment \"F0\" within itself via \"F1\", \"F2\",") == true)
        #expect(errors.first?.locations.count == 2_001)
    }

    /// Every fixture document cut short or with a line removed either fails to
    /// parse or validates to a list of errors: never a crash.
    @Test func mutatedDocumentsNeverCrash() throws {
        guard let schema = ValidationFixtures.schemas["default"] else {
            Issue.record("test schema missing")
            return
        }
        var validated = 0
        for testCase in ValidationFixtures.cases {
            let lines = testCase.document.split(separator: "\n", omittingEmptySubsequences: false)
            for removed in lines.indices {
                var mutated = lines
                mutated.remove(at: removed)
                guard let document = try? Parser.parse(mutated.joined(separator: "\n")) else { continue }
                let errors = validate(schema: schema, document: document)
                #expect(errors.count <= 101)
                validated += 1
            }
        }
        #expect(validated > 100)
    }
}

/// Field merging that goes deeper through fragments than a thread's stack
/// allows is refused with an error instead of crashing.
@Suite struct ValidationDepthTests {
    static func chains(_ length: Int) throws -> Document {
        var text = "{ a { ...F0 } a { ...G0 } }\n"
        for index in 0..<length {
            text += "fragment F\(index) on Query { a { ...F\(index + 1) } }\n"
            text += "fragment G\(index) on Query { a { ...G\(index + 1) } }\n"
        }
        text += "fragment F\(length) on Query { b }\nfragment G\(length) on Query { b: a { b } }\n"
        return try Parser.parse(text, limits: ParserLimits(maxBytes: 1 << 24, maxTokens: 10_000_000, maxDepth: 64))
    }

    @Test func deepConflictThroughFragmentsIsFound() throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Query b: Int }")
        let errors = validate(schema: schema, document: try Self.chains(50))
        #expect(errors.count == 1)
        #expect(errors.first?.message.hasPrefix("Fields \"a\" conflict because subfields \"a\" conflict because") == true)
    }

    @Test func tooDeepThroughFragmentsIsReported() throws {
        let schema = try GraphQLSchema(sdl: "type Query { a: Query b: Int }")
        let errors = validate(schema: schema, document: try Self.chains(1_500))
        #expect(errors.map(\.message) == [
            "Fields nest more than 1000 levels deep through fragments; they cannot be checked for merging.",
        ])
    }
}
