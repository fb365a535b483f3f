import GraphQL
import JSON
import Testing

/// Completion of JSON-backed objects (the executor's in-place path): member
/// positions that change from object to object, missing members, leaf errors
/// at the right path, `__typename` anywhere in an object, and async fields in
/// the middle of a selection keeping the response's key order.
@Suite struct JSONSourceExecutionTests {
    static let sdl = """
    type Query { items: [Item!] nullableItems: [Item] shapes: [Shape!] required: Item! slow: String first: String last: String }
    type Item { id: ID! label: String rank: Int tier: Tier }
    enum Tier { GOLD SILVER }
    interface Shape { name: String! }
    type Circle implements Shape { name: String! radius: Float }
    type Square implements Shape { name: String! side: Int }
    """

    let schema: GraphQLSchema

    init() throws {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "slow", .async { _ in
            await Task.yield()
            return JSONValue.string("late")
        })
        schema = try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers)
    }

    func run(_ query: String, root: String) async throws -> String {
        let rootValue = try JSONParser.parse(root)
        // Twice through one engine: the second run uses the cached plan and the
        // member positions the first one remembered.
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 10)
        let first = JSONWriter.string(await TestSupport.both(engine, GraphQLRequest(query: query), rootValue: rootValue).json)
        let second = JSONWriter.string(await TestSupport.both(engine, GraphQLRequest(query: query), rootValue: rootValue).json)
        #expect(first == second)
        return first
    }

    @Test func membersInAnyOrderAndMissingMembers() async throws {
        let root = #"""
        {"items":[{"id":"a","label":"A","rank":1,"tier":"GOLD"},
                  {"tier":"SILVER","rank":2,"label":"B","id":"b"},
                  {"id":"c"},
                  {"extra":true,"label":null,"id":"d","rank":4}]}
        """#
        let text = try await run("{ items { id label rank tier } }", root: root)
        #expect(text == #"{"data":{"items":[{"id":"a","label":"A","rank":1,"tier":"GOLD"},{"id":"b","label":"B","rank":2,"tier":"SILVER"},{"id":"c","label":null,"rank":null,"tier":null},{"id":"d","label":null,"rank":4,"tier":null}]}}"#)
    }

    @Test func aliasesRepeatAPropertyAndKeepSelectionOrder() async throws {
        let text = try await run("{ items { b: label id a: label } }", root: #"{"items":[{"id":"1","label":"x"},{"label":"y","id":"2"}]}"#)
        #expect(text == #"{"data":{"items":[{"b":"x","id":"1","a":"x"},{"b":"y","id":"2","a":"y"}]}}"#)
    }

    @Test func leafSerializationErrorsAreReportedAtTheirPath() async throws {
        let root = #"{"nullableItems":[{"id":"1","rank":1},{"id":"2","rank":"two","tier":"BRONZE"},{"id":"3","rank":3000000000}]}"#
        let text = try await run("{ nullableItems { id rank tier } }", root: root)
        #expect(text == #"{"errors":[{"message":"Int cannot represent non-integer value: \"two\"","locations":[{"line":1,"column":22}],"path":["nullableItems",1,"rank"]},{"message":"Enum \"Tier\" cannot represent value: \"BRONZE\"","locations":[{"line":1,"column":27}],"path":["nullableItems",1,"tier"]},{"message":"Int cannot represent non 32-bit signed integer value: 3000000000","locations":[{"line":1,"column":22}],"path":["nullableItems",2,"rank"]}],"data":{"nullableItems":[{"id":"1","rank":1,"tier":null},{"id":"2","rank":null,"tier":null},{"id":"3","rank":null,"tier":null}]}}"#)
    }

    @Test func missingNonNullLeafNullsItsParentAtTheRightPath() async throws {
        // Item.id is ID!: item 1 lacks it (null propagates to the nullable list item);
        // in `items` ([Item!]) the whole list becomes null.
        let root = #"{"nullableItems":[{"id":"1"},{"label":"no id"}],"items":[{"id":"1"},{"id":null}]}"#
        let text = try await run("{ nullableItems { label id } items { id } }", root: root)
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Item.id.","locations":[{"line":1,"column":25}],"path":["nullableItems",1,"id"]},{"message":"Cannot return null for non-nullable field Item.id.","locations":[{"line":1,"column":38}],"path":["items",1,"id"]}],"data":{"nullableItems":[{"label":null,"id":"1"},null],"items":null}}"#)
    }

    @Test func nonNullObjectMissingNullsData() async throws {
        let text = try await run("{ first required { id } }", root: #"{"first":"f"}"#)
        #expect(text == #"{"errors":[{"message":"Cannot return null for non-nullable field Query.required.","locations":[{"line":1,"column":9}],"path":["required"]}],"data":null}"#)
    }

    @Test func typenameAnywhereInTheObject() async throws {
        let root = #"""
        {"shapes":[{"__typename":"Circle","name":"c","radius":1.5},
                   {"name":"s","side":2,"__typename":"Square"},
                   {"radius":2,"name":"c2","__typename":"Circle"}]}
        """#
        let query = "{ shapes { __typename name ... on Circle { radius } ... on Square { side } } }"
        let text = try await run(query, root: root)
        #expect(text == #"{"data":{"shapes":[{"__typename":"Circle","name":"c","radius":1.5},{"__typename":"Square","name":"s","side":2},{"__typename":"Circle","name":"c2","radius":2}]}}"#)
    }

    @Test func abstractValueWithoutOrWithBadTypename() async throws {
        let missing = try await run("{ shapes { name } }", root: #"{"shapes":[{"name":"x"}]}"#)
        #expect(missing.contains(#""message":"Abstract type \"Shape\" must resolve to an Object type at runtime for field \"Query.shapes\"."#))
        #expect(missing.hasSuffix(#""path":["shapes",0]}],"data":{"shapes":null}}"#))
        let notString = try await run("{ shapes { name } }", root: #"{"shapes":[{"name":"x","__typename":7}]}"#)
        #expect(notString.contains("must resolve to an Object type at runtime"))
        let unknown = try await run("{ shapes { name } }", root: #"{"shapes":[{"__typename":"Triangle","name":"x"}]}"#)
        #expect(unknown.contains(#"Abstract type \"Shape\" was resolved to a type \"Triangle\" that does not exist inside the schema."#))
    }

    @Test func customScalarsOnJSONPropertiesPassThroughOrRunTheirHook() async throws {
        let sdl = """
        scalar Raw
        scalar Cents
        type Query { items: [Item] }
        type Item { raw: Raw cents: Cents list: [Cents] }
        """
        var resolvers = SchemaResolvers()
        resolvers.scalar("Cents", ScalarHooks(serialize: { value in
            guard let json = value as? JSONValue, case .int(let cents) = json else { throw ScalarCoercionError("Cents must be an integer") }
            return .string("\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)")
        }))
        let schema = try GraphQLSchema(sdl: sdl, resolvers: resolvers)
        let root = try JSONParser.parse(#"{"items":[{"raw":{"any":[1,"json"]},"cents":1250,"list":[5,100]},{"raw":7,"cents":"x"}]}"#)
        let engine = GraphQLEngine(schema: schema, cacheCapacity: 10)
        for _ in 0..<2 {
            let text = JSONWriter.string(await TestSupport.both(engine, GraphQLRequest(query: "{ items { raw cents list } }"), rootValue: root).json)
            #expect(text == #"{"errors":[{"message":"Cents must be an integer","locations":[{"line":1,"column":15}],"path":["items",1,"cents"]}],"data":{"items":[{"raw":{"any":[1,"json"]},"cents":"12.50","list":["0.05","1.00"]},{"raw":7,"cents":null,"list":null}]}}"#)
        }
    }

    @Test func asyncFieldInTheMiddleKeepsKeyOrder() async throws {
        let text = try await run("{ first slow last items { id } }", root: #"{"last":"z","first":"a","items":[{"id":"1"}]}"#)
        #expect(text == #"{"data":{"first":"a","slow":"late","last":"z","items":[{"id":"1"}]}}"#)
    }
}
