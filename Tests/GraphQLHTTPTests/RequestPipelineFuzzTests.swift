import Foundation
import GraphQL
import GraphQLHTTP
import HTTPServer
import JSON
import Testing

/// A seeded fuzz of the whole request pipeline, called on the handler without a
/// server: JSON body (or GET query) → variables → coercion → execution →
/// response. Generated requests mix every scalar, extreme numbers as variables
/// and literals, wrong types, nesting, and byte-level damage to the body. Each
/// answer must be a status the handler documents with a JSON body holding data
/// or errors; a trap fails the run.
///
/// Bounded for `make test` (2,000 requests, about a second). A longer run:
/// `scripts/fuzz-requests.sh [ITERATIONS] [SEED]` (PAYQL_FUZZ_ITERATIONS, PAYQL_FUZZ_SEED).
@Suite struct RequestPipelineFuzzTests {
    static let sdl = """
    scalar Json
    scalar Minor
    enum Color { RED GREEN }
    input Filter { min: Int, max: Float, name: String, tags: [ID!], color: Color, json: Json }
    type Query {
      int(v: Int): Int
      float(v: Float): Float
      string(v: String): String
      boolean(v: Boolean): Boolean
      id(v: ID): ID
      json(v: Json): Json
      minor(v: Minor): Minor
      list(v: [Int]): [Int]
      nested(v: [[Float!]]): [[Float!]]
      filter(v: Filter): Json
      color(v: Color): Color
      many(first: Int): [Int!]!
    }
    type Mutation { create(v: Int!, id: ID!): ID }
    """

    static let argumentTypes: [(field: String, type: String)] = [
        ("int", "Int"), ("float", "Float"), ("string", "String"), ("boolean", "Boolean"), ("id", "ID"), ("json", "Json"),
        ("minor", "Minor"), ("list", "[Int]"), ("nested", "[[Float!]]"), ("filter", "Filter"), ("color", "Color"),
        ("int", "Int!"), ("id", "ID!"), ("float", "Float!"),
    ]

    static let numbers = [
        "0", "-0", "-0.0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649", "9007199254740993",
        "4611686018427387904", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "1e19", "-1e19", "1e20", "1e21", "1e308", "-1e308", "1.7976931348623157e308", "5e-324",
        "1e-400", "1e400", "1e3", "1E+3", "0.1", "1.5", String(repeating: "9", count: 40), String(repeating: "9", count: 320),
    ]
    static let strings = ["", "NaN", "Infinity", "-Infinity", "1e400", "0x10", "RED", "red", "\\u0000", "é", "1_000", "💳"]

    static func schema() throws -> GraphQLSchema {
        var resolvers = SchemaResolvers()
        for (field, _) in argumentTypes { resolvers.field("Query", field, .sync { $0[argument: "v"] }) }
        resolvers.field("Query", "many", .sync { input in
            let first = min(max(0, input[argument: "first"]?.intValue ?? 3), 5)
            return JSONValue.array((0..<first).map { .int($0) })
        })
        resolvers.field("Mutation", "create", .sync { $0[argument: "id"] })
        resolvers.scalar("Minor", ScalarHooks(
            serialize: { value in
                guard let json = value as? JSONValue else { throw ScalarCoercionError("Minor cannot represent \(value)") }
                return try Self.minor(json)
            },
            parseValue: { try Self.minor($0) }))
        return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }

    static func minor(_ value: JSONValue) throws -> JSONValue {
        switch value {
        case .int(let units) where units >= 0: return value
        case .double(let number):
            guard let units = Int64(exactly: number), units >= 0 else { throw ScalarCoercionError("Minor must be a whole number of units") }
            return .int(units)
        default: throw ScalarCoercionError("Minor must be a whole number of units")
        }
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// JSON text of a random value: mostly extreme numbers, sometimes strings, lists, objects.
    static func jsonValue(_ random: inout SplitMix, depth: Int = 0) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5: return numbers.randomElement(using: &random) ?? "0"
        case 5: return "\"" + (strings.randomElement(using: &random) ?? "") + "\""
        case 6: return ["true", "false", "null"].randomElement(using: &random) ?? "null"
        case 7 where depth < 3:
            return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in jsonValue(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        case 8 where depth < 3:
            let keys = ["min", "max", "name", "tags", "color", "json", "nope"]
            return "{" + (0..<Int.random(in: 0...3, using: &random)).map { _ in
                "\"\(keys.randomElement(using: &random) ?? "min")\":\(jsonValue(&random, depth: depth + 1))"
            }.joined(separator: ",") + "}"
        default: return "\"" + (numbers.randomElement(using: &random) ?? "0") + "\""
        }
    }

