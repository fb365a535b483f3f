import JSON
import Testing

@Suite struct JSONParserTests {
    @Test func parsesScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse(" true ") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-12") == .int(-12))
        #expect(try JSONParser.parse("1.5") == .double(1.5))
        #expect(try JSONParser.parse("-2.5e3") == .double(-2500))
        #expect(try JSONParser.parse("1E2") == .double(100))
    }

    @Test func integersStayExact() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONParser.parse("9007199254740993") == .int(9_007_199_254_740_993))
        // One past Int64 becomes a double rather than wrapping.
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808.0))
    }

    @Test func keepsMemberOrderAndLastDuplicateValue() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":2,"b":3}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .int(3))
    }

    @Test func duplicatesInLargeObjectsUseTheIndex() throws {
        var text = "{"
        for index in 0..<40 { text += "\"k\(index)\":\(index)," }
        text += "\"k3\":99,\"k39\":100}"
        let object = try #require(try JSONParser.parse(text).objectValue)
        #expect(object.count == 40)
        #expect(object["k3"] == .int(99))
        #expect(object["k39"] == .int(100))
        #expect(object.keys[3] == "k3")
    }

    @Test func decodesEscapes() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try JSONParser.parse(#""\u00e9\u20AC""#) == .string("é€"))
        #expect(try JSONParser.parse(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try JSONParser.parse("\"😀 direct\"") == .string("😀 direct"))
        #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test(arguments: [
        #""\uD83D""#, #""\uDE00""#, #""\uD83Dx""#, #""\uD83D\u0041""#, #""\u12""#, #""\uZZZZ""#, #""\q""#,
    ])
    func rejectsBadEscapes(_ text: String) {
        #expect(throws: JSONError.self) { try JSONParser.parse(text) }
    }

    @Test(arguments: [
        "", " ", "{", "[", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "01", "-", "1.", ".5",
        "1e", "1e+", "+1", "1e400", "-1e999", "tru", "nul", "\"abc", "\"a\nb\"", "[1]x", "NaN", "Infinity", "'a'", "{\"a\" 1}",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONError.self) { try JSONParser.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONError.self) { try JSONParser.parse(bytes) }
        let overlong: [UInt8] = [0x22, 0xC0, 0xAF, 0x22]
        #expect(throws: JSONError.self) { try JSONParser.parse(overlong) }
    }

    @Test func enforcesDepthLimitWithoutCrashing() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONError.self) { try JSONParser.parse(deep) }
        #expect(error.code == .tooDeep)
        let ok = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(throws: Never.self) { try JSONParser.parse(ok, limits: JSONLimits(maxDepth: 10)) }
        #expect(throws: JSONError.self) { try JSONParser.parse(ok, limits: JSONLimits(maxDepth: 9)) }
    }

    @Test func enforcesSizeLimit() throws {
        let error = try #require(throws: JSONError.self) {
            try JSONParser.parse("[1,2,3,4]", limits: JSONLimits(maxBytes: 4))
        }
        #expect(error.code == .tooLarge)
    }

    @Test func parsesNonContiguousCollections() throws {
        let bytes = Array(#"{"a":[1,2]}"#.utf8)
        let value = try JSONParser.parse(bytes.lazy.map { $0 })
        #expect(value == ["a": [1, 2]])
    }

    @Test func parsesGraphQLRequest() throws {
        let body = #"{"query":"query Q($id: ID!) { order(id: $id) { id } }","variables":{"id":"ord_1","n":[1,2.5,null,true]},"operationName":"Q"}"#
        let value = try JSONParser.parse(body)
        #expect(value["operationName"] == "Q")
        #expect(value["variables"]?["n"] == [1, 2.5, nil, true])
    }
}
