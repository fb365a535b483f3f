import GraphQL
import JSON
import Synchronization

/// The small schema the GraphQL-over-HTTP tests run against (it was `payql serve`'s
/// before the payments API; no served schema may keep unbounded state in memory,
/// and this one does: its orders live in an array). Also keeps the reproductions of
/// the hostile-number crashes (`hello(name:)` with a huge number).
enum ExampleSchema {
    /// The SDL (also what `GET /schema.graphql` serves).
    static let sdl = """
    "PayQL's built-in example schema, served until the payments schema lands."
    type Query {
      "A greeting."
      hello(name: String = "world"): String!
      "One order by id, or null."
      order(id: ID!): Order
      "The first `first` orders, oldest first."
      orders(first: Int = 10): [Order!]!
      "Answers after `milliseconds` (0–5000): an asynchronous resolver."
      slow(milliseconds: Int!): String!
      "Always fails with an error: shows a partial result (data and errors)."
      failing: String
    }

    type Mutation {
      "Creates an order in memory."
      createOrder(amountMinor: Int!, currency: String = "INR"): Order!
    }

    "An order; amounts are minor units (paise)."
    type Order {
      id: ID!
      amountMinor: Int!
      currency: String!
      status: OrderStatus!
      items: [LineItem!]!
    }

    type LineItem {
      sku: String!
      quantity: Int!
    }

    enum OrderStatus {
      CREATED
      PAID
      FAILED
    }
    """

    /// A fresh schema with its own in-memory orders (three seeded).
    static func make() throws(SchemaError) -> GraphQLSchema {
        let store = Mutex<[JSONValue]>((1...3).map { number in
            order(id: "ord_\(number)", amountMinor: Int64(number) * 10_000, currency: "INR", status: number == 1 ? "PAID" : "CREATED")
        })
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "hello", .sync { input in
            "Hello, \(input[argument: "name"]?.stringValue ?? "world")!"
        })
        resolvers.field("Query", "order", .sync { input in
            let id = input[argument: "id"]?.stringValue
            return store.withLock { orders in orders.first { $0["id"]?.stringValue == id } }
        })
        resolvers.field("Query", "orders", .sync { input in
            let first = max(0, Int(input[argument: "first"]?.intValue ?? 10))
            return JSONValue.array(store.withLock { Array($0.prefix(first)) })
        })
        resolvers.field("Query", "slow", .async { input in
            let milliseconds = min(5000, max(0, Int(input[argument: "milliseconds"]?.intValue ?? 0)))
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "waited \(milliseconds) ms"
        })
        resolvers.field("Query", "failing", .sync { _ in throw ExampleError() })
        resolvers.field("Mutation", "createOrder", .sync { input in
            let amount = input[argument: "amountMinor"]?.intValue ?? 0
            let currency = input[argument: "currency"]?.stringValue ?? "INR"
            return store.withLock { orders in
                let created = order(id: "ord_\(orders.count + 1)", amountMinor: amount, currency: currency, status: "CREATED")
                orders.append(created)
                return created
            }
        })
        return try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }

    private struct ExampleError: Error, CustomStringConvertible {
        var description: String { "this field always fails" }
    }

    private static func order(id: String, amountMinor: Int64, currency: String, status: String) -> JSONValue {
        [
            "id": .string(id), "amountMinor": .int(amountMinor), "currency": .string(currency), "status": .string(status),
            "items": [["sku": "SKU-1", "quantity": 1], ["sku": "SKU-2", "quantity": 2]],
        ]
    }
}
