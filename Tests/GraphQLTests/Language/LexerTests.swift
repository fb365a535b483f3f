import Testing
@testable import GraphQL

/// Strings, numbers, ignored tokens and the lexer's error messages (graphql-js 16 wording).
@Suite struct LexerTests {
    private func stringValue(_ literal: String) throws -> StringValue? {
        guard case .string(let string)? = try firstArgumentValue("{ f(a: \(literal)) }") else { return nil }
        return string
    }

    @Test func simpleEscapes() throws {
        let value = try #require(try stringValue(#""q\" b\\ s\/ \b\f\n\r\t""#))
        #expect(value.value == "q\" b\\ s/ \u{8}\u{C}\n\r\t")
        #expect(!value.block)
    }

    @Test func unicodeEscapes() throws {
        #expect(try stringValue(#""\u0041\u00e9\u4E2D""#)?.value == "Aé中")
        #expect(try stringValue(#""\uD83D\uDE00""#)?.value == "😀")
        #expect(try stringValue(#""\u{1F600}\u{41}\u{0000041}""#)?.value == "😀AA")
        #expect(try stringValue(#""\u0000""#)?.value == "\u{0}")
    }

    @Test func rawUnicodeAndControlCharactersAreKept() throws {
        #expect(try stringValue("\"é中😀\"")?.value == "é中😀")
        #expect(try stringValue("\"a\u{1}\tb\"")?.value == "a\u{1}\tb")
    }

    @Test func invalidEscapes() {
        #expect(parseError(#"{ f(a: "\x") }"#) == #"ERROR 1:9 Syntax Error: Invalid character escape sequence: "\x"."#)
        #expect(parseError(#"{ f(a: "\u12G4") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\u12G4"."#)
        #expect(parseError(#"{ f(a: "\uD83D") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\uD83D"."#)
        #expect(parseError(#"{ f(a: "\uDE00") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\uDE00"."#)
        #expect(parseError(#"{ f(a: "\u{}") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\u{}"."#)
        #expect(parseError(#"{ f(a: "\u{110000}") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\u{110000}"."#)
        #expect(parseError(#"{ f(a: "\u{D800}") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\u{D800}"."#)
        #expect(parseError(#"{ f(a: "\u{000000041}") }"#) == #"ERROR 1:9 Syntax Error: Invalid Unicode escape sequence: "\u{000000041"."#)
    }

    @Test func unterminatedStrings() {
        #expect(parseError("{ f(a: \"abc) }") == "ERROR 1:15 Syntax Error: Unterminated string.")
        #expect(parseError("{ f(a: \"abc\ndef\") }") == "ERROR 1:12 Syntax Error: Unterminated string.")
        #expect(parseError("{ f(a: \"\"\"abc) }") == "ERROR 1:17 Syntax Error: Unterminated string.")
    }

    @Test func blockStringsAreDedented() throws {
        let value = try #require(try stringValue("\"\"\"\n    first\n      second\n    third\n\n  \"\"\""))
        #expect(value.value == "first\n  second\nthird")
        #expect(value.block)
        #expect(try stringValue("\"\"\"  first\n  second\"\"\"")?.value == "  first\nsecond")
        #expect(try stringValue("\"\"\"a \\\"\"\" b\"\"\"")?.value == "a \"\"\" b")
        #expect(try stringValue("\"\"\"x\r\n  y\rz\"\"\"")?.value == "x\n  y\nz")
        #expect(try stringValue("\"\"\"x\r\n  y\r  z\"\"\"")?.value == "x\ny\nz")
        #expect(try stringValue("\"\"\"\\n raw\"\"\"")?.value == "\\n raw")
        #expect(try stringValue("\"\"\"   \n\n  \"\"\"")?.value == "")
    }

    @Test func numbers() throws {
        #expect(try firstArgumentValue("{ f(a: -0) }") == .int(IntValue(value: "-0", loc: Location(start: 7, end: 9))))
        #expect(try firstArgumentValue("{ f(a: 1.5e-3) }") == .float(FloatValue(value: "1.5e-3", loc: Location(start: 7, end: 13))))
        #expect(try firstArgumentValue("{ f(a: 10E+2) }") == .float(FloatValue(value: "10E+2", loc: Location(start: 7, end: 12))))
        // Kept as written, however large: the executor coerces.
        if case .int(let int)? = try firstArgumentValue("{ f(a: 123456789012345678901234567890) }") {
            #expect(int.value == "123456789012345678901234567890")
        } else {
            Issue.record("expected an IntValue")
        }
    }

