// Type-system definitions and extensions (the SDL part of the AST).
// A missing list (no `implements`, no fields, ...) is an empty array: the
// grammar does not allow an empty `{}`, so the two cannot be confused.

/// `description? schema @directives { query: Query ... }`.
public struct SchemaDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var directives: [Directive]
    public var operationTypes: [OperationTypeDefinition]
    public var loc: Location
}

/// `extend schema @directives { mutation: Mutation }` (directives or operation types, or both).
public struct SchemaExtension: Sendable, Hashable {
    public var directives: [Directive]
    public var operationTypes: [OperationTypeDefinition]
    public var loc: Location
}

/// `query: Query` inside a schema definition or extension.
public struct OperationTypeDefinition: Sendable, Hashable {
    public var operation: OperationType
    public var type: NamedType
    public var loc: Location
}

/// A named type's definition.
public enum TypeDefinition: Sendable, Hashable {
    case scalar(ScalarTypeDefinition)
    case object(ObjectTypeDefinition)
    case interface(InterfaceTypeDefinition)
    case union(UnionTypeDefinition)
    case enumType(EnumTypeDefinition)
    case inputObject(InputObjectTypeDefinition)

    public var loc: Location {
        switch self {
        case .scalar(let node): node.loc
        case .object(let node): node.loc
        case .interface(let node): node.loc
        case .union(let node): node.loc
        case .enumType(let node): node.loc
        case .inputObject(let node): node.loc
        }
    }

    /// The defined type's name.
    public var name: Name {
        switch self {
        case .scalar(let node): node.name
        case .object(let node): node.name
        case .interface(let node): node.name
        case .union(let node): node.name
        case .enumType(let node): node.name
        case .inputObject(let node): node.name
        }
    }

    /// The definition's directives.
    public var directives: [Directive] {
        switch self {
        case .scalar(let node): node.directives
        case .object(let node): node.directives
        case .interface(let node): node.directives
        case .union(let node): node.directives
        case .enumType(let node): node.directives
        case .inputObject(let node): node.directives
        }
    }
}

/// An `extend <kind> Name ...` of a named type.
public enum TypeExtension: Sendable, Hashable {
    case scalar(ScalarTypeExtension)
    case object(ObjectTypeExtension)
    case interface(InterfaceTypeExtension)
    case union(UnionTypeExtension)
    case enumType(EnumTypeExtension)
    case inputObject(InputObjectTypeExtension)

    public var loc: Location {
        switch self {
        case .scalar(let node): node.loc
        case .object(let node): node.loc
        case .interface(let node): node.loc
        case .union(let node): node.loc
        case .enumType(let node): node.loc
        case .inputObject(let node): node.loc
        }
    }

    /// The extended type's name.
    public var name: Name {
        switch self {
        case .scalar(let node): node.name
        case .object(let node): node.name
        case .interface(let node): node.name
        case .union(let node): node.name
        case .enumType(let node): node.name
        case .inputObject(let node): node.name
        }
    }

    /// The extension's directives.
    public var directives: [Directive] {
        switch self {
        case .scalar(let node): node.directives
        case .object(let node): node.directives
        case .interface(let node): node.directives
        case .union(let node): node.directives
        case .enumType(let node): node.directives
        case .inputObject(let node): node.directives
        }
    }
}

/// `scalar Name @directives`.
public struct ScalarTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var loc: Location
}

/// `type Name implements A & B @directives { fields }`.
public struct ObjectTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var interfaces: [NamedType]
    public var directives: [Directive]
    public var fields: [FieldDefinition]
    public var loc: Location
}

/// `name(arguments): Type @directives` in an object or interface type.
public struct FieldDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var arguments: [InputValueDefinition]
    public var type: TypeReference
    public var directives: [Directive]
    public var loc: Location
}

/// An argument definition or an input object field: `name: Type = default @directives`.
public struct InputValueDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var type: TypeReference
    public var defaultValue: Value?
    public var directives: [Directive]
    public var loc: Location
}

/// `interface Name implements A & B @directives { fields }`.
public struct InterfaceTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var interfaces: [NamedType]
    public var directives: [Directive]
    public var fields: [FieldDefinition]
    public var loc: Location
}

/// `union Name @directives = A | B`.
public struct UnionTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var types: [NamedType]
    public var loc: Location
}

/// `enum Name @directives { VALUES }`.
public struct EnumTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var values: [EnumValueDefinition]
    public var loc: Location
}

/// One value of an enum type.
public struct EnumValueDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var loc: Location
}

/// `input Name @directives { fields }`.
public struct InputObjectTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var fields: [InputValueDefinition]
    public var loc: Location
}

/// `directive @name(arguments) repeatable on LOCATION | ...`.
public struct DirectiveDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var arguments: [InputValueDefinition]
    public var repeatable: Bool
    /// Location names as written; the parser accepts only the spec's locations.
    public var locations: [Name]
    public var loc: Location
}

/// `extend scalar Name @directives`.
public struct ScalarTypeExtension: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var loc: Location
}

/// `extend type Name implements A @directives { fields }`.
public struct ObjectTypeExtension: Sendable, Hashable {
    public var name: Name
    public var interfaces: [NamedType]
    public var directives: [Directive]
    public var fields: [FieldDefinition]
    public var loc: Location
}

/// `extend interface Name implements A @directives { fields }`.
public struct InterfaceTypeExtension: Sendable, Hashable {
    public var name: Name
    public var interfaces: [NamedType]
    public var directives: [Directive]
    public var fields: [FieldDefinition]
    public var loc: Location
}

/// `extend union Name @directives = A | B`.
public struct UnionTypeExtension: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var types: [NamedType]
    public var loc: Location
}

/// `extend enum Name @directives { VALUES }`.
public struct EnumTypeExtension: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var values: [EnumValueDefinition]
    public var loc: Location
}

/// `extend input Name @directives { fields }`.
public struct InputObjectTypeExtension: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var fields: [InputValueDefinition]
    public var loc: Location
}