    /// A GraphQL literal of a random value (numbers as they are, so 1e400 and 320 digits lex).
    static func literal(_ random: inout SplitMix, depth: Int = 0) -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0..<5: return numbers.randomElement(using: &random) ?? "0"
        case 5: return ["RED", "true", "null", "\"1e19\""].randomElement(using: &random) ?? "null"
        case 6 where depth < 2: return "[" + literal(&random, depth: depth + 1) + ", " + literal(&random, depth: depth + 1) + "]"
        default: return "{min: \(literal(&random, depth: depth + 1)), max: \(literal(&random, depth: depth + 1))}"
        }
    }

    /// One generated request body (or GET query string when `get` is set).
    static func request(_ random: inout SplitMix) -> HTTPRequest {
        let (field, type) = argumentTypes.randomElement(using: &random) ?? ("int", "Int")
        let query: String
        switch Int.random(in: 0..<4, using: &random) {
        case 0: query = "{ \(field)(v: \(literal(&random))) many(first: \(literal(&random))) }"
        case 1: query = "mutation($v: Int!, $i: ID!) { create(v: $v, id: $i) }"
        default: query = "query($v: \(type)) { \(field)(v: $v) many(first: $v) }"
        }
        let variables = "{\"v\":\(jsonValue(&random)),\"i\":\(jsonValue(&random))}"
        var body = Array("{\"query\":\(JSONWriter.string(.string(query))),\"variables\":\(variables)}".utf8)
        // Now and then, damage the bytes: the JSON parser must refuse what it cannot read.
        if Int.random(in: 0..<6, using: &random) == 0, !body.isEmpty {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<body.count, using: &random)
                body[index] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) { body.removeLast(Int.random(in: 0..<body.count, using: &random)) }
        }
        if Int.random(in: 0..<5, using: &random) == 0, !query.hasPrefix("mutation") {
            let items = "query=\(percentEncode(query))&variables=\(percentEncode(variables))"
            return HTTPRequest(method: "GET", path: "/graphql", query: items, headers: ["accept": "application/json"])
        }
        let accept = Bool.random(using: &random) ? "application/json" : "application/graphql-response+json"
        return HTTPRequest(method: "POST", path: "/graphql", headers: ["content-type": "application/json", "accept": accept], body: body)
    }

    static func setting(_ name: String, default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? value
    }

    @Test func generatedRequestsGetWellFormedAnswers() async throws {
        let iterations = Self.setting("PAYQL_FUZZ_ITERATIONS", default: 2_000)
        let seed = Self.setting("PAYQL_FUZZ_SEED", default: 14)
        let handler = GraphQLHTTPHandler(schema: try Self.schema(), configuration: GraphQLHTTPConfiguration(documentCacheCapacity: 256))
        var random = SplitMix(state: seed)
        var statuses: [Int: Int] = [:]
        for index in 0..<iterations {
            var request = Self.request(&random)
            let shown = request.method == "GET" ? request.query : String(decoding: request.body, as: UTF8.self)
            let response: HTTPResponse
            if let immediate = handler.respondImmediately(to: &request) {
                response = immediate
            } else {
                response = await handler.handle(request)
            }
            statuses[response.status, default: 0] += 1
            #expect([200, 400].contains(response.status), "#\(index) (seed \(seed)): \(response.status) for \(shown.prefix(300))")
            guard let answer = try? JSONParser.parse(response.body) else {
                Issue.record("#\(index) (seed \(seed)): body is not JSON for \(shown.prefix(300))")
                continue
            }
            #expect(answer["data"] != nil || answer["errors"]?.arrayValue?.isEmpty == false, "#\(index): \(shown.prefix(300))")
        }
        // Both outcomes occur: the generator reaches execution and the refusals.
        #expect((statuses[200] ?? 0) > Int(iterations) / 10)
        #expect((statuses[400] ?? 0) > Int(iterations) / 20)
    }
}
