public import JSON

/// Resolvers and hooks attached to a schema built from SDL.
public struct SchemaResolvers: Sendable {
    /// Field resolvers by type name, then field name.
    public var fields: [String: [String: FieldResolver]] = [:]
    /// Type resolvers of interfaces and unions by type name.
    public var typeResolvers: [String: TypeResolver] = [:]
    /// Custom scalar hooks by scalar name.
    public var scalars: [String: ScalarHooks] = [:]

    /// No resolvers: every field reads the property named like it.
    public init() {}

    /// Sets the resolver of `typeName.fieldName`.
    public mutating func field(_ typeName: String, _ fieldName: String, _ resolver: FieldResolver) {
        fields[typeName, default: [:]][fieldName] = resolver
    }

    /// Sets how values of interface or union `typeName` find their object type.
    public mutating func resolveType(_ typeName: String, _ resolver: TypeResolver) {
        typeResolvers[typeName] = resolver
    }

    /// Sets the hooks of custom scalar `name`.
    public mutating func scalar(_ name: String, _ hooks: ScalarHooks) {
        scalars[name] = hooks
    }
}

/// Coercion hooks of a custom scalar (see ``GraphQLScalarType``).
public struct ScalarHooks: Sendable {
    /// Resolver value → response JSON.
    public var serialize: (@Sendable (any Sendable) throws -> JSONValue)?
    /// Input JSON → internal value.
    public var parseValue: (@Sendable (JSONValue) throws -> JSONValue)?

    /// Creates hooks; a missing hook passes JSON through.
    public init(
        serialize: (@Sendable (any Sendable) throws -> JSONValue)? = nil,
        parseValue: (@Sendable (JSONValue) throws -> JSONValue)? = nil
    ) {
        self.serialize = serialize
        self.parseValue = parseValue
    }
}

/// The SDL could not be turned into a valid schema.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// Every problem found (syntax, SDL validation, type-system validation, resolvers).
    public var errors: [GraphQLError]

    /// Wraps errors.
    public init(errors: [GraphQLError]) { self.errors = errors }

    /// One problem per line, each as `line:column message`.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

extension GraphQLSchema {
    /// Builds a schema from SDL (graphql-js `buildSchema`), attaches `resolvers`,
    /// and validates it (SDL rules, then ``validateSchema(_:)``).
    ///
    /// - Throws: ``SchemaError`` with every problem found.
    public convenience init(sdl: String, resolvers: SchemaResolvers = SchemaResolvers()) throws(SchemaError) {
        let document: Document
        do {
            document = try Parser.parse(Source(body: sdl, name: "GraphQL schema"), limits: .sdl)
        } catch {
            throw SchemaError(errors: [error])
        }
        try self.init(document: document, resolvers: resolvers)
    }

    /// Builds a schema from a parsed SDL document (see ``init(sdl:resolvers:)``).
    public convenience init(document: Document, resolvers: SchemaResolvers = SchemaResolvers()) throws(SchemaError) {
        let sdlErrors = validateSDL(document)
        if !sdlErrors.isEmpty { throw SchemaError(errors: sdlErrors) }
        var builder = SchemaBuilder(document: document, resolvers: resolvers)
        let parts = builder.build()
        if !builder.errors.isEmpty { throw SchemaError(errors: builder.errors) }
        self.init(types: parts.types, query: parts.query, mutation: parts.mutation, subscription: parts.subscription,
                  directives: parts.directives, description: parts.description)
        let typeErrors = validateSchema(self)
        if !typeErrors.isEmpty { throw SchemaError(errors: typeErrors) }
    }
}

/// Turns type-system definitions and extensions into schema types (graphql-js `extendSchemaImpl`).
struct SchemaBuilder {
    struct Parts {
        var types: [GraphQLNamedType]
        var query: String?
        var mutation: String?
        var subscription: String?
        var directives: [GraphQLDirective]
        var description: String?
    }

    let document: Document
    let resolvers: SchemaResolvers
    var errors: [GraphQLError] = []

    init(document: Document, resolvers: SchemaResolvers) {
        self.document = document
        self.resolvers = resolvers
    }

