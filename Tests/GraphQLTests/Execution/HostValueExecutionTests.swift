import GraphQL
import JSON
import Testing

/// Completion of host values (what the Gateway's views return): objects read
/// through `GraphQLFieldReadable` or `[String: any Sendable]`, and leaves that are
/// plain Swift values. Each must complete exactly as the same data given as JSON
/// does (the executor tells these values apart by their type, casting each
/// parent once, and must not change an outcome or a message on the way).
@Suite struct HostValueExecutionTests {
    static let sdl = """
    type Query { item: Item items: [Item] entry: Item }
    type Item {
      text: String id: ID count: Int big: Int ratio: Float flag: Boolean tier: Tier
      asText: String asID: ID asInt: Int asFlag: Boolean asFloat: Float
      required: String! child: Item children: [Item!]
    }
    enum Tier { GOLD SILVER }
    """

    /// A view whose fields are read by name, like the Gateway's.
    struct View: GraphQLFieldReadable {
        let fields: [String: any Sendable]
        func graphQLField(_ name: String) -> (any Sendable)? { fields[name] }
    }

    /// The same data as a view (with Swift leaves), as a dictionary, and as JSON.
    static func item(_ depth: Int, text: String, count: Int, tier: String) -> (view: View, dictionary: [String: any Sendable], json: JSONValue) {
        var fields: [String: any Sendable] = [
            "text": text, "id": Int64(7), "count": count, "big": Int32(-3), "ratio": 2.5, "flag": true, "tier": tier,
            "asText": 42, "asID": 9, "asInt": false, "asFlag": 0.0, "asFloat": Int64(3), "required": text,
        ]
        var object: JSONObject = [
            "text": .string(text), "id": .int(7), "count": .int(Int64(count)), "big": .int(-3), "ratio": .double(2.5),
            "flag": .bool(true), "tier": .string(tier), "asText": .int(42), "asID": .int(9), "asInt": .bool(false),
            "asFlag": .double(0), "asFloat": .int(3), "required": .string(text),
        ]
        var dictionary = fields
        if depth > 0 {
            let child = item(depth - 1, text: text + ".child", count: count + 1, tier: "SILVER")
            let other = item(depth - 1, text: text + ".other", count: count + 2, tier: "GOLD")
            fields["child"] = child.view
            fields["children"] = [child.view, other.view] as [any Sendable]
            dictionary["child"] = child.dictionary
            dictionary["children"] = [child.dictionary, other.dictionary] as [any Sendable]
            object["child"] = child.json
            object["children"] = .array([child.json, other.json])
        }
        return (View(fields: fields), dictionary, .object(object))
    }

    func response(_ query: String, _ source: any Sendable) async throws -> String {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "item", .sync { _ in source })
        resolvers.field("Query", "items", .sync { _ in [source, source] as [any Sendable] })
        let schema = try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers)
        return JSONWriter.string(await TestSupport.run(schema, query).json)
    }

    static let leaves = "text id count big ratio flag tier asText asID asInt asFlag asFloat required"

    @Test func viewsAndDictionariesCompleteLikeTheSameJSON() async throws {
        let data = Self.item(2, text: "a", count: 1, tier: "GOLD")
        let query = "{ item { \(Self.leaves) child { \(Self.leaves) children { text tier count } } children { text child { id } } } "
            + "items { text count children { tier } } }"
        let expected = try await response(query, data.json)
        #expect(expected.contains("\"asText\":\"42\""))
        #expect(expected.contains("\"asInt\":0"))
        #expect(try await response(query, data.view) == expected)
        #expect(try await response(query, data.dictionary) == expected)
    }

    @Test func leafErrorsAreTheSameForSwiftValuesAndJSON() async throws {
        // An enum given a name it lacks, an Int given a fraction and a number too
        // large, a String given a value with no string form, a non-null field given nil.
        for (field, value, json) in [
            ("tier", "BRONZE" as any Sendable, JSONValue.string("BRONZE")),
            ("tier", 3 as any Sendable, JSONValue.int(3)),
            ("count", 2.5 as any Sendable, JSONValue.double(2.5)),
            ("count", Int64(1) << 40 as any Sendable, JSONValue.int(1 << 40)),
            ("flag", "yes" as any Sendable, JSONValue.string("yes")),
            ("asFloat", Double.infinity as any Sendable, JSONValue.double(.infinity)),
        ] {
            let query = "{ item { text \(field) } }"
            let fromJSON = try await response(query, JSONValue.object(["text": .string("t"), field: json]))
            let fromView = try await response(query, View(fields: ["text": "t", field: value]))
            #expect(fromView == fromJSON, "\(field) = \(value)")
            #expect(fromJSON.contains("\"errors\""), "\(field) = \(value)")
        }
        let missing = try await response("{ item { required } }", View(fields: [:]))
        #expect(missing == (try await response("{ item { required } }", JSONValue.object([:]))))
        #expect(missing.contains("Cannot return null for non-nullable field Item.required."))
    }
}
