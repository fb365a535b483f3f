public import JSON

/// Any named type of a schema (spec §3.4 "Types").
public enum GraphQLNamedType: Sendable {
    case scalar(GraphQLScalarType)
    case object(GraphQLObjectType)
    case interface(GraphQLInterfaceType)
    case union(GraphQLUnionType)
    case `enum`(GraphQLEnumType)
    case inputObject(GraphQLInputObjectType)

    /// The type's name.
    public var name: String {
        switch self {
        case .scalar(let type): return type.name
        case .object(let type): return type.name
        case .interface(let type): return type.name
        case .union(let type): return type.name
        case .enum(let type): return type.name
        case .inputObject(let type): return type.name
        }
    }

    /// The type's description, if any.
    public var description: String? {
        switch self {
        case .scalar(let type): return type.description
        case .object(let type): return type.description
        case .interface(let type): return type.description
        case .union(let type): return type.description
        case .enum(let type): return type.description
        case .inputObject(let type): return type.description
        }
    }

    /// The `__TypeKind` name of this type (`OBJECT`, `SCALAR`, ...).
    public var kindName: String {
        switch self {
        case .scalar: return "SCALAR"
        case .object: return "OBJECT"
        case .interface: return "INTERFACE"
        case .union: return "UNION"
        case .enum: return "ENUM"
        case .inputObject: return "INPUT_OBJECT"
        }
    }

    /// Scalars, enums and input objects may be used as input (spec §3.4.2).
    public var isInputType: Bool {
        switch self {
        case .scalar, .enum, .inputObject: return true
        case .object, .interface, .union: return false
        }
    }

    /// Everything but input objects may be used as output.
    public var isOutputType: Bool {
        if case .inputObject = self { return false }
        return true
    }

    /// Scalars and enums.
    public var isLeafType: Bool {
        switch self {
        case .scalar, .enum: return true
        default: return false
        }
    }

    /// Objects, interfaces and unions: types with a selection set.
    public var isCompositeType: Bool {
        switch self {
        case .object, .interface, .union: return true
        default: return false
        }
    }

    /// Interfaces and unions.
    public var isAbstractType: Bool {
        switch self {
        case .interface, .union: return true
        default: return false
        }
    }

    /// The fields of an object or interface type; `nil` for other kinds.
    public var fields: [GraphQLFieldDefinition]? {
        switch self {
        case .object(let type): return type.fields
        case .interface(let type): return type.fields
        default: return nil
        }
    }

    /// The field `name` of an object or interface type (no meta fields).
    public func field(named name: String) -> GraphQLFieldDefinition? {
        switch self {
        case .object(let type): return type.field(named: name)
        case .interface(let type): return type.field(named: name)
        default: return nil
        }
    }

    /// The interfaces an object or interface type declares it implements.
    public var interfaces: [String] {
        switch self {
        case .object(let type): return type.interfaces
        case .interface(let type): return type.interfaces
        default: return []
        }
    }
}

/// Why a field, argument, input field or enum value is deprecated (`@deprecated(reason:)`).
public typealias DeprecationReason = String

/// An output field of an object or interface type.
public struct GraphQLFieldDefinition: Sendable {
    /// The field's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// The type of its value.
    public var type: GraphQLTypeReference
    /// Its arguments, in definition order.
    public var arguments: [GraphQLInputValueDefinition]
    /// Set when the field is deprecated (`@deprecated`); the reason text.
    public var deprecationReason: DeprecationReason?
    /// How the field's value is computed; `nil` uses the default property resolver.
    public var resolver: FieldResolver?

    /// Creates a field definition.
    public init(
        name: String,
        type: GraphQLTypeReference,
        arguments: [GraphQLInputValueDefinition] = [],
        description: String? = nil,
        deprecationReason: DeprecationReason? = nil,
        resolver: FieldResolver? = nil
    ) {
        self.name = name
        self.type = type
        self.arguments = arguments
        self.description = description
        self.deprecationReason = deprecationReason
        self.resolver = resolver
    }

    /// Whether the field carries `@deprecated`.
    public var isDeprecated: Bool { deprecationReason != nil }

    /// The argument named `name`.
    public func argument(named name: String) -> GraphQLInputValueDefinition? {
        arguments.first { $0.name == name }
    }
}

/// An argument or an input object field (spec "InputValueDefinition").
public struct GraphQLInputValueDefinition: Sendable {
    /// The name.
    public var name: String
    /// The description, if any.
    public var description: String?
    /// The input type.
    public var type: GraphQLTypeReference
    /// The default value, already coerced to `type`; `nil` when there is none
    /// (`.some(.null)` is an explicit `= null` default).
    public var defaultValue: JSONValue?
    /// Set when deprecated; the reason text.
    public var deprecationReason: DeprecationReason?

    /// Creates an input value definition.
    public init(
        name: String,
        type: GraphQLTypeReference,
        defaultValue: JSONValue? = nil,
        description: String? = nil,
        deprecationReason: DeprecationReason? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.description = description
        self.deprecationReason = deprecationReason
    }

    /// Whether a default value is defined.
    public var hasDefaultValue: Bool { defaultValue != nil }
    /// Whether the input value carries `@deprecated`.
    public var isDeprecated: Bool { deprecationReason != nil }
    /// Non-null and without default: must be provided (graphql-js `isRequiredArgument`).
    public var isRequired: Bool { type.isNonNull && defaultValue == nil }
}

