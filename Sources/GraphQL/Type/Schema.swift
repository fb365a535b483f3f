/// An immutable GraphQL schema: named types, root operation types and directives.
///
/// Types reference each other by name (``GraphQLTypeReference``), and the
/// schema resolves names. Built-in scalars referenced anywhere and the
/// introspection types (`__Schema`, `__Type`, ...) are added automatically.
/// Construction does not validate: call ``validateSchema(_:)`` (the SDL
/// builder does) to get the specification's type-system errors.
public final class GraphQLSchema: Sendable {
    /// The schema's description (`"""..."""` before `schema { }`).
    public let description: String?
    /// Name of the root query type, if any.
    public let queryTypeName: String?
    /// Name of the root mutation type, if any.
    public let mutationTypeName: String?
    /// Name of the root subscription type, if any.
    public let subscriptionTypeName: String?
    /// Every named type, in definition order, followed by the referenced built-in scalars
    /// and the introspection types (graphql-js `getTypeMap` order).
    public let types: [GraphQLNamedType]
    /// Every directive: the schema's own, then the specified ones not redefined.
    public let directives: [GraphQLDirective]

    let typeMap: [String: GraphQLNamedType]
    let directiveMap: [String: GraphQLDirective]
    /// Abstract type name → object types that are its possible types, in definition order.
    let possibleTypeMap: [String: [String]]
    /// Abstract type name → object and interface types that are its subtypes.
    let subTypeMap: [String: Set<String>]
    /// Interface name → interfaces that declare they implement it.
    let interfaceImplementations: [String: [String]]
    /// Each object type's fields as planning needs them (see ``PlanningCatalog``).
    let planning: PlanningCatalog
    /// Types and fields as validation looks them up (see ``ValidationCatalog``).
    let validation: ValidationCatalog

    /// Builds a schema from named types.
    ///
    /// - Parameters:
    ///   - types: the schema's own named types, in definition order. A type named like a
    ///     built-in scalar replaces it.
    ///   - query: the root query type's name (`nil` only for schemas that validation rejects).
    ///   - mutation: the root mutation type's name, if any.
    ///   - subscription: the root subscription type's name, if any.
    ///   - directives: directive definitions; the specified directives are appended unless redefined.
    ///   - description: the schema's description.
    public init(
        types: [GraphQLNamedType],
        query: String?,
        mutation: String? = nil,
        subscription: String? = nil,
        directives: [GraphQLDirective] = [],
        description: String? = nil
    ) {
        self.description = description
        self.queryTypeName = query
        self.mutationTypeName = mutation
        self.subscriptionTypeName = subscription

        var allDirectives = directives
        for directive in GraphQLDirective.specified where !directives.contains(where: { $0.name == directive.name }) {
            allDirectives.append(directive)
        }
        self.directives = allDirectives
        var directiveMap: [String: GraphQLDirective] = [:]
        for directive in allDirectives where directiveMap[directive.name] == nil {
            directiveMap[directive.name] = directive
        }
        self.directiveMap = directiveMap

        // Own types first, then referenced built-in scalars, then introspection types.
        var ordered: [GraphQLNamedType] = []
        var map: [String: GraphQLNamedType] = [:]
        for type in types where map[type.name] == nil {
            map[type.name] = type
            ordered.append(type)
        }
        let introspection = IntrospectionTypes.all
        var referenced = Set<String>()
        func noteReference(_ reference: GraphQLTypeReference) { referenced.insert(reference.namedType) }
        for type in types + introspection {
            for field in type.fields ?? [] {
                noteReference(field.type)
                field.arguments.forEach { noteReference($0.type) }
            }
            if case .inputObject(let input) = type { input.fields.forEach { noteReference($0.type) } }
        }
        for directive in allDirectives { directive.arguments.forEach { noteReference($0.type) } }
        for scalar in GraphQLScalarType.specified where map[scalar.name] == nil && referenced.contains(scalar.name) {
            map[scalar.name] = .scalar(scalar)
            ordered.append(.scalar(scalar))
        }
        for type in introspection where map[type.name] == nil {
            map[type.name] = type
            ordered.append(type)
        }
        self.types = ordered
        self.typeMap = map

        var possible: [String: [String]] = [:]
        var subTypes: [String: Set<String>] = [:]
        var interfaceImplementations: [String: [String]] = [:]
        for type in ordered {
            switch type {
            case .object(let object):
                for interface in object.interfaces {
                    possible[interface, default: []].append(object.name)
                    subTypes[interface, default: []].insert(object.name)
                }
            case .interface(let interface):
                for parent in interface.interfaces {
                    subTypes[parent, default: []].insert(interface.name)
                    interfaceImplementations[parent, default: []].append(interface.name)
                }
            case .union(let union):
                possible[union.name] = union.members
                subTypes[union.name] = Set(union.members)
            default:
                break
            }
        }
        self.possibleTypeMap = possible
        self.subTypeMap = subTypes
        self.interfaceImplementations = interfaceImplementations
        self.planning = PlanningCatalog(types: ordered, queryTypeName: query, possibleTypeMap: possible)
        self.validation = ValidationCatalog(types: ordered, queryTypeName: query, mutationTypeName: mutation,
                                            subscriptionTypeName: subscription)
    }

    // MARK: Look-up

    /// The named type called `name` (including built-in scalars and introspection types).
    public func type(named name: String) -> GraphQLNamedType? { typeMap[name] }

    /// The named type at the core of `reference`.
    public func namedType(of reference: GraphQLTypeReference) -> GraphQLNamedType? { typeMap[reference.namedType] }

