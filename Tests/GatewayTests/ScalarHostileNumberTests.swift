@testable import Gateway
import GraphQL
import JSON
import Testing

/// The payments contract's custom scalars (MinorUnits, Decimal, DateTime,
/// PhoneNumber, URL) with extreme numbers, as JSON variables and as literals,
/// through the engine with their real hooks: each is data or a coercion error,
/// never a trap (issue 14). No database: the scalars are pure.
@Suite struct ScalarHostileNumberTests {
    static let scalars = ["MinorUnits", "Decimal", "DateTime", "PhoneNumber", "URL"]

    static func schema() throws -> GraphQLSchema {
        let fields = scalars.map { "echo\($0)(v: \($0)): \($0)" }.joined(separator: "\n  ")
        let sdl = scalars.map { "scalar \($0)" }.joined(separator: "\n") + "\ntype Query {\n  \(fields)\n}"
        var resolvers = SchemaResolvers()
        Scalars.register(in: &resolvers)
        for scalar in scalars { resolvers.field("Query", "echo\(scalar)", .sync { $0[argument: "v"] }) }
        return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }

    static let numbers = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "1e19", "-1e19", "1e308", "1e-400", "-0.0", "0", "1e3", "1.5", String(repeating: "9", count: 300),
    ]

    @Test func extremeNumbersAsVariablesAndLiterals() async throws {
        let engine = GraphQLEngine(schema: try Self.schema(), cacheCapacity: 64)
        var answered = 0
        for scalar in Self.scalars {
            let query = "query($v: \(scalar)) { echo\(scalar)(v: $v) }"
            for number in Self.numbers {
                for value in [number, "\"\(number)\"", "[\(number)]"] {
                    guard let variables = (try? JSONParser.parse("{\"v\": \(value)}"))?.objectValue else { continue }
                    let response = await engine.execute(GraphQLRequest(query: query, variables: variables))
                    #expect(response.data != nil || !response.errors.isEmpty, "\(scalar) \(value)")
                    answered += 1
                }
                for literal in [number, "\"\(number)\"", "[\(number)]", "{a: \(number)}"] {
                    let response = await engine.execute(GraphQLRequest(query: "{ echo\(scalar)(v: \(literal)) }"))
                    #expect(response.data != nil || !response.errors.isEmpty, "\(scalar) literal \(literal)")
                    answered += 1
                }
            }
        }
        #expect(answered > 300)
        // The one that takes digits keeps them exact up to Int64.max and refuses one more.
        let minor = "query($v: MinorUnits) { echoMinorUnits(v: $v) }"
        let max = await engine.execute(GraphQLRequest(query: minor, variables: ["v": "9223372036854775807"]))
        #expect(max.data?["echoMinorUnits"] == "9223372036854775807")
        let over = await engine.execute(GraphQLRequest(query: minor, variables: ["v": "9223372036854775808"]))
        #expect(over.data == nil)
        #expect(over.errors.first?.message.contains("at most 9223372036854775807") == true)
    }
}
