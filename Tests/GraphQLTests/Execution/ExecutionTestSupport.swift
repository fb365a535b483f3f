import Foundation
import GraphQL
import JSON
import Testing

/// Shared helpers of the execution, type and introspection tests.
enum TestSupport {
    /// The text of a fixture file under `Tests/GraphQLTests/Fixtures/`.
    static func fixture(_ relativePath: String) throws -> String {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: directory.appendingPathComponent("Fixtures").appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Parses JSON text (test input only).
    static func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(text)
    }

    /// Runs `query` against `schema` through a fresh engine.
    static func run(
        _ schema: GraphQLSchema,
        _ query: String,
        variables: JSONObject = [:],
        operationName: String? = nil,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null
    ) async -> GraphQLResponse {
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 0)
        return await both(engine, GraphQLRequest(query: query, operationName: operationName, variables: variables),
                          context: context, rootValue: rootValue)
    }

    /// Runs `request` twice, building the result tree and writing the response
    /// straight to bytes, expects the bytes to be exactly what the tree's JSON
    /// writes, and returns the tree's response. (Resolvers run once per path.)
    static func both(
        _ engine: GraphQLEngine,
        _ request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async -> GraphQLResponse {
        let tree = await engine.execute(request, context: context, rootValue: rootValue)
        let encoded = await engine.executeEncoded(request, context: context, rootValue: rootValue)
        let expected = JSONWriter.string(tree.json)
        let written = String(decoding: encoded.body(), as: UTF8.self)
        #expect(written == expected, "bytes path differs from the tree path", sourceLocation: sourceLocation)
        #expect(encoded.hasData == (tree.data != nil), sourceLocation: sourceLocation)
        return tree
    }

    /// The response as compact JSON text.
    static func text(_ response: GraphQLResponse) -> String {
        JSONWriter.string(response.json)
    }
}

/// The benchmark workload's resolvers (look-ups by id in data.json), as the
/// workload's README prescribes; shared by the workload test.
enum WorkloadSchema {
    final class Store: Sendable {
        let orders: [String: JSONValue]
        let customers: [String: JSONValue]
        let payments: [String: JSONValue]

        init(data: JSONValue) {
            func index(_ key: String) -> [String: JSONValue] {
                var result: [String: JSONValue] = [:]
                for item in data[key]?.arrayValue ?? [] {
                    if let id = item["id"]?.stringValue { result[id] = item }
                }
                return result
            }
            orders = index("orders")
            customers = index("customers")
            payments = index("payments")
        }
    }

    static func make(sdl: String, data: JSONValue) throws -> GraphQLSchema {
        let store = Store(data: data)
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "order", .sync { input in
            input[argument: "id"]?.stringValue.flatMap { store.orders[$0] }
        })
        resolvers.field("Query", "node", .sync { input in
            guard let id = input[argument: "id"]?.stringValue else { return nil }
            return store.orders[id] ?? store.customers[id] ?? store.payments[id]
        })
        resolvers.field("Order", "customer", .sync { input in
            guard let source = input.source as? JSONValue, let id = source["customerId"]?.stringValue else { return nil }
            return store.customers[id]
        })
        resolvers.field("Order", "lineItems", .sync { input in
            guard let source = input.source as? JSONValue, let items = source["lineItems"]?.arrayValue else { return nil }
            let first = Int(input[argument: "first"]?.intValue ?? Int64(items.count))
            return JSONValue.array(Array(items.prefix(max(0, first))))
        })
        resolvers.field("Order", "payments", .sync { input in
            guard let source = input.source as? JSONValue, let ids = source["paymentIds"]?.arrayValue else { return nil }
            var payments = ids.compactMap { $0.stringValue.flatMap { store.payments[$0] } }
            if let status = input[argument: "status"]?.stringValue {
                payments = payments.filter { $0["status"]?.stringValue == status }
            }
            let first = Int(input[argument: "first"]?.intValue ?? Int64(payments.count))
            return JSONValue.array(Array(payments.prefix(max(0, first))))
        })
        return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }
}
