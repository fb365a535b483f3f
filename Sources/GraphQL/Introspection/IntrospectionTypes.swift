import JSON

/// The value behind a `__Type`: a named type or a list / non-null wrapper.
enum IntrospectedType: Sendable {
    case named(GraphQLNamedType)
    case wrapper(GraphQLTypeReference)

    static func from(_ reference: GraphQLTypeReference, in schema: GraphQLSchema) -> IntrospectedType? {
        if case .named(let name) = reference {
            return schema.type(named: name).map(IntrospectedType.named)
        }
        return .wrapper(reference)
    }
}

/// The introspection types (spec §4.2) and the meta fields `__schema`, `__type`,
/// `__typename`, as ordinary schema types with resolvers.
enum IntrospectionTypes {
    static let typenameField = GraphQLFieldDefinition(
        name: "__typename",
        type: .nonNull(.named("String")),
        description: "The name of the current Object type at runtime.",
        resolver: .sync { input in input.info.parentType }
    )

    static let schemaField = GraphQLFieldDefinition(
        name: "__schema",
        type: .nonNull(.named("__Schema")),
        description: "Access the current type schema of this server.",
        resolver: .sync { input in input.info.schema }
    )

    static let typeField = GraphQLFieldDefinition(
        name: "__type",
        type: .named("__Type"),
        arguments: [GraphQLInputValueDefinition(name: "name", type: .nonNull(.named("String")))],
        description: "Request the type information of a single type.",
        resolver: .sync { input in
            guard case .string(let name)? = input.arguments["name"] else { return nil }
            return input.info.schema.type(named: name).map(IntrospectedType.named)
        }
    )

    static let all: [GraphQLNamedType] = [
        .object(schemaType), .object(directiveType), .enum(directiveLocationType), .object(typeType),
        .object(fieldType), .object(inputValueType), .object(enumValueType), .enum(typeKindType),
    ]

    static func includeDeprecatedArgument() -> GraphQLInputValueDefinition {
        GraphQLInputValueDefinition(name: "includeDeprecated", type: .named("Boolean"), defaultValue: .bool(false))
    }

    static func includeDeprecated(_ input: ResolveInput) -> Bool {
        input.arguments["includeDeprecated"] == .bool(true)
    }

    static func field(
        _ name: String,
        _ type: GraphQLTypeReference,
        arguments: [GraphQLInputValueDefinition] = [],
        _ resolve: @escaping @Sendable (ResolveInput) throws -> (any Sendable)?
    ) -> GraphQLFieldDefinition {
        GraphQLFieldDefinition(name: name, type: type, arguments: arguments, resolver: .sync(resolve))
    }

    static let schemaType = GraphQLObjectType(
        name: "__Schema",
        fields: [
            field("description", .named("String")) { ($0.source as? GraphQLSchema)?.description },
            field("types", .nonNull(.list(.nonNull(.named("__Type"))))) { input in
                (input.source as? GraphQLSchema)?.types.map { IntrospectedType.named($0) as any Sendable }
            },
            field("queryType", .nonNull(.named("__Type"))) { input in
                (input.source as? GraphQLSchema)?.queryType.map { IntrospectedType.named(.object($0)) }
            },
            field("mutationType", .named("__Type")) { input in
                (input.source as? GraphQLSchema)?.mutationType.map { IntrospectedType.named(.object($0)) }
            },
            field("subscriptionType", .named("__Type")) { input in
                (input.source as? GraphQLSchema)?.subscriptionType.map { IntrospectedType.named(.object($0)) }
            },
            field("directives", .nonNull(.list(.nonNull(.named("__Directive"))))) { input in
                (input.source as? GraphQLSchema)?.directives.map { $0 as any Sendable }
            },
        ],
        description: "A GraphQL Schema defines the capabilities of a GraphQL server. It exposes all available types and directives on the server, as well as the entry points for query, mutation, and subscription operations."
    )

    static let directiveType = GraphQLObjectType(
        name: "__Directive",
        fields: [
            field("name", .nonNull(.named("String"))) { ($0.source as? GraphQLDirective)?.name },
            field("description", .named("String")) { ($0.source as? GraphQLDirective)?.description },
            field("isRepeatable", .nonNull(.named("Boolean"))) { ($0.source as? GraphQLDirective)?.isRepeatable },
            field("locations", .nonNull(.list(.nonNull(.named("__DirectiveLocation"))))) { input in
                (input.source as? GraphQLDirective)?.locations.map { $0.rawValue as any Sendable }
            },
            field("args", .nonNull(.list(.nonNull(.named("__InputValue")))), arguments: [includeDeprecatedArgument()]) { input in
                let all = includeDeprecated(input)
                return (input.source as? GraphQLDirective)?.arguments.filter { all || !$0.isDeprecated }.map { $0 as any Sendable }
            },
        ],
        description: "A Directive provides a way to describe alternate runtime execution and type validation behavior in a GraphQL document.\n\nIn some cases, you need to provide options to alter GraphQL's execution behavior in ways field arguments will not suffice, such as conditionally including or skipping a field. Directives provide this by describing additional information to the executor."
    )

