import Testing
@testable import GraphQL

/// Limits and hostile input: every byte string ends in a document or a clear error, quickly.
@Suite struct ParserLimitsTests {
    @Test func tokenLimit() {
        let text = "{ " + String(repeating: "a ", count: 20) + "}"
        #expect(parseError(text, limits: ParserLimits(maxTokens: 22)) == nil)
        #expect(parseError(text, limits: ParserLimits(maxTokens: 21))
            == "ERROR 1:43 Syntax Error: Document contains more than 21 tokens. Parsing aborted.")
    }

    @Test func sizeLimit() {
        let text = "{ " + String(repeating: "a ", count: 100) + "}"
        #expect(parseError(text, limits: ParserLimits(maxBytes: text.utf8.count)) == nil)
        #expect(parseError(text, limits: ParserLimits(maxBytes: 100)) == "ERROR 1:101 Syntax Error: Document is larger than 100 bytes.")
    }

    @Test func depthLimitOnSelections() {
        func nested(_ depth: Int) -> String {
            String(repeating: "{a", count: depth) + String(repeating: "}", count: depth)
        }
        #expect(parseError(nested(128)) == nil)
        #expect(parseError(nested(129)) == "ERROR 1:257 Syntax Error: Document is nested deeper than 128 levels.")
        #expect(parseError(nested(5), limits: ParserLimits(maxDepth: 4)) != nil)
    }

    @Test func depthLimitOnValuesAndTypes() {
        let deepList = "{ f(a: " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + ") }"
        #expect(parseError(deepList)?.contains("nested deeper than 128 levels") == true)
        let deepObject = "{ f(a: " + String(repeating: "{a: ", count: 200) + "1" + String(repeating: "}", count: 200) + ") }"
        #expect(parseError(deepObject)?.contains("nested deeper than 128 levels") == true)
        let deepType = "query ($a: " + String(repeating: "[", count: 200) + "Int" + String(repeating: "]", count: 200) + ") { a }"
        #expect(parseError(deepType)?.contains("nested deeper than 128 levels") == true)
    }

    /// A million unclosed brackets: rejected at the depth bound, no stack overflow.
    @Test func hugeNestingDoesNotOverflowTheStack() {
        let text = String(repeating: "[", count: 1_000_000)
        #expect(parseError("{ f(a: \(text)", limits: ParserLimits(maxBytes: 2_000_000))?.contains("nested deeper") == true)
        let braces = String(repeating: "{a", count: 500_000)
        #expect(parseError(braces, limits: ParserLimits(maxBytes: 2_000_000))?.contains("nested deeper") == true)
    }

    /// The 600 kB document repeating one field 60,000 times is refused by the default token limit.
    @Test func repeatedFieldDocumentIsRejected() {
        let text = "{ " + String(repeating: "field1234 ", count: 60_000) + "}"
        #expect(text.utf8.count > 600_000)
        #expect(parseError(text) == "ERROR 1:149993 Syntax Error: Document contains more than 15000 tokens. Parsing aborted.")
        // With the limit lifted it still parses (linear time), and prints.
        let document = try? Parser.parse(text, limits: .sdl)
        #expect(document.flatMap(firstField)?.name.value == "field1234")
    }

    /// Random byte strings (including invalid UTF-8, repaired to U+FFFD by String) end in a result or an error.
    @Test func randomBytes() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array("{}()[]:$@!=|&.\"\\ \n\r\t,#aZ_09-+eE".utf8) + [0xFF, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0xEF, 0xBB, 0xBF, 0x00]
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 64)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                let pick = generator.next()
                bytes.append(pick % 3 == 0 ? UInt8(truncatingIfNeeded: pick >> 8) : alphabet[Int(pick >> 16) % alphabet.count])
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let document = try? Parser.parse(text) {
                // Whatever parses must print to text that parses to the same print.
                let printed = Printer.print(document)
                #expect((try? Parser.parse(printed)).map(Printer.print) == printed)
            } else {
                #expect(parseError(text)?.hasPrefix("ERROR ") == true)
            }
        }
    }

    @Test func invalidUTF8IsRepairedThenReported() {
        let text = String(decoding: [0x7B, 0x20, 0xFF, 0x20, 0x7D] as [UInt8], as: UTF8.self)
        #expect(parseError(text) == "ERROR 1:3 Syntax Error: Unexpected character: U+FFFD.")
        let inString = String(decoding: Array("{ f(a: \"".utf8) + [0xC3] + Array("\") }".utf8), as: UTF8.self)
        #expect(try! firstArgumentValue(inString) != nil)
    }
}

/// A small deterministic generator (SplitMix64) so the random test is reproducible.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
