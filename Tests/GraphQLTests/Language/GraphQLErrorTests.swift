import JSON
import Testing
@testable import GraphQL

/// The shared error type and its response shape.
@Suite struct GraphQLErrorTests {
    @Test func jsonShapeOmitsEmptyParts() {
        #expect(GraphQLError("boom").jsonValue == .object(["message": .string("boom")]))
    }

    @Test func jsonShapeInSpecOrder() {
        let error = GraphQLError("bad", locations: [SourceLocation(line: 2, column: 5)],
                                 path: [.key("orders"), .index(3), .key("amount")],
                                 extensions: ["code": .string("BAD_AMOUNT")])
        let expected: JSONValue = .object([
            "message": .string("bad"),
            "locations": .array([.object(["line": .int(2), "column": .int(5)])]),
            "path": .array([.string("orders"), .int(3), .string("amount")]),
            "extensions": .object(["code": .string("BAD_AMOUNT")]),
        ])
        #expect(error.jsonValue == expected)
        guard case .object(let object) = error.jsonValue else { return }
        #expect(object.keys == ["message", "locations", "path", "extensions"])
    }

    @Test func locatedAtNodes() throws {
        let document = try Parser.parse("{\n  a\n  b\n}")
        guard case .operation(let operation)? = document.definitions.first else { return }
        let error = GraphQLError("dup", at: operation.selectionSet.selections.map(\.loc), in: document.source)
        #expect(error.locations == [SourceLocation(line: 2, column: 3), SourceLocation(line: 3, column: 3)])
        #expect(error.description == "2:3 dup")
    }

    @Test func syntaxErrorsCarryOneLocation() {
        do {
            _ = try Parser.parse("{ a\n  b(")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.message == "Syntax Error: Expected Name, found <EOF>.")
            #expect(error.locations == [SourceLocation(line: 2, column: 5)])
            #expect(error.path.isEmpty)
        }
    }
}