/// An object type: a set of named fields (spec §3.6).
public struct GraphQLObjectType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Its fields in definition order.
    public private(set) var fields: [GraphQLFieldDefinition]
    /// The interfaces it implements, in declaration order.
    public var interfaces: [String]
    /// Field positions by name.
    let fieldIndex: [String: Int]

    /// Creates an object type.
    public init(name: String, fields: [GraphQLFieldDefinition], interfaces: [String] = [], description: String? = nil) {
        self.name = name
        self.description = description
        self.fields = fields
        self.interfaces = interfaces
        self.fieldIndex = makeNameIndex(fields.map(\.name))
    }

    /// The field named `name` (no meta fields such as `__typename`).
    public func field(named name: String) -> GraphQLFieldDefinition? {
        guard let index = fieldIndex[name] else { return nil }
        return fields[index]
    }

    /// Replaces the resolver of field `name`; returns false when there is no such field.
    @discardableResult
    mutating func setResolver(_ resolver: FieldResolver, forField name: String) -> Bool {
        guard let index = fieldIndex[name] else { return false }
        fields[index].resolver = resolver
        return true
    }
}

/// An interface type: fields that implementing types must provide (spec §3.7).
public struct GraphQLInterfaceType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Its fields in definition order.
    public private(set) var fields: [GraphQLFieldDefinition]
    /// The interfaces this interface implements.
    public var interfaces: [String]
    /// Picks the concrete object type of a value; `nil` uses `__typename` (see ``TypeResolver``).
    public var resolveType: TypeResolver?
    let fieldIndex: [String: Int]

    /// Creates an interface type.
    public init(
        name: String,
        fields: [GraphQLFieldDefinition],
        interfaces: [String] = [],
        description: String? = nil,
        resolveType: TypeResolver? = nil
    ) {
        self.name = name
        self.description = description
        self.fields = fields
        self.interfaces = interfaces
        self.resolveType = resolveType
        self.fieldIndex = makeNameIndex(fields.map(\.name))
    }

    /// The field named `name`.
    public func field(named name: String) -> GraphQLFieldDefinition? {
        guard let index = fieldIndex[name] else { return nil }
        return fields[index]
    }
}

/// A union of object types (spec §3.8).
public struct GraphQLUnionType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// The member object types' names, in declaration order.
    public var members: [String]
    /// Picks the concrete object type of a value; `nil` uses `__typename`.
    public var resolveType: TypeResolver?

    /// Creates a union type.
    public init(name: String, members: [String], description: String? = nil, resolveType: TypeResolver? = nil) {
        self.name = name
        self.members = members
        self.description = description
        self.resolveType = resolveType
    }
}

/// One value of an enum type.
public struct GraphQLEnumValueDefinition: Sendable {
    /// The value's name (also its serialised and internal form).
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Set when deprecated; the reason text.
    public var deprecationReason: DeprecationReason?

    /// Creates an enum value.
    public init(name: String, description: String? = nil, deprecationReason: DeprecationReason? = nil) {
        self.name = name
        self.description = description
        self.deprecationReason = deprecationReason
    }

    /// Whether the value carries `@deprecated`.
    public var isDeprecated: Bool { deprecationReason != nil }
}

/// An enum type (spec §3.9). Values are represented by their names inside
/// execution (arguments arrive as `JSONValue.string(name)`).
public struct GraphQLEnumType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Its values in definition order.
    public var values: [GraphQLEnumValueDefinition]
    let valueIndex: [String: Int]

    /// Creates an enum type.
    public init(name: String, values: [GraphQLEnumValueDefinition], description: String? = nil) {
        self.name = name
        self.values = values
        self.description = description
        self.valueIndex = makeNameIndex(values.map(\.name))
    }

    /// The value named `name`.
    public func value(named name: String) -> GraphQLEnumValueDefinition? {
        guard let index = valueIndex[name] else { return nil }
        return values[index]
    }
}

/// An input object type (spec §3.10); `isOneOf` marks `@oneOf` input objects.
public struct GraphQLInputObjectType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// Its fields in definition order.
    public var fields: [GraphQLInputValueDefinition]
    /// Exactly one field must be given, and it must not be null (`@oneOf`).
    public var isOneOf: Bool
    let fieldIndex: [String: Int]

    /// Creates an input object type.
    public init(name: String, fields: [GraphQLInputValueDefinition], description: String? = nil, isOneOf: Bool = false) {
        self.name = name
        self.fields = fields
        self.description = description
        self.isOneOf = isOneOf
        self.fieldIndex = makeNameIndex(fields.map(\.name))
    }

    /// The input field named `name`.
    public func field(named name: String) -> GraphQLInputValueDefinition? {
        guard let index = fieldIndex[name] else { return nil }
        return fields[index]
    }
}

/// Positions by name; the first occurrence wins for duplicates (which schema validation reports).
func makeNameIndex(_ names: [String]) -> [String: Int] {
    var index: [String: Int] = [:]
    index.reserveCapacity(names.count)
    for (position, name) in names.enumerated() where index[name] == nil {
        index[name] = position
    }
    return index
}
