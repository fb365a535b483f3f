@testable import GraphQL
import JSON
import Testing

/// Extreme numbers through every built-in scalar and two custom ones, as JSON
/// variables and as literals, in and out (issue 14: a coercion error message
/// once converted 1e19 with `Int64(_:)` and stopped the server).
@Suite struct HostileNumberScalarTests {
    static let sdl = """
    scalar Json
    scalar MinorUnits
    type Query {
      int(v: Int): Int
      float(v: Float): Float
      string(v: String): String
      boolean(v: Boolean): Boolean
      id(v: ID): ID
      json(v: Json): Json
      minor(v: MinorUnits): MinorUnits
      ints(v: [Int!]): [Int!]
      intOf(v: Float): Int
      stringOf(v: Float): String
      idOf(v: Float): ID
      booleanOf(v: Float): Boolean
      minorOf(v: Float): MinorUnits
    }
    type Mutation { create(v: Int!): Int, createID(v: ID!): ID }
    """

    /// The argument types the fields take, by field name.
    static let argumentTypes: [(field: String, type: String)] = [
        ("int", "Int"), ("float", "Float"), ("string", "String"), ("boolean", "Boolean"), ("id", "ID"),
        ("json", "Json"), ("minor", "MinorUnits"), ("ints", "[Int!]"),
        ("intOf", "Float"), ("stringOf", "Float"), ("idOf", "Float"), ("booleanOf", "Float"), ("minorOf", "Float"),
    ]

    /// JSON number texts at and around every limit a conversion has.
    static let numbers = [
        "9223372036854775807", "9223372036854775808", "9223372036854775809", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "1e19", "-1e19", "1e20", "9.99e20", "1e21", "1e308", "-1e308",
        "1e-400", "-0.0", "0", "-0", "2147483647", "2147483648", "-2147483649", "4611686018427387904",
        "9007199254740993", "1.5", "1e3", "1E+3", "123456789012345678901234567890", String(repeating: "9", count: 300),
        "0." + String(repeating: "0", count: 400) + "1", "1.7976931348623157e308", "5e-324",
    ]
    /// Texts no number parser should take, sent as JSON strings.
    static let texts = ["NaN", "-NaN", "Infinity", "-Infinity", "1e400", "0x10", "1_000", " 1", "1e3", "१", ""]

    static func schema() throws -> GraphQLSchema {
        var resolvers = SchemaResolvers()
        for (field, _) in argumentTypes {
            resolvers.field("Query", field, .sync { $0[argument: "v"] })
        }
        resolvers.field("Mutation", "create", .sync { $0[argument: "v"] })
        resolvers.field("Mutation", "createID", .sync { $0[argument: "v"] })
        resolvers.scalar("MinorUnits", ScalarHooks(
            serialize: { value in
                switch value {
                case let json as JSONValue: return try MinorUnits.parse(json)
                default: throw ScalarCoercionError("MinorUnits cannot represent \(value)")
                }
            },
            parseValue: { try MinorUnits.parse($0) }))
        return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }

    /// A custom scalar written as a careful resolver author would: exact or refused.
    enum MinorUnits {
        static func parse(_ value: JSONValue) throws -> JSONValue {
            switch value {
            case .int(let units) where units >= 0: return .int(units)
            case .double(let number):
                guard let units = Int64(exactly: number), units >= 0 else {
                    throw ScalarCoercionError("MinorUnits cannot represent \(formatNumberLikeJS(number))")
                }
                return .int(units)
            default: throw ScalarCoercionError("MinorUnits must be a non-negative integer")
            }
        }
    }

