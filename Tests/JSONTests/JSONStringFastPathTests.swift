import JSON
import Testing

/// The word-at-a-time string paths of the parser and the writer: escapes and
/// non-ASCII text at every position around the 8-byte boundaries, `\u` escapes
/// with surrogate pairs, control characters, invalid UTF-8, exact integers.
@Suite struct JSONStringFastPathTests {
    /// The expected JSON text of `text`, one scalar at a time (the obvious way).
    static func reference(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u00" + (hex.count == 1 ? "0" + hex : hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static let specials = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\u{7F}", "é", "☕", "😀", "\u{08}"]

    @Test func everySpecialAtEveryPositionRoundTrips() throws {
        for length in 0..<26 {
            for special in Self.specials {
                for position in 0...length {
                    var text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                    if length % 3 == 0 { text += special }
                    let written = JSONWriter.string(.string(text))
                    #expect(written == Self.reference(text), "length \(length) position \(position)")
                    #expect(try JSONParser.parse(written) == .string(text), "length \(length) position \(position)")
                }
            }
        }
    }

    @Test func longOutputsGrowTheBufferCorrectly() throws {
        // Every byte escaped (six times longer written), mixed with plain runs and non-ASCII,
        // in a document far larger than any starting capacity.
        let escapes = String(repeating: "\u{01}\"\\\n", count: 3000)
        let mixed = String(repeating: "plain text ☕ then \t tab, ", count: 2000)
        var items: [JSONValue] = []
        for index in 0..<500 { items.append(["i": .int(Int64(index) * -7919), "s": .string(mixed.prefix(index).description)]) }
        let value: JSONValue = ["escapes": .string(escapes), "mixed": .string(mixed), "items": .array(items)]
        let written = JSONWriter.write(value)
        #expect(try JSONParser.parse(written) == value)
        #expect(JSONWriter.string(.string(escapes)) == Self.reference(escapes))
        // Small documents after a large one are still exact.
        #expect(JSONWriter.string(["a": [1, "x"]]) == #"{"a":[1,"x"]}"#)
        // `write(_:into:)` appends after what the buffer holds.
        var output = Array("prefix:".utf8)
        JSONWriter.write(["k": "v"], into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:{"k":"v"}"#)
        var quoted = Array("q=".utf8)
        JSONWriter.writeString("a\"b", into: &quoted)
        #expect(String(decoding: quoted, as: UTF8.self) == #"q="a\"b""#)
    }

    @Test func writesEscapesAndKeepsNonASCII() {
        #expect(JSONWriter.string(.string("")) == #""""#)
        #expect(JSONWriter.string(.string("12345678\"12345678\\")) == #""12345678\"12345678\\""#)
        #expect(JSONWriter.string(.string("\u{00}\u{1F} \u{7F}")) == #""\u0000\u001f \#u{7F}""#)
        #expect(JSONWriter.string(.string("€165.00 ☕ 😀")) == "\"€165.00 ☕ 😀\"")
        #expect(JSONWriter.string(["k\"ey": "v\nalue"]) == #"{"k\"ey":"v\nalue"}"#)
    }

    @Test func parsesUnicodeEscapesIncludingSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\u0041\u00e9\u2615\ud83d\ude00""#) == .string("Aé☕😀"))
        #expect(try JSONParser.parse(#""abcdefgh\ud83d\ude00abcdefgh""#) == .string("abcdefgh😀abcdefgh"))
        #expect(try JSONParser.parse(#""é raw then \u00e9 escaped, then 12345678""#) == .string("é raw then é escaped, then 12345678"))
        #expect(try JSONParser.parse(#""\/\b\f\n\r\t\"\\""#) == .string("/\u{08}\u{0C}\n\r\t\"\\"))
    }

    @Test func rejectsBadEscapesWithOffsets() {
        func failure(_ text: String) -> JSONError? {
            do { _ = try JSONParser.parse(text) } catch { return error }
            return nil
        }
        #expect(failure(#""12345678\ud83d""#) == JSONError(code: .invalidEscape, offset: 9, message: "unpaired UTF-16 surrogate"))
        #expect(failure(#""12345678\ude00""#)?.code == .invalidEscape)
        #expect(failure(#""\ud83d\u0041""#)?.code == .invalidEscape)
        #expect(failure(#""12345678\x""#) == JSONError(code: .invalidEscape, offset: 9, message: "invalid escape sequence"))
        #expect(failure(#""\u12G4""#)?.code == .invalidEscape)
        #expect(failure(#""12345678\"#)?.code == .syntax)
        #expect(failure(#""12345678901234567"#)?.code == .syntax)
    }

    @Test func rejectsRawControlCharactersAtTheirOffset() {
        for position in 0..<20 {
            let text = "\"" + String(repeating: "x", count: position) + "\u{0A}" + "tail\""
            do {
                _ = try JSONParser.parse(text)
                Issue.record("accepted a raw newline at \(position)")
            } catch {
                #expect(error == JSONError(code: .syntax, offset: position + 1, message: "control character in string"))
            }
        }
    }

    @Test func rejectsInvalidUTF8AfterPlainWordsAndAfterEscapes() {
        for prefix in ["", "abcdefghij", "abc\\n", "abcdefgh\\u00e9ijkl"] {
            var bytes = Array("\"\(prefix)".utf8)
            bytes += [0xC3, 0x28]
            bytes += Array("tail\"".utf8)
            do {
                _ = try JSONParser.parse(bytes)
                Issue.record("accepted invalid UTF-8 after \(prefix)")
            } catch {
                #expect(error.code == .invalidUTF8)
                #expect(error.offset == 1)
            }
        }
    }

    @Test func integersAreWrittenExactly() {
        let numbers: [Int64] = [0, 1, 9, 10, -1, -9, -10, 99, 100, 12_345, -12_345, Int64(Int32.max), Int64(Int32.min),
                                9_007_199_254_740_993, Int64.max, Int64.min, Int64.min + 1]
        for number in numbers {
            #expect(JSONWriter.string(.int(number)) == String(number))
        }
        #expect(JSONWriter.string([1, -2, 30]) == "[1,-2,30]")
    }

    @Test func memberLookupWithHints() throws {
        let object = try #require(try JSONParser.parse(#"{"id":1,"name":2,"amount":3,"currency":4,"a":5,"b":6}"#).objectValue)
        for hint in [-1, 0, 1, 2, 5, 6, 100, Int.min, Int.max] {
            #expect(object.index(forKey: "amount", hint: hint) == 2)
            #expect(object.index(forKey: "b", hint: hint) == 5)
            #expect(object.index(forKey: "missing", hint: hint) == nil)
            #expect(object.index(forKey: "", hint: hint) == nil)
        }
        #expect(object.index(forKey: "name") == 1)
        #expect(object["currency"] == .int(4))
        #expect(object["curr"] == nil)
    }
}