    @Test func invalidNumbers() {
        #expect(parseError("{ f(a: 00) }") == #"ERROR 1:9 Syntax Error: Invalid number, unexpected digit after 0: "0"."#)
        #expect(parseError("{ f(a: 1.) }") == #"ERROR 1:10 Syntax Error: Invalid number, expected digit but got: ")"."#)
        #expect(parseError("{ f(a: 1e) }") == #"ERROR 1:10 Syntax Error: Invalid number, expected digit but got: ")"."#)
        #expect(parseError("{ f(a: 0x1) }") == #"ERROR 1:9 Syntax Error: Invalid number, expected digit but got: "x"."#)
        #expect(parseError("{ f(a: 1.2.3) }") == #"ERROR 1:11 Syntax Error: Invalid number, expected digit but got: "."."#)
        #expect(parseError("{ f(a: -) }") == #"ERROR 1:9 Syntax Error: Invalid number, expected digit but got: ")"."#)
        #expect(parseError("{ f(a: .5) }") == #"ERROR 1:8 Syntax Error: Unexpected character: "."."#)
        #expect(parseError("{ f(a: 1") == "ERROR 1:9 Syntax Error: Expected Name, found <EOF>.")
    }

    @Test func unexpectedCharacters() {
        #expect(parseError("{ a ? }") == #"ERROR 1:5 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("{ a é }") == "ERROR 1:5 Syntax Error: Unexpected character: U+00E9.")
        #expect(parseError("{ 😀 }") == "ERROR 1:3 Syntax Error: Unexpected character: U+1F600.")
        #expect(parseError("{ a \u{0} }") == "ERROR 1:5 Syntax Error: Unexpected character: U+0000.")
        #expect(parseError("{ a(b: 'x') }") == #"ERROR 1:8 Syntax Error: Unexpected single quote character ('), did you mean to use a double quote (")?"#)
        #expect(parseError("{ \"\" }") == #"ERROR 1:3 Syntax Error: Expected Name, found String ""."#)
    }

    @Test func ignoredTokens() throws {
        let document = try Parser.parse("\u{FEFF}# comment\r\n{ a,,, b # trailing\n\u{FEFF} c }")
        guard case .operation(let operation)? = document.definitions.first else {
            Issue.record("expected an operation")
            return
        }
        #expect(operation.selectionSet.selections.count == 3)
    }

    @Test func columnsCountUTF16CodeUnits() {
        // 😀 is two UTF-16 code units, é one, a BOM one.
        #expect(parseError("{ a(b: \"😀😀\") ? }") == #"ERROR 1:16 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("{ a(b: \"éé\") ? }") == #"ERROR 1:14 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("\u{FEFF}?") == #"ERROR 1:2 Syntax Error: Unexpected character: "?"."#)
    }

    @Test func linesSplitOnEveryTerminator() {
        #expect(parseError("{ a\r\n\r\n  ? }") == #"ERROR 3:3 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("{ a\r\r?") == #"ERROR 3:1 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("{ a\n\n\n?") == #"ERROR 4:1 Syntax Error: Unexpected character: "?"."#)
        #expect(parseError("{ a(b: \"\"\"x\r\ny\"\"\") ? }") == #"ERROR 2:7 Syntax Error: Unexpected character: "?"."#)
    }

    @Test func sourceLocationOfOffsets() {
        let source = Source(body: "ab\r\ncd\ré😀x")
        #expect(source.location(at: 0) == SourceLocation(line: 1, column: 1))
        #expect(source.location(at: 4) == SourceLocation(line: 2, column: 1))
        #expect(source.location(at: 7) == SourceLocation(line: 3, column: 1))
        // é is 2 bytes / 1 unit; 😀 is 4 bytes / 2 units.
        #expect(source.location(at: 13) == SourceLocation(line: 3, column: 4))
        #expect(source.location(at: 1_000) == SourceLocation(line: 3, column: 5))
    }
}
