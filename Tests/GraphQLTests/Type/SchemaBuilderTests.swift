import GraphQL
import JSON
import Testing

/// Building schemas from SDL: types, extensions, defaults, directives, look-ups.
@Suite struct SchemaBuilderTests {
    static let sdl = """
    "Docs"
    schema { query: Q }
    type Q { a(x: Int = 3, list: [Int] = 1, e: E = B, in: In = {y: 2}): String  node: I2 u: U }
    interface I1 { id: ID! }
    interface I2 implements I1 { id: ID! name: String }
    type T implements I2 & I1 { id: ID! name: String }
    type S implements I1 { id: ID! }
    union U = T
    extend union U = S
    enum E { A B @deprecated(reason: "no") }
    extend enum E { C }
    input In { y: Int!, z: String = "zz", deep: Deep = {} }
    input Deep { w: Int = 7 }
    scalar Money @specifiedBy(url: "https://example.com/money")
    extend type Q { money: Money }
    """

    @Test func typesAndRootsFromSDL() throws {
        let schema = try GraphQLSchema(sdl: Self.sdl)
        #expect(schema.description == "Docs")
        #expect(schema.queryTypeName == "Q")
        #expect(schema.queryType?.fields.map(\.name) == ["a", "node", "u", "money"])
        #expect(schema.type(named: "Int") != nil)
        #expect(schema.type(named: "Float") == nil)
        #expect(schema.type(named: "__Schema") != nil)
        guard case .scalar(let money)? = schema.type(named: "Money") else { Issue.record("Money missing"); return }
        #expect(money.specifiedByURL == "https://example.com/money")
        guard case .enum(let e)? = schema.type(named: "E") else { Issue.record("E missing"); return }
        #expect(e.values.map(\.name) == ["A", "B", "C"])
        #expect(e.value(named: "B")?.deprecationReason == "no")
    }

    @Test func defaultValuesAreCoerced() throws {
        let schema = try GraphQLSchema(sdl: Self.sdl)
        let field = try #require(schema.queryType?.field(named: "a"))
        #expect(field.argument(named: "x")?.defaultValue == .int(3))
        #expect(field.argument(named: "list")?.defaultValue == .array([.int(1)]))
        #expect(field.argument(named: "e")?.defaultValue == .string("B"))
        #expect(field.argument(named: "in")?.defaultValue == .object(["y": .int(2), "z": "zz", "deep": .object(["w": .int(7)])]))
    }

    @Test func abstractTypeRelations() throws {
        let schema = try GraphQLSchema(sdl: Self.sdl)
        #expect(schema.possibleTypes(of: "I1").map(\.name) == ["T", "S"])
        #expect(schema.possibleTypes(of: "I2").map(\.name) == ["T"])
        #expect(schema.possibleTypes(of: "U").map(\.name) == ["T", "S"])
        #expect(schema.isSubType("I2", of: "I1"))
        #expect(schema.isSubType("T", of: "I2"))
        #expect(!schema.isSubType("S", of: "I2"))
        #expect(schema.interfacesImplementing("I1") == ["I2"])
        #expect(schema.doTypesOverlap("I2", "U"))
        #expect(!schema.doTypesOverlap("S", "I2"))
        #expect(schema.isTypeSubType(.nonNull(.named("T")), of: .named("I1")))
        #expect(!schema.isTypeSubType(.named("T"), of: .nonNull(.named("I1"))))
        #expect(schema.isTypeSubType(.list(.nonNull(.named("T"))), of: .list(.named("U"))))
        #expect(schema.isInputType(.list(.named("In"))))
        #expect(!schema.isOutputType(.named("In")))
        #expect(schema.fieldDefinition(on: "T", named: "__typename")?.type == .nonNull(.named("String")))
        #expect(schema.fieldDefinition(on: "Q", named: "__schema") != nil)
        #expect(schema.fieldDefinition(on: "T", named: "__schema") == nil)
    }

    @Test func resolversForUnknownFieldsAreRejected() {
        var resolvers = SchemaResolvers()
        resolvers.field("Q", "nope", .sync { _ in nil })
        resolvers.field("Missing", "x", .sync { _ in nil })
        #expect(throws: SchemaError.self) { try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers) }
        do {
            _ = try GraphQLSchema(sdl: Self.sdl, resolvers: resolvers)
        } catch {
            #expect(error.errors.map(\.message) == [#"Resolver given for unknown field "Q.nope"."#, #"Resolvers given for unknown type "Missing"."#])
        }
    }

    @Test func customScalarHooksRunBothWays() async throws {
        var resolvers = SchemaResolvers()
        resolvers.scalar("Money", ScalarHooks(
            serialize: { value in .string("₹" + String(describing: value)) },
            parseValue: { value in
                guard case .string(let text) = value, text.hasPrefix("₹") else { throw ScalarCoercionError("Money must look like ₹12") }
                return .string(String(text.dropFirst()))
            }
        ))
        resolvers.field("Q", "money", .sync { _ in 1250 })
        resolvers.field("Q", "a", .sync { input in input.arguments["x"]?.intValue.map(String.init) })
        let schema = try GraphQLSchema(sdl: Self.sdl + "\nextend type Q { pay(m: Money!): String }", resolvers: {
            var all = resolvers
            all.field("Q", "pay", .sync { input in input.arguments["m"]?.stringValue })
            return all
        }())
        #expect(TestSupport.text(await TestSupport.run(schema, "{ money a }")) == #"{"data":{"money":"₹1250","a":"3"}}"#)
        #expect(TestSupport.text(await TestSupport.run(schema, #"{ pay(m: "₹99") }"#)) == #"{"data":{"pay":"99"}}"#)
        let bad = await TestSupport.run(schema, "query ($m: Money!) { pay(m: $m) }", variables: ["m": "12"])
        #expect(bad.errors.map(\.message) == [#"Variable "$m" got invalid value "12"; Expected type "Money". Money must look like ₹12"#])
    }

    @Test func syntaxErrorsSurfaceWithLocation() {
        do {
            _ = try GraphQLSchema(sdl: "type Q {")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.errors.first?.locations.first?.line == 1)
        }
    }
}
