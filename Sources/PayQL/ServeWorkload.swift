#if canImport(Glibc)
import Glibc
#endif
import GraphQL
import JSON

/// `payql serve --workload DIR`: serves a benchmark workload directory
/// (`schema.graphql` + `data.json`, as in ../shared/bench/graphql) instead of
/// the built-in schema, with the workload's resolution rules: `order(id)` and
/// `node(id)` look objects up by id, `Order.customer` follows `customerId`,
/// `Order.lineItems(first)` and `Order.payments(first, status)` slice and
/// filter, every other field reads the property of the same name, abstract
/// types resolve from `__typename`. Used by Benchmarks/http.
enum ServeWorkload {
    /// The workload's schema and SDL.
    static func load(directory: String) throws -> (schema: GraphQLSchema, sdl: String) {
        let sdl = try readText(directory + "/schema.graphql")
        let data: JSONValue
        do {
            data = try JSONParser.parse(try readText(directory + "/data.json"))
        } catch let error as JSONError {
            throw UsageError("--workload: data.json is not valid JSON: \(error)")
        }
        func index(_ key: String) -> [String: JSONValue] {
            var map: [String: JSONValue] = [:]
            for item in data[key]?.arrayValue ?? [] {
                if let id = item["id"]?.stringValue { map[id] = item }
            }
            return map
        }
        let orders = index("orders"), customers = index("customers"), payments = index("payments")
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "order", .sync { input in
            input[argument: "id"]?.stringValue.flatMap { orders[$0] }
        })
        resolvers.field("Query", "node", .sync { input in
            input[argument: "id"]?.stringValue.flatMap { orders[$0] ?? customers[$0] ?? payments[$0] }
        })
        resolvers.field("Order", "customer", .sync { input in
            (input.source as? JSONValue)?["customerId"]?.stringValue.flatMap { customers[$0] }
        })
        resolvers.field("Order", "lineItems", .sync { input in
            let first = max(0, Int(clamping: input[argument: "first"]?.intValue ?? 10))
            let items = (input.source as? JSONValue)?["lineItems"]?.arrayValue ?? []
            return JSONValue.array(Array(items.prefix(first)))
        })
        resolvers.field("Order", "payments", .sync { input in
            let first = max(0, Int(clamping: input[argument: "first"]?.intValue ?? 10))
            let status = input[argument: "status"]?.stringValue
            let ids = (input.source as? JSONValue)?["paymentIds"]?.arrayValue ?? []
            var found: [JSONValue] = []
            for id in ids {
                guard let key = id.stringValue, let payment = payments[key] else { continue }
                if let status, payment["status"]?.stringValue != status { continue }
                found.append(payment)
            }
            return JSONValue.array(Array(found.prefix(first)))
        })
        do {
            return (try GraphQLSchema(sdl: sdl, resolvers: resolvers), sdl)
        } catch {
            throw UsageError("--workload: schema.graphql is invalid:\n\(error)")
        }
    }

    private static func readText(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw UsageError("--workload: cannot open '\(path)'") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
