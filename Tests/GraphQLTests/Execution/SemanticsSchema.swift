import GraphQL
import JSON
import Synchronization

/// The execution-semantics schema with its resolvers and counters.
final class SemanticsFixture: Sendable {
    /// What the resolvers observed.
    final class Recorder: Sendable {
        /// Batch calls made by the author loader, with their keys.
        let authorBatches = Mutex<[[String]]>([])
        /// Mutation start/end events in order.
        let events = Mutex<[String]>([])
        /// How many of slowA/slowB have started.
        let started = Mutex(0)
    }

    let recorder = Recorder()
    let schema: GraphQLSchema

    init() throws {
        let sdl = try TestSupport.fixture("execution/semantics.graphql")
        let recorder = recorder
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "hello", .sync { input in "hello " + (input[argument: "name"]?.stringValue ?? "?") })
        resolvers.field("Query", "context", .sync { input in
            (input.context as? String).map { "\($0) at \(input.info.responseKey) (\(input.info.fieldNodes.count) node)" }
        })
        resolvers.field("Query", "nonNullNull", .sync { _ in nil })
        resolvers.field("Query", "nullableThrows", .sync { _ in throw TestFailure(message: "nope") })
        resolvers.field("Query", "nested", .sync { _ in JSONValue.object(["required": nil, "optional": "x", "child": .object(["required": "ok"])]) })
        resolvers.field("Query", "items", .sync { _ in
            JSONValue.array([.object(["id": "1", "name": "one"]), .object(["id": "2"])])
        })
        resolvers.field("Query", "nullableItems", .sync { _ in
            [JSONValue.object(["id": "1", "name": "one"]), JSONValue.object(["id": "2"])] as [any Sendable]
        })
        resolvers.field("Query", "pets", .sync { _ in
            JSONValue.array([.object(["__typename": "Dog", "name": "Rex", "barks": true]), .object(["__typename": "Cat", "name": "Tom", "meows": false])])
        })
        resolvers.field("Query", "search", .async { _ in
            [JSONValue.object(["__typename": "Dog", "name": "Rex"]) as any Sendable, JSONValue.object(["__typename": "Item", "id": "9", "name": "nine"])]
        })
        resolvers.field("Query", "kitten", .sync { _ in Kitten(name: "Kit") })
        resolvers.field("Query", "untyped", .sync { _ in JSONValue.object(["name": "Nobody"]) })
        resolvers.field("Query", "echo", .sync { input in JSONWriter.string(.object(input.arguments)) })
        resolvers.field("Query", "boom", .async { _ in throw TestFailure(message: "async boom") })
        let waitForBoth: FieldResolver = .async { _ in
            recorder.started.withLock { $0 += 1 }
            for _ in 0..<200 {
                if recorder.started.withLock({ $0 }) >= 2 { return true }
                try await Task.sleep(for: .milliseconds(5))
            }
            return false
        }
        resolvers.field("Query", "slowA", waitForBoth)
        resolvers.field("Query", "slowB", waitForBoth)
        resolvers.field("Query", "numbers", .sync { _ in [1, 2, 3] as [any Sendable] })
        resolvers.field("Query", "badInt", .sync { _ in "twelve" })
        resolvers.field("Query", "reportable", .sync { _ in throw CodedFailure() })
        resolvers.field("Query", "authors", .sync { _ in
            (1...5).map { JSONValue.object(["title": .string("Book \($0)"), "authorId": .string("a\($0 % 3)")]) as any Sendable }
        })
        resolvers.field("Book", "author", .sync { input in
            let loader = input.loaders.loader("authors") {
                BatchLoader<String, JSONValue> { keys in
                    recorder.authorBatches.withLock { $0.append(keys) }
                    return keys.map { JSONValue.object(["id": .string($0), "name": .string("Author " + $0)]) }
                }
            }
            guard let source = input.source as? JSONValue, let id = source["authorId"]?.stringValue else { return nil }
            return loader.load(id)
        })
        for name in ["first", "second"] {
            resolvers.field("Mutation", name, .async { _ in
                recorder.events.withLock { $0.append("start " + name) }
                try await Task.sleep(for: .milliseconds(name == "first" ? 30 : 1))
                recorder.events.withLock { $0.append("end " + name) }
                return name == "first" ? 1 : 2
            })
        }
        resolvers.resolveType("Pet", TypeResolver { value, _ in
            if value is Kitten { return "Cat" }
            return (value as? JSONValue)?["__typename"]?.stringValue
        })
        schema = try GraphQLSchema(sdl: sdl, resolvers: resolvers)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

struct CodedFailure: GraphQLReportableError {
    var graphQLMessage: String { "Payment declined" }
    var graphQLExtensions: JSONObject { ["code": "DECLINED"] }
}

/// A resolver value that names its own type (for the union test).
struct Kitten: GraphQLTypeNamed, GraphQLFieldReadable {
    let name: String
    var graphQLTypeName: String { "Cat" }
    func graphQLField(_ field: String) -> (any Sendable)? { field == "name" ? name : nil }
}