    static let directiveLocationType = GraphQLEnumType(
        name: "__DirectiveLocation",
        values: DirectiveLocation.allCases.map { GraphQLEnumValueDefinition(name: $0.rawValue, description: locationDescription($0)) },
        description: "A Directive can be adjacent to many parts of the GraphQL language, a __DirectiveLocation describes one such possible adjacencies."
    )

    static func locationDescription(_ location: DirectiveLocation) -> String {
        switch location {
        case .query: return "Location adjacent to a query operation."
        case .mutation: return "Location adjacent to a mutation operation."
        case .subscription: return "Location adjacent to a subscription operation."
        case .field: return "Location adjacent to a field."
        case .fragmentDefinition: return "Location adjacent to a fragment definition."
        case .fragmentSpread: return "Location adjacent to a fragment spread."
        case .inlineFragment: return "Location adjacent to an inline fragment."
        case .variableDefinition: return "Location adjacent to a variable definition."
        case .schema: return "Location adjacent to a schema definition."
        case .scalar: return "Location adjacent to a scalar definition."
        case .object: return "Location adjacent to an object type definition."
        case .fieldDefinition: return "Location adjacent to a field definition."
        case .argumentDefinition: return "Location adjacent to an argument definition."
        case .interface: return "Location adjacent to an interface definition."
        case .union: return "Location adjacent to a union definition."
        case .enum: return "Location adjacent to an enum definition."
        case .enumValue: return "Location adjacent to an enum value definition."
        case .inputObject: return "Location adjacent to an input object type definition."
        case .inputFieldDefinition: return "Location adjacent to an input object field definition."
        }
    }

    static let typeType = GraphQLObjectType(
        name: "__Type",
        fields: [
            field("kind", .nonNull(.named("__TypeKind"))) { input in
                switch input.source as? IntrospectedType {
                case .named(let type)?: return type.kindName
                case .wrapper(let reference)?: return reference.isNonNull ? "NON_NULL" : "LIST"
                case nil: return nil
                }
            },
            field("name", .named("String")) { input in
                if case .named(let type)? = input.source as? IntrospectedType { return type.name }
                return nil
            },
            field("description", .named("String")) { input in
                if case .named(let type)? = input.source as? IntrospectedType { return type.description }
                return nil
            },
            field("specifiedByURL", .named("String")) { input in
                if case .named(.scalar(let scalar))? = input.source as? IntrospectedType { return scalar.specifiedByURL }
                return nil
            },
            field("fields", .list(.nonNull(.named("__Field"))), arguments: [includeDeprecatedArgument()]) { input in
                guard case .named(let type)? = input.source as? IntrospectedType, let fields = type.fields else { return nil }
                let all = includeDeprecated(input)
                return fields.filter { all || !$0.isDeprecated }.map { $0 as any Sendable }
            },
            field("interfaces", .list(.nonNull(.named("__Type")))) { input in
                guard case .named(let type)? = input.source as? IntrospectedType else { return nil }
                switch type {
                case .object, .interface:
                    return type.interfaces.compactMap { input.info.schema.type(named: $0).map { IntrospectedType.named($0) as any Sendable } }
                default:
                    return nil
                }
            },
            field("possibleTypes", .list(.nonNull(.named("__Type")))) { input in
                guard case .named(let type)? = input.source as? IntrospectedType, type.isAbstractType else { return nil }
                return input.info.schema.possibleTypes(of: type.name).map { IntrospectedType.named(.object($0)) as any Sendable }
            },
            field("enumValues", .list(.nonNull(.named("__EnumValue"))), arguments: [includeDeprecatedArgument()]) { input in
                guard case .named(.enum(let type))? = input.source as? IntrospectedType else { return nil }
                let all = includeDeprecated(input)
                return type.values.filter { all || !$0.isDeprecated }.map { $0 as any Sendable }
            },
            field("inputFields", .list(.nonNull(.named("__InputValue"))), arguments: [includeDeprecatedArgument()]) { input in
                guard case .named(.inputObject(let type))? = input.source as? IntrospectedType else { return nil }
                let all = includeDeprecated(input)
                return type.fields.filter { all || !$0.isDeprecated }.map { $0 as any Sendable }
            },
            field("ofType", .named("__Type")) { input in
                guard case .wrapper(let reference)? = input.source as? IntrospectedType else { return nil }
                switch reference {
                case .list(let inner), .nonNull(let inner): return IntrospectedType.from(inner, in: input.info.schema)
                case .named: return nil
                }
            },
            field("isOneOf", .named("Boolean")) { input in
                guard case .named(.inputObject(let type))? = input.source as? IntrospectedType else { return nil }
                return type.isOneOf
            },
        ],
        description: "The fundamental unit of any GraphQL Schema is the type. There are many kinds of types in GraphQL as represented by the `__TypeKind` enum.\n\nDepending on the kind of a type, certain fields describe information about that type. Scalar types provide no information beyond a name, description and optional `specifiedByURL`, while Enum types provide their values. Object and Interface types provide the fields they describe. Abstract types, Union and Interface, provide the Object types possible at runtime. List and NonNull types compose other types."
    )

