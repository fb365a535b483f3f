// What validation asks of a schema at every node — a type by name, a field of a
// type, the named type of a field — worked out once per schema (as planning's
// `PlanningCatalog` does for execution) instead of once per node of every
// validated document.
//
// A `GraphQLNamedType` or `GraphQLFieldDefinition` copy retains every reference
// the struct holds, and a `[String: ...]` look-up runs `Hasher` over the name;
// the walk did both several times per selected field. Here a type and a field
// are one reference each, found through an open-addressed table whose slot is
// picked from a name's length and three of its bytes.

/// Every named type of a schema as validation sees it, and the three meta fields.
final class ValidationCatalog: Sendable {
    /// Every named type, in the schema's order (first definition of a name).
    let types: [ValidationType]
    private let table: NameTable
    /// The root operation types, when they are object types.
    let queryRoot: ValidationType?
    let mutationRoot: ValidationType?
    let subscriptionRoot: ValidationType?
    /// `__typename` (every composite type), `__schema` and `__type` (the query root).
    let typenameField: ValidationField
    let schemaField: ValidationField
    let typeField: ValidationField

    init(types named: [GraphQLNamedType], queryTypeName: String?, mutationTypeName: String?, subscriptionTypeName: String?) {
        let table = NameTable(named.map(\.name))
        func index(of reference: GraphQLTypeReference) -> Int {
            table.position(of: reference.namedType) ?? -1
        }
        func fields(of definitions: [GraphQLFieldDefinition]) -> [ValidationField] {
            definitions.map { ValidationField($0, namedTypeIndex: index(of: $0.type)) }
        }
        var types: [ValidationType] = []
        types.reserveCapacity(named.count)
        for type in named {
            let own: [ValidationField] = switch type {
            case .object(let object): fields(of: object.fields)
            case .interface(let interface): fields(of: interface.fields)
            default: []
            }
            types.append(ValidationType(type, fields: own, isQueryRoot: type.name == queryTypeName))
        }
        self.types = types
        self.table = table
        func root(_ name: String?) -> ValidationType? {
            guard let name, let position = table.position(of: name), types[position].isObject else { return nil }
            return types[position]
        }
        queryRoot = root(queryTypeName)
        mutationRoot = root(mutationTypeName)
        subscriptionRoot = root(subscriptionTypeName)
        typenameField = ValidationField(IntrospectionTypes.typenameField, namedTypeIndex: index(of: IntrospectionTypes.typenameField.type))
        schemaField = ValidationField(IntrospectionTypes.schemaField, namedTypeIndex: index(of: IntrospectionTypes.schemaField.type))
        typeField = ValidationField(IntrospectionTypes.typeField, namedTypeIndex: index(of: IntrospectionTypes.typeField.type))
    }

    /// The type called `name`.
    @inline(__always)
    func type(named name: String) -> ValidationType? {
        guard let position = table.position(of: name) else { return nil }
        return types[position]
    }

    /// The named type of `field` (nil when the schema has no type of that name).
    @inline(__always)
    func namedType(of field: ValidationField) -> ValidationType? {
        let index = field.namedTypeIndex
        return index >= 0 ? types[index] : nil
    }

    /// The named type at the core of `reference`.
    @inline(__always)
    func namedType(of reference: GraphQLTypeReference) -> ValidationType? {
        type(named: reference.namedType)
    }

    /// graphql-js TypeInfo's `getFieldDef`: a field of an object or interface,
    /// `__typename` on any composite type, `__schema` and `__type` on the query root.
    @inline(__always)
    func field(on parentType: ValidationType, named name: String) -> ValidationField? {
        if name.utf8.first == UInt8(ascii: "_") {
            if name == "__typename" { return parentType.isComposite ? typenameField : nil }
            if parentType.isQueryRoot {
                if name == "__schema" { return schemaField }
                if name == "__type" { return typeField }
            }
        }
        return parentType.field(named: name)
    }
}

/// One named type: its kind as flags, and (objects and interfaces) its own fields by name.
final class ValidationType: Sendable {
    let name: String
    /// The schema's type, for the rules' rarer questions (error messages, suggestions).
    let named: GraphQLNamedType
    let isObject: Bool
    let isInterface: Bool
    let isComposite: Bool
    let isAbstract: Bool
    let isLeaf: Bool
    let isOutput: Bool
    let isInput: Bool
    /// Whether the type is named as the query root (`__schema` and `__type` are selectable on it).
    let isQueryRoot: Bool
    /// The type's own fields (no meta fields), in definition order.
    let fields: [ValidationField]
    private let fieldTable: NameTable

    init(_ type: GraphQLNamedType, fields: [ValidationField], isQueryRoot: Bool) {
        name = type.name
        named = type
        if case .object = type { isObject = true } else { isObject = false }
        if case .interface = type { isInterface = true } else { isInterface = false }
        isComposite = type.isCompositeType
        isAbstract = type.isAbstractType
        isLeaf = type.isLeafType
        isOutput = type.isOutputType
        isInput = type.isInputType
        self.isQueryRoot = isQueryRoot
        self.fields = fields
        fieldTable = NameTable(fields.map(\.name))
    }

    /// The own field called `name` (no meta fields), as `GraphQLObjectType.field(named:)`.
    @inline(__always)
    func field(named name: String) -> ValidationField? {
        guard let position = fieldTable.position(of: name) else { return nil }
        return fields[position]
    }
}

/// One field definition with what validation reads of it at hand.
final class ValidationField: Sendable {
    let name: String
    let type: GraphQLTypeReference
    /// Position of the field's named type in ``ValidationCatalog/types``, or -1.
    let namedTypeIndex: Int
    let arguments: [GraphQLInputValueDefinition]
    /// Whether some argument is required (non-null without a default).
    let hasRequiredArguments: Bool

    init(_ definition: GraphQLFieldDefinition, namedTypeIndex: Int) {
        name = definition.name
        type = definition.type
        self.namedTypeIndex = namedTypeIndex
        arguments = definition.arguments
        hasRequiredArguments = definition.arguments.contains(where: \.isRequired)
    }

    /// The argument named `name`, as `GraphQLFieldDefinition.argument(named:)`.
    func argument(named name: String) -> GraphQLInputValueDefinition? {
        arguments.first { $0.name == name }
    }
}

/// The document's fragment definitions by name: the definition index of the
/// last fragment of each name (graphql-js's `getFragment`), without `Hasher`.
struct FragmentNameIndex {
    private let table: NameTable
    private let definitionIndexes: [Int]

    init(names: [String], definitionIndexes: [Int]) {
        table = NameTable(names, lastWins: true)
        self.definitionIndexes = definitionIndexes
    }

    /// The definition index of the fragment called `name`.
    @inline(__always)
    subscript(name: String) -> Int? {
        guard let position = table.position(of: name) else { return nil }
        return definitionIndexes[position]
    }
}