    /// The object type called `name`, if that is what it is.
    public func objectType(named name: String) -> GraphQLObjectType? {
        if case .object(let object)? = typeMap[name] { return object }
        return nil
    }

    /// The root query type.
    public var queryType: GraphQLObjectType? { queryTypeName.flatMap(objectType(named:)) }
    /// The root mutation type.
    public var mutationType: GraphQLObjectType? { mutationTypeName.flatMap(objectType(named:)) }
    /// The root subscription type.
    public var subscriptionType: GraphQLObjectType? { subscriptionTypeName.flatMap(objectType(named:)) }

    /// The directive called `name` (without `@`).
    public func directive(named name: String) -> GraphQLDirective? { directiveMap[name] }

    /// The definition of field `name` selected on composite type `parentType`, including the
    /// meta fields `__typename` (every composite type) and `__schema` / `__type` (query root).
    public func fieldDefinition(on parentType: String, named name: String) -> GraphQLFieldDefinition? {
        if name.utf8.first == UInt8(ascii: "_") {
            if name == "__typename", let type = typeMap[parentType], type.isCompositeType {
                return IntrospectionTypes.typenameField
            }
            if parentType == queryTypeName {
                if name == "__schema" { return IntrospectionTypes.schemaField }
                if name == "__type" { return IntrospectionTypes.typeField }
            }
        }
        return typeMap[parentType]?.field(named: name)
    }

    // MARK: Abstract types

    /// The object types a value of abstract type `abstractType` may have at run time:
    /// a union's members, or the objects implementing an interface. An object type's
    /// possible types are itself.
    public func possibleTypes(of abstractType: String) -> [GraphQLObjectType] {
        if case .object(let object)? = typeMap[abstractType] { return [object] }
        return (possibleTypeMap[abstractType] ?? []).compactMap(objectType(named:))
    }

    /// Names of the possible object types of `abstractType` (see ``possibleTypes(of:)``).
    public func possibleTypeNames(of abstractType: String) -> [String] {
        if case .object? = typeMap[abstractType] { return [abstractType] }
        return possibleTypeMap[abstractType] ?? []
    }

    /// Whether object type `objectType` is a possible type of abstract type `abstractType`.
    public func isPossibleType(_ objectType: String, of abstractType: String) -> Bool {
        guard let subTypes = subTypeMap[abstractType] else { return false }
        guard subTypes.contains(objectType) else { return false }
        if case .object? = typeMap[objectType] { return true }
        return false
    }

    /// Whether `maybeSubType` (an object or interface) is a member of union / implements
    /// interface `abstractType` (graphql-js `isSubType`).
    public func isSubType(_ maybeSubType: String, of abstractType: String) -> Bool {
        subTypeMap[abstractType]?.contains(maybeSubType) ?? false
    }

    /// Interfaces that declare they implement interface `interface`.
    public func interfacesImplementing(_ interface: String) -> [String] {
        interfaceImplementations[interface] ?? []
    }

    /// Whether a value of type `maybeSubType` is always valid where `superType` is
    /// expected (graphql-js `isTypeSubTypeOf`).
    public func isTypeSubType(_ maybeSubType: GraphQLTypeReference, of superType: GraphQLTypeReference) -> Bool {
        if maybeSubType == superType { return true }
        switch (maybeSubType, superType) {
        case (.nonNull(let sub), .nonNull(let sup)): return isTypeSubType(sub, of: sup)
        case (.nonNull(let sub), _): return isTypeSubType(sub, of: superType)
        case (_, .nonNull): return false
        case (.list(let sub), .list(let sup)): return isTypeSubType(sub, of: sup)
        case (.list, _), (_, .list): return false
        case (.named(let sub), .named(let sup)):
            guard let superNamed = typeMap[sup], superNamed.isAbstractType else { return false }
            guard let subNamed = typeMap[sub] else { return false }
            switch subNamed {
            case .object, .interface: return isSubType(sub, of: sup)
            default: return false
            }
        }
    }

    /// Whether two composite types can share an object type at run time (graphql-js `doTypesOverlap`).
    public func doTypesOverlap(_ typeA: String, _ typeB: String) -> Bool {
        if typeA == typeB { return true }
        guard let a = typeMap[typeA], let b = typeMap[typeB] else { return false }
        if a.isAbstractType {
            if b.isAbstractType {
                let bTypes = Set(possibleTypeNames(of: typeB))
                return possibleTypeNames(of: typeA).contains { bTypes.contains($0) }
            }
            return isSubType(typeB, of: typeA)
        }
        if b.isAbstractType { return isSubType(typeA, of: typeB) }
        return false
    }

    // MARK: Kinds of type references

    /// Whether `reference` names an input type (scalar, enum or input object).
    public func isInputType(_ reference: GraphQLTypeReference) -> Bool {
        namedType(of: reference)?.isInputType ?? false
    }

    /// Whether `reference` names an output type (anything but an input object).
    public func isOutputType(_ reference: GraphQLTypeReference) -> Bool {
        namedType(of: reference)?.isOutputType ?? false
    }

    /// Whether `reference` names a scalar or enum.
    public func isLeafType(_ reference: GraphQLTypeReference) -> Bool {
        namedType(of: reference)?.isLeafType ?? false
    }

    /// Whether `reference` names an object, interface or union.
    public func isCompositeType(_ reference: GraphQLTypeReference) -> Bool {
        namedType(of: reference)?.isCompositeType ?? false
    }
}