    static let fieldType = GraphQLObjectType(
        name: "__Field",
        fields: [
            field("name", .nonNull(.named("String"))) { ($0.source as? GraphQLFieldDefinition)?.name },
            field("description", .named("String")) { ($0.source as? GraphQLFieldDefinition)?.description },
            field("args", .nonNull(.list(.nonNull(.named("__InputValue")))), arguments: [includeDeprecatedArgument()]) { input in
                let all = includeDeprecated(input)
                return (input.source as? GraphQLFieldDefinition)?.arguments.filter { all || !$0.isDeprecated }.map { $0 as any Sendable }
            },
            field("type", .nonNull(.named("__Type"))) { input in
                (input.source as? GraphQLFieldDefinition).flatMap { IntrospectedType.from($0.type, in: input.info.schema) }
            },
            field("isDeprecated", .nonNull(.named("Boolean"))) { ($0.source as? GraphQLFieldDefinition)?.isDeprecated },
            field("deprecationReason", .named("String")) { ($0.source as? GraphQLFieldDefinition)?.deprecationReason },
        ],
        description: "Object and Interface types are described by a list of Fields, each of which has a name, potentially a list of arguments, and a return type."
    )

    static let inputValueType = GraphQLObjectType(
        name: "__InputValue",
        fields: [
            field("name", .nonNull(.named("String"))) { ($0.source as? GraphQLInputValueDefinition)?.name },
            field("description", .named("String")) { ($0.source as? GraphQLInputValueDefinition)?.description },
            field("type", .nonNull(.named("__Type"))) { input in
                (input.source as? GraphQLInputValueDefinition).flatMap { IntrospectedType.from($0.type, in: input.info.schema) }
            },
            field("defaultValue", .named("String")) { input in
                guard let value = input.source as? GraphQLInputValueDefinition, let defaultValue = value.defaultValue else { return nil }
                return input.info.schema.printInputValue(defaultValue, type: value.type)
            },
            field("isDeprecated", .nonNull(.named("Boolean"))) { ($0.source as? GraphQLInputValueDefinition)?.isDeprecated },
            field("deprecationReason", .named("String")) { ($0.source as? GraphQLInputValueDefinition)?.deprecationReason },
        ],
        description: "Arguments provided to Fields or Directives and the input fields of an InputObject are represented as Input Values which describe their type and optionally a default value."
    )

    static let enumValueType = GraphQLObjectType(
        name: "__EnumValue",
        fields: [
            field("name", .nonNull(.named("String"))) { ($0.source as? GraphQLEnumValueDefinition)?.name },
            field("description", .named("String")) { ($0.source as? GraphQLEnumValueDefinition)?.description },
            field("isDeprecated", .nonNull(.named("Boolean"))) { ($0.source as? GraphQLEnumValueDefinition)?.isDeprecated },
            field("deprecationReason", .named("String")) { ($0.source as? GraphQLEnumValueDefinition)?.deprecationReason },
        ],
        description: "One possible value for a given Enum. Enum values are unique values, not a placeholder for a string or numeric value. However an Enum value is returned in a JSON response as a string."
    )

    static let typeKindType = GraphQLEnumType(
        name: "__TypeKind",
        values: [
            GraphQLEnumValueDefinition(name: "SCALAR", description: "Indicates this type is a scalar."),
            GraphQLEnumValueDefinition(name: "OBJECT", description: "Indicates this type is an object. `fields` and `interfaces` are valid fields."),
            GraphQLEnumValueDefinition(name: "INTERFACE", description: "Indicates this type is an interface. `fields`, `interfaces`, and `possibleTypes` are valid fields."),
            GraphQLEnumValueDefinition(name: "UNION", description: "Indicates this type is a union. `possibleTypes` is a valid field."),
            GraphQLEnumValueDefinition(name: "ENUM", description: "Indicates this type is an enum. `enumValues` is a valid field."),
            GraphQLEnumValueDefinition(name: "INPUT_OBJECT", description: "Indicates this type is an input object. `inputFields` is a valid field."),
            GraphQLEnumValueDefinition(name: "LIST", description: "Indicates this type is a list. `ofType` is a valid field."),
            GraphQLEnumValueDefinition(name: "NON_NULL", description: "Indicates this type is a non-null. `ofType` is a valid field."),
        ],
        description: "An enum describing what kind of type a given `__Type` is."
    )
}