    mutating func build() -> Parts {
        var typeDefinitions: [TypeDefinition] = []
        var extensions: [String: [TypeExtension]] = [:]
        var directiveDefinitions: [DirectiveDefinition] = []
        var schemaDefinition: SchemaDefinition?
        var schemaExtensions: [SchemaExtension] = []
        for definition in document.definitions {
            switch definition {
            case .type(let type): typeDefinitions.append(type)
            case .typeExtension(let ext): extensions[ext.name.value, default: []].append(ext)
            case .directive(let directive): directiveDefinitions.append(directive)
            case .schema(let schema): schemaDefinition = schema
            case .schemaExtension(let ext): schemaExtensions.append(ext)
            case .operation, .fragment: break
            }
        }

        // Pass 1: types without default values; then defaults coerced against the
        // previous pass's schema until they stop changing, so an input default that
        // omits a field picks up that field's own default (as graphql-js does lazily).
        var types = typeDefinitions.map { buildType($0, extensions: extensions[$0.name.value] ?? [], defaults: nil) }
        var directives = directiveDefinitions.map { buildDirective($0, defaults: nil) }
        var previousDefaults: [JSONValue?] = []
        for _ in 0..<(typeDefinitions.count + 2) {
            let provisional = GraphQLSchema(types: types, query: nil, directives: directives)
            errors.removeAll()
            types = typeDefinitions.map { buildType($0, extensions: extensions[$0.name.value] ?? [], defaults: provisional) }
            directives = directiveDefinitions.map { buildDirective($0, defaults: provisional) }
            let defaults = SchemaBuilder.allDefaults(types, directives)
            if defaults == previousDefaults { break }
            previousDefaults = defaults
        }

        var query: String?, mutation: String?, subscription: String?
        let operationTypes = (schemaDefinition?.operationTypes ?? []) + schemaExtensions.flatMap(\.operationTypes)
        if schemaDefinition == nil, schemaExtensions.allSatisfy({ $0.operationTypes.isEmpty }) {
            let names = Set(types.map(\.name))
            query = names.contains("Query") ? "Query" : nil
            mutation = names.contains("Mutation") ? "Mutation" : nil
            subscription = names.contains("Subscription") ? "Subscription" : nil
        } else {
            for operationType in operationTypes {
                switch operationType.operation {
                case .query: query = operationType.type.name.value
                case .mutation: mutation = operationType.type.name.value
                case .subscription: subscription = operationType.type.name.value
                }
            }
        }
        types = attachResolvers(types)
        return Parts(types: types, query: query, mutation: mutation, subscription: subscription,
                     directives: directives, description: schemaDefinition?.description?.value)
    }

    static func allDefaults(_ types: [GraphQLNamedType], _ directives: [GraphQLDirective]) -> [JSONValue?] {
        var values: [JSONValue?] = []
        for type in types {
            for field in type.fields ?? [] { values += field.arguments.map(\.defaultValue) }
            if case .inputObject(let input) = type { values += input.fields.map(\.defaultValue) }
        }
        for directive in directives { values += directive.arguments.map(\.defaultValue) }
        return values
    }

    // MARK: Types

    mutating func buildType(_ definition: TypeDefinition, extensions: [TypeExtension], defaults: GraphQLSchema?) -> GraphQLNamedType {
        switch definition {
        case .scalar(let node):
            let allDirectives = node.directives + extensions.flatMap(\.directives)
            var scalar = GraphQLScalarType(name: node.name.value, description: node.description?.value)
            if let builtin = GraphQLScalarType.specified.first(where: { $0.name == node.name.value }) {
                scalar = builtin
            }
            scalar.specifiedByURL = stringArgument(allDirectives, directive: "specifiedBy", argument: "url")
            return .scalar(scalar)
        case .object(let node):
            var fields = node.fields
            var interfaces = node.interfaces
            for case .object(let ext) in extensions {
                fields += ext.fields
                interfaces += ext.interfaces
            }
            return .object(GraphQLObjectType(
                name: node.name.value,
                fields: fields.map { buildField($0, defaults: defaults) },
                interfaces: interfaces.map(\.name.value),
                description: node.description?.value
            ))
        case .interface(let node):
            var fields = node.fields
            var interfaces = node.interfaces
            for case .interface(let ext) in extensions {
                fields += ext.fields
                interfaces += ext.interfaces
            }
            return .interface(GraphQLInterfaceType(
                name: node.name.value,
                fields: fields.map { buildField($0, defaults: defaults) },
                interfaces: interfaces.map(\.name.value),
                description: node.description?.value
            ))
        case .union(let node):
            var members = node.types
            for case .union(let ext) in extensions { members += ext.types }
            return .union(GraphQLUnionType(name: node.name.value, members: members.map(\.name.value), description: node.description?.value))
        case .enumType(let node):
            var values = node.values
            for case .enumType(let ext) in extensions { values += ext.values }
            return .enum(GraphQLEnumType(
                name: node.name.value,
                values: values.map {
                    GraphQLEnumValueDefinition(name: $0.name.value, description: $0.description?.value, deprecationReason: deprecationReason($0.directives))
                },
                description: node.description?.value
            ))
        case .inputObject(let node):
            var fields = node.fields
            for case .inputObject(let ext) in extensions { fields += ext.fields }
            let allDirectives = node.directives + extensions.flatMap(\.directives)
            return .inputObject(GraphQLInputObjectType(
                name: node.name.value,
                fields: fields.map { buildInputValue($0, defaults: defaults) },
                description: node.description?.value,
                isOneOf: allDirectives.contains { $0.name.value == "oneOf" }
            ))
        }
    }