    /// Every response is data or errors with messages; nothing traps, and no error message is empty.
    private func expectWellFormed(_ response: GraphQLResponse, _ what: String) {
        #expect(response.data != nil || !response.errors.isEmpty, "\(what)")
        for error in response.errors { #expect(!error.message.isEmpty, "\(what)") }
        // The response writes as valid JSON (non-finite numbers have no JSON form).
        let written = JSONWriter.write(response.json)
        #expect((try? JSONParser.parse(written)) != nil, "\(what): \(String(decoding: written, as: UTF8.self))")
    }

    @Test func extremeVariablesThroughEveryScalar() async throws {
        let engine = GraphQLEngine(schema: try Self.schema(), cacheCapacity: 64)
        var coerced = 0
        for (field, type) in Self.argumentTypes {
            let query = "query($v: \(type)) { \(field)(v: $v) }"
            let values = Self.numbers + Self.texts.map { "\"\($0)\"" } + Self.numbers.map { "[\($0)]" }
            for value in values {
                // 1e400-like JSON is refused by the JSON parser itself (tested below); the rest reaches coercion.
                guard let variables = (try? JSONParser.parse("{\"v\": \(value)}"))?.objectValue else { continue }
                let response = await TestSupport.both(engine, GraphQLRequest(query: query, variables: variables))
                expectWellFormed(response, "\(field)(\(value))")
                coerced += 1
            }
        }
        #expect(coerced > 500)
    }

    @Test func extremeLiteralsThroughEveryScalar() async throws {
        let engine = GraphQLEngine(schema: try Self.schema(), cacheCapacity: 0)
        // GraphQL literals: the numbers that are valid GraphQL number tokens, plus 1e400 (lexes, but no double holds it).
        let literals = Self.numbers.filter { !$0.hasPrefix("0.") || $0.count < 10 } + ["1e400", "-1e400", "1" + String(repeating: "0", count: 400)]
        for (field, _) in Self.argumentTypes {
            for literal in literals {
                for text in [literal, "[\(literal)]", "{a: \(literal)}"] {
                    let response = await TestSupport.both(engine, GraphQLRequest(query: "{ \(field)(v: \(text)) }"))
                    expectWellFormed(response, "\(field)(v: \(text))")
                }
            }
        }
    }

    /// The issue's reproductions at the engine level, with graphql-js's wording.
    @Test func reproductionsGetGraphQLErrors() async throws {
        let schema = try Self.schema()
        let cases: [(query: String, variables: String, message: String)] = [
            ("query($v: String) { string(v: $v) }", #"{"v": 1e19}"#,
             #"Variable "$v" got invalid value 10000000000000000000; String cannot represent a non string value: 10000000000000000000"#),
            ("query($v: Int) { int(v: $v) }", #"{"v": 9223372036854775808}"#,
             #"Variable "$v" got invalid value 9223372036854776000; Int cannot represent non 32-bit signed integer value: 9223372036854776000"#),
            ("query($v: ID!) { id(v: $v) }", #"{"v": 9223372036854775808}"#, ""),
            ("mutation($v: Int!) { create(v: $v) }", #"{"v": 9223372036854775808}"#,
             #"Variable "$v" got invalid value 9223372036854776000; Int cannot represent non 32-bit signed integer value: 9223372036854776000"#),
            ("query($v: Int) { int(v: $v) }", #"{"v": -1e19}"#,
             #"Variable "$v" got invalid value -10000000000000000000; Int cannot represent non 32-bit signed integer value: -10000000000000000000"#),
            ("query($v: Boolean) { boolean(v: $v) }", #"{"v": 18446744073709551616}"#,
             #"Variable "$v" got invalid value 18446744073709552000; Boolean cannot represent a non boolean value: 18446744073709552000"#),
        ]
        for testCase in cases {
            let variables = try #require(try JSONParser.parse(testCase.variables).objectValue)
            let response = await TestSupport.run(schema, testCase.query, variables: variables)
            if testCase.message.isEmpty {
                // ID takes integers as input: 2^63 is an integral double, served as its JavaScript digits.
                #expect(response.data?["id"] == .string("9223372036854776000"))
            } else {
                #expect(response.data == nil)
                #expect(response.errors.map(\.message) == [testCase.message])
            }
        }
    }

    @Test func outputCoercionOfHugeDoubles() async throws {
        let schema = try Self.schema()
        let response = await TestSupport.run(schema, "{ intOf(v: 1e19) stringOf(v: 1e19) idOf(v: -1e19) booleanOf(v: 1e308) minorOf(v: 1e19) }")
        #expect(response.data?["stringOf"] == .string("10000000000000000000"))
        #expect(response.data?["idOf"] == .string("-10000000000000000000"))
        #expect(response.data?["booleanOf"] == .bool(true))
        #expect(response.errors.map(\.message).sorted() == [
            "Int cannot represent non 32-bit signed integer value: 10000000000000000000",
            "MinorUnits cannot represent 10000000000000000000",
        ])
    }

    @Test func literalsBeyondADoubleAreRefused() async throws {
        let schema = try Self.schema()
        let float = await TestSupport.run(schema, "{ float(v: 1e400) }")
        #expect(float.errors.map(\.message) == ["Float cannot represent non numeric value: 1e400"])
        let json = await TestSupport.run(schema, "{ json(v: {a: [1e400]}) }")
        #expect(json.data == nil)
        #expect(json.errors.first?.message.contains("Json cannot represent a number outside the range of a double: 1e400") == true)
        let tiny = await TestSupport.run(schema, "{ float(v: 1e-400) }")
        #expect(tiny.data?["float"] == .double(0))
    }

    /// JavaScript's `String(number)` for the values the messages print (checked against node).
    @Test func numbersFormatAsJavaScriptDoes() {
        let expected: [(Double, String)] = [
            (1e19, "10000000000000000000"), (9_223_372_036_854_775_808, "9223372036854776000"),
            (18_446_744_073_709_551_616, "18446744073709552000"), (-1e19, "-10000000000000000000"),
            (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.2345678901234568e20, "123456789012345680000"),
            (-0.0, "0"), (9_007_199_254_740_993, "9007199254740992"), (999_999_999_999_999_900_000, "999999999999999900000"),
            (1e308, "1e+308"), (5e-324, "5e-324"), (1.5, "1.5"), (-.infinity, "-Infinity"), (.nan, "NaN"),
        ]
        for (number, text) in expected { #expect(formatNumberLikeJS(number) == text, "\(number)") }
        // Every integral double from 2^53 to 1e21 (by powers of two and their neighbours) formats without trapping.
        var value = 9_007_199_254_740_992.0
        while value < 1e21 {
            for candidate in [value, value.nextUp, value.nextDown, -value] {
                let text = formatNumberLikeJS(candidate)
                #expect(Double(text) == candidate, "\(candidate) → \(text)")
            }
            value *= 2
        }
    }

    @Test func jsonRefusesNumbersBeyondADouble() throws {
        for text in ["1e400", "-1e400", "1" + String(repeating: "0", count: 400)] {
            #expect(throws: JSONError.self) { try JSONParser.parse(text) }
        }
        #expect(try JSONParser.parse("9223372036854775807") == .int(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("1e-400") == .double(0))
    }
}
