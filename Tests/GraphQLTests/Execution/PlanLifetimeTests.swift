import GraphQL
import JSON
import Synchronization
import Testing

/// A field plan is a view of storage its operation plan owns, pointing into the
/// document and the schema's planning catalog: a `ResolveInfo` a resolver keeps
/// must stay readable after the execution, the document and the schema are gone.
@Suite struct PlanLifetimeTests {
    final class Kept: Sendable {
        let infos = Mutex<[ResolveInfo]>([])
    }

    static func executeKeeping(_ kept: Kept, key: String) async throws -> String {
        var resolvers = SchemaResolvers()
        resolvers.field("Query", "thing", .sync { input in
            kept.infos.withLock { $0.append(input.info) }
            return JSONValue.object(["name": "n"])
        })
        let schema = try GraphQLSchema(sdl: "type Query { thing(id: ID, other: Int): Thing } type Thing { name: String }", resolvers: resolvers)
        // Built at run time, so that the document's strings and arrays are its own.
        let document = try Parser.parse("query Q($v: Int) { \(key): thing(id: \"\(key)-1\", other: $v) { name } }")
        let result = await execute(schema: schema, request: ExecutionRequest(document: document, variables: ["v": 7]))
        return JSONWriter.string(result.json)
    }

    @Test func resolveInfoKeptByAResolverOutlivesTheExecution() async throws {
        let kept = Kept()
        let response = try await Self.executeKeeping(kept, key: "firstAliasOfThing")
        #expect(response.contains("\"firstAliasOfThing\""))
        // Another execution reuses the memory the first one freed.
        _ = try await Self.executeKeeping(Kept(), key: "anotherAliasOfThing")
        let info = try #require(kept.infos.withLock { $0.first })
        #expect(info.fieldName == "thing")
        #expect(info.parentType == "Query")
        #expect(info.responseKey == "firstAliasOfThing")
        #expect(info.returnType == .named("Thing"))
        #expect(info.fieldNodes.count == 1)
        #expect(info.fieldNodes.first?.alias?.value == "firstAliasOfThing")
        #expect(info.fieldNodes.first?.arguments.map(\.name.value) == ["id", "other"])
        #expect(info.fieldNodes.first?.selectionSet?.selections.count == 1)
        #expect(info.path.json == ["firstAliasOfThing"])
    }
}
