import Testing
@testable import GraphQL

/// The tree the parser builds: node kinds, fields, locations, and grammar errors.
@Suite struct ParserTests {
    @Test func operationWithEverything() throws {
        let text = "query Q($id: ID! = \"1\" @v, $n: [Int]) @op { a: f(x: $id) @skip(if: false) { ...F ... on T { g } } }"
        let document = try Parser.parse(text)
        guard case .operation(let operation)? = document.definitions.first else {
            Issue.record("expected an operation")
            return
        }
        #expect(operation.operation == .query)
        #expect(operation.name?.value == "Q")
        #expect(operation.variableDefinitions.count == 2)
        let id = operation.variableDefinitions[0]
        #expect(id.variable.name.value == "id")
        #expect(Printer.print(id.type) == "ID!")
        #expect(id.defaultValue.map(Printer.print) == "\"1\"")
        #expect(id.directives.map(\.name.value) == ["v"])
        #expect(operation.directives.map(\.name.value) == ["op"])
        let field = try #require(firstField(document))
        #expect(field.alias?.value == "a")
        #expect(field.name.value == "f")
        #expect(field.responseKey == "a")
        #expect(field.arguments.first?.value == .variable(Variable(name: Name(value: "id", loc: Location(start: 53, end: 55)),
                                                                   loc: Location(start: 52, end: 55))))
        let selections = try #require(field.selectionSet?.selections)
        guard case .fragmentSpread(let spread) = selections[0], case .inlineFragment(let inline) = selections[1] else {
            Issue.record("expected a spread and an inline fragment")
            return
        }
        #expect(spread.name.value == "F")
        #expect(inline.typeCondition?.name.value == "T")
    }

    @Test func locationsAreByteRangesLikeGraphQLJS() throws {
        let text = "{ alias: field(arg: [1, 2]) }"
        let document = try Parser.parse(text)
        let field = try #require(firstField(document))
        #expect(document.loc == Location(start: 0, end: 29))
        #expect(field.loc == Location(start: 2, end: 27))
        #expect(field.alias?.loc == Location(start: 2, end: 7))
        #expect(field.name.loc == Location(start: 9, end: 14))
        #expect(field.arguments[0].loc == Location(start: 15, end: 26))
        #expect(field.arguments[0].value.loc == Location(start: 20, end: 26))
        #expect(document.source.location(at: field.name.loc.start) == SourceLocation(line: 1, column: 10))
    }

    @Test func keywordsAreNames() throws {
        let document = try Parser.parse("{ query fragment on true: null type(on: on) { ...on_ } }")
        let names = try #require(firstField(document).map { _ in document })
        #expect(Printer.print(names) == "{\n  query\n  fragment\n  on\n  true: null\n  type(on: on) {\n    ...on_\n  }\n}")
    }

    @Test func shorthandAndNamedOperations() throws {
        let document = try Parser.parse("{ a } mutation M { b } subscription { c }")
        let kinds: [OperationType] = document.definitions.compactMap {
            if case .operation(let operation) = $0 { return operation.operation }
            return nil
        }
        #expect(kinds == [.query, .mutation, .subscription])
    }

    @Test func typeSystemDefinitions() throws {
        let sdl = """
        "Root" schema { query: Q }
        \"\"\"A thing\"\"\" interface Node implements Base & Other { id: ID! }
        type Q implements Node @key(f: "id") { id: ID! things(first: Int = 10): [Node!]! @deprecated(reason: "x") }
        union U = A | B
        enum E { A B @deprecated }
        input I { a: Int = 1, b: [String!] }
        scalar Date @specifiedBy(url: "https://example.com")
        directive @d(a: Int) repeatable on FIELD | QUERY
        extend type Q { more: Int }
        extend schema @s
        """
        let document = try Parser.parse(sdl)
        #expect(document.definitions.count == 10)
        guard case .schema(let schema) = document.definitions[0],
              case .type(.interface(let node)) = document.definitions[1],
              case .type(.object(let query)) = document.definitions[2],
              case .directive(let directive) = document.definitions[7],
              case .typeExtension(.object(let extensionNode)) = document.definitions[8],
              case .schemaExtension(let schemaExtension) = document.definitions[9] else {
            Issue.record("unexpected definition kinds")
            return
        }
        #expect(schema.description?.value == "Root")
        #expect(schema.description?.block == false)
        #expect(node.description?.block == true)
        #expect(node.interfaces.map(\.name.value) == ["Base", "Other"])
        #expect(query.fields.map(\.name.value) == ["id", "things"])
        #expect(query.fields[1].arguments.first?.defaultValue.map(Printer.print) == "10")
        #expect(directive.repeatable)
        #expect(directive.locations.map(\.value) == ["FIELD", "QUERY"])
        #expect(extensionNode.fields.map(\.name.value) == ["more"])
        #expect(schemaExtension.directives.map(\.name.value) == ["s"])
        #expect(document.definitions.allSatisfy { !$0.isExecutable })
    }

    @Test func grammarErrors() {
        #expect(parseError("") == "ERROR 1:1 Syntax Error: Unexpected <EOF>.")
        #expect(parseError("{ a") == "ERROR 1:4 Syntax Error: Expected Name, found <EOF>.")
        #expect(parseError("{ }") == #"ERROR 1:3 Syntax Error: Expected Name, found "}"."#)
        #expect(parseError("{ a() }") == #"ERROR 1:5 Syntax Error: Expected Name, found ")"."#)
        #expect(parseError("query ($a Int) { a }") == #"ERROR 1:11 Syntax Error: Expected ":", found Name "Int"."#)
        #expect(parseError("query ($a: Int = $b) { a }") == #"ERROR 1:18 Syntax Error: Unexpected variable "$b" in constant value."#)
        #expect(parseError("fragment on on T { a }") == #"ERROR 1:10 Syntax Error: Unexpected Name "on"."#)
        #expect(parseError("fragment F T { a }") == #"ERROR 1:12 Syntax Error: Expected "on", found Name "T"."#)
        #expect(parseError("\"d\" query { a }") == "ERROR 1:1 Syntax Error: Unexpected description, descriptions are supported only on type definitions.")
        #expect(parseError("foo { a }") == #"ERROR 1:1 Syntax Error: Unexpected Name "foo"."#)
        #expect(parseError("extend type T") == "ERROR 1:14 Syntax Error: Unexpected <EOF>.")
        #expect(parseError("enum E { true }") == #"ERROR 1:10 Syntax Error: Name "true" is reserved and cannot be used for an enum value."#)
        #expect(parseError("directive @a on FOO") == #"ERROR 1:17 Syntax Error: Unexpected Name "FOO"."#)
        #expect(parseError("query ($a: Int!!) { a }") == #"ERROR 1:16 Syntax Error: Expected "$", found "!"."#)
    }

    @Test func valueAndTypeEntryPoints() throws {
        let value = try Parser.parseValue("{a: [1, 2.5, \"s\", $v, ENUM, null, true]}")
        #expect(Printer.print(value) == "{a: [1, 2.5, \"s\", $v, ENUM, null, true]}")
        #expect(Printer.print(try Parser.parseType("[[Int!]]!")) == "[[Int!]]!")
        #expect(throws: GraphQLError.self) { try Parser.parseValue("1 2") }
        #expect(try Parser.parseType("[A!]").namedType.name.value == "A")
    }

    @Test func structuralEqualityIgnoresLocations() throws {
        let a = try Parser.parseValue("{x: [1, \"a\"], y: $v}")
        let b = try Parser.parseValue("  {x: [1 \"a\"]  y: $v }")
        let c = try Parser.parseValue("{y: $v, x: [1, \"a\"]}")
        #expect(a != b)
        #expect(a.structurallyEquals(b))
        #expect(!a.structurallyEquals(c))
        #expect(try Parser.parseType("[A]!").structurallyEquals(try Parser.parseType(" [ A ] !")))
        #expect(!(try Parser.parseType("[A]").structurallyEquals(try Parser.parseType("[A!]"))))
    }
}