    mutating func buildField(_ node: FieldDefinition, defaults: GraphQLSchema?) -> GraphQLFieldDefinition {
        GraphQLFieldDefinition(
            name: node.name.value,
            type: ValueCoercion.typeReference(node.type),
            arguments: node.arguments.map { buildInputValue($0, defaults: defaults) },
            description: node.description?.value,
            deprecationReason: deprecationReason(node.directives)
        )
    }

    mutating func buildInputValue(_ node: InputValueDefinition, defaults: GraphQLSchema?) -> GraphQLInputValueDefinition {
        let type = ValueCoercion.typeReference(node.type)
        var defaultValue: JSONValue?
        if let literal = node.defaultValue, let schema = defaults {
            defaultValue = ValueCoercion.coerceLiteral(literal, to: type, in: schema, variables: nil)
            if defaultValue == nil {
                errors.append(GraphQLError(
                    "Default value \(ValueCoercion.print(literal)) of \"\(node.name.value)\" is not a valid \"\(type)\".",
                    at: [literal.loc], in: document.source
                ))
            }
        }
        return GraphQLInputValueDefinition(
            name: node.name.value,
            type: type,
            defaultValue: defaultValue,
            description: node.description?.value,
            deprecationReason: deprecationReason(node.directives)
        )
    }

    mutating func buildDirective(_ node: DirectiveDefinition, defaults: GraphQLSchema?) -> GraphQLDirective {
        GraphQLDirective(
            name: node.name.value,
            locations: node.locations.compactMap { DirectiveLocation(rawValue: $0.value) },
            arguments: node.arguments.map { buildInputValue($0, defaults: defaults) },
            description: node.description?.value,
            isRepeatable: node.repeatable
        )
    }

    func deprecationReason(_ directives: [Directive]) -> String? {
        guard let directive = directives.first(where: { $0.name.value == "deprecated" }) else { return nil }
        if let argument = directive.arguments.first(where: { $0.name.value == "reason" }), case .string(let reason) = argument.value {
            return reason.value
        }
        return GraphQLDirective.defaultDeprecationReason
    }

    func stringArgument(_ directives: [Directive], directive name: String, argument: String) -> String? {
        guard let directive = directives.first(where: { $0.name.value == name }),
              let node = directive.arguments.first(where: { $0.name.value == argument }),
              case .string(let value) = node.value else { return nil }
        return value.value
    }

    // MARK: Resolvers

    mutating func attachResolvers(_ types: [GraphQLNamedType]) -> [GraphQLNamedType] {
        var result = types
        var known = Set<String>()
        for (index, type) in types.enumerated() {
            known.insert(type.name)
            switch type {
            case .object(var object):
                for (fieldName, resolver) in resolvers.fields[object.name] ?? [:] where !object.setResolver(resolver, forField: fieldName) {
                    errors.append(GraphQLError("Resolver given for unknown field \"\(object.name).\(fieldName)\"."))
                }
                result[index] = .object(object)
            case .interface(var interface):
                interface.resolveType = resolvers.typeResolvers[interface.name]
                result[index] = .interface(interface)
            case .union(var union):
                union.resolveType = resolvers.typeResolvers[union.name]
                result[index] = .union(union)
            case .scalar(var scalar):
                if let hooks = resolvers.scalars[scalar.name] {
                    if scalar.isSpecified {
                        errors.append(GraphQLError("Scalar hooks given for built-in scalar \"\(scalar.name)\"."))
                    }
                    scalar.serialize = hooks.serialize
                    scalar.parseValue = hooks.parseValue
                    result[index] = .scalar(scalar)
                }
            default:
                break
            }
        }
        for typeName in resolvers.fields.keys where !known.contains(typeName) {
            errors.append(GraphQLError("Resolvers given for unknown type \"\(typeName)\"."))
        }
        for typeName in resolvers.typeResolvers.keys {
            switch types.first(where: { $0.name == typeName }) {
            case .interface?, .union?: break
            default: errors.append(GraphQLError("Type resolver given for \"\(typeName)\", which is not an interface or union."))
            }
        }
        for name in resolvers.scalars.keys where !types.contains(where: { if case .scalar = $0 { return $0.name == name } else { return false } }) {
            errors.append(GraphQLError("Scalar hooks given for unknown scalar \"\(name)\"."))
        }
        return result
    }
}
