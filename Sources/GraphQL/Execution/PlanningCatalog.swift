/// What planning needs to know about a schema's fields, worked out once per
/// schema instead of once per field of every planned document: each object
/// type's fields (meta fields included) by name, with their type's shape, how
/// their named type completes, their resolver and their pre-encoded names.
///
/// Planning a document then costs one look-up per selected field and no copies
/// of schema structs (a ``GraphQLFieldDefinition`` or ``GraphQLObjectType`` copy
/// retains every reference it holds). Types refer to each other by position in
/// ``objects`` / ``abstracts``, so the catalog holds no reference cycles.
final class PlanningCatalog: Sendable {
    /// Every object type, introspection types included.
    let objects: [PlanningObject]
    /// Every interface and union type.
    let abstracts: [PlanningAbstract]
    private let objectIndex: [String: Int]
    /// What coercing a variable asks of its named type, by name, for every type:
    /// plain values, so that asking copies no type definition (each copy of a
    /// ``GraphQLNamedType`` retains every reference it holds).
    let inputFacts: [String: InputFacts]

    struct InputFacts: Sendable {
        /// A scalar, an enum or an input object.
        let isInputType: Bool
        /// The built-in scalar the type is, if it is one.
        let builtin: BuiltinScalar?
    }

    init(types: [GraphQLNamedType], queryTypeName: String?, possibleTypeMap: [String: [String]]) {
        var objectIndex: [String: Int] = [:]
        var abstractIndex: [String: Int] = [:]
        var leaves: [String: FieldPlan.Completion] = [:]
        var inputFacts: [String: InputFacts] = [:]
        for type in types {
            if inputFacts[type.name] == nil {
                var builtin: BuiltinScalar?
                if case .scalar(let scalar) = type { builtin = scalar.builtin }
                inputFacts[type.name] = InputFacts(isInputType: type.isInputType, builtin: builtin)
            }
            switch type {
            case .object(let object) where objectIndex[object.name] == nil:
                objectIndex[object.name] = objectIndex.count
            case .interface(let interface) where abstractIndex[interface.name] == nil:
                abstractIndex[interface.name] = abstractIndex.count
            case .union(let union) where abstractIndex[union.name] == nil:
                abstractIndex[union.name] = abstractIndex.count
            case .scalar(let scalar) where leaves[scalar.name] == nil:
                leaves[scalar.name] = scalar.builtin.map(FieldPlan.Completion.builtin) ?? .scalar(LeafType(scalar))
            case .enum(let enumType) where leaves[enumType.name] == nil:
                leaves[enumType.name] = .enum(LeafType(enumType))
            default:
                break
            }
        }
        func target(of reference: GraphQLTypeReference) -> SchemaField.Target {
            let name = reference.namedType
            if let leaf = leaves[name] { return .leaf(leaf) }
            if let index = objectIndex[name] { return .object(index) }
            if let index = abstractIndex[name] { return .abstract(index) }
            return .invalid
        }
        var objects: [PlanningObject] = []
        var abstracts: [PlanningAbstract] = []
        for type in types {
            switch type {
            case .object(let object) where objects.count == objectIndex[object.name]:
                // Meta fields win over own fields of the same name, as in `GraphQLSchema.fieldDefinition(on:named:)`.
                var definitions = object.fields
                definitions.append(IntrospectionTypes.typenameField)
                if object.name == queryTypeName {
                    definitions.append(IntrospectionTypes.schemaField)
                    definitions.append(IntrospectionTypes.typeField)
                }
                var fields: [String: SchemaField] = [:]
                fields.reserveCapacity(definitions.count)
                for definition in definitions {
                    fields[definition.name] = SchemaField(definition, parentTypeName: object.name, target: target(of: definition.type))
                }
                objects.append(PlanningObject(name: object.name, fields: fields))
            case .interface(let interface) where abstracts.count == abstractIndex[interface.name]:
                let possible = (possibleTypeMap[interface.name] ?? []).compactMap { objectIndex[$0] }
                abstracts.append(PlanningAbstract(name: interface.name, resolveType: interface.resolveType, possible: possible))
            case .union(let union) where abstracts.count == abstractIndex[union.name]:
                let possible = (possibleTypeMap[union.name] ?? []).compactMap { objectIndex[$0] }
                abstracts.append(PlanningAbstract(name: union.name, resolveType: union.resolveType, possible: possible))
            default:
                break
            }
        }
        self.objects = objects
        self.abstracts = abstracts
        self.objectIndex = objectIndex
        self.inputFacts = inputFacts
    }

    /// The object type called `name`.
    func object(named name: String) -> PlanningObject? {
        objectIndex[name].map { objects[$0] }
    }
}

/// One object type's fields by name, meta fields (`__typename`, and `__schema` /
/// `__type` on the query type) included.
final class PlanningObject: Sendable {
    let name: String
    private let fields: [SchemaField]
    /// Positions in ``fields`` by name (cheaper than `Hasher` on every look-up).
    private let positions: NameTable

    /// `fields` by name; each name once.
    init(name: String, fields: [String: SchemaField]) {
        self.name = name
        self.fields = Array(fields.values)
        positions = NameTable(self.fields.map(\.name))
    }

    /// The field called `name`, if the type has one.
    @inline(__always)
    func field(named name: String) -> SchemaField? {
        positions.position(of: name).map { fields[$0] }
    }
}

/// An interface or union: its possible object types (positions in
/// ``PlanningCatalog/objects``, in the schema's order) and its type resolver.
final class PlanningAbstract: Sendable {
    let name: String
    let resolveType: TypeResolver?
    let possible: [Int]

    init(name: String, resolveType: TypeResolver?, possible: [Int]) {
        self.name = name
        self.resolveType = resolveType
        self.possible = possible
    }
}

/// One field of one object type, as every plan of it needs it: what does not
/// depend on the document. A ``FieldPlan`` keeps a reference to it for the
/// rarely read parts (arguments' definitions, the type, the parent's name).
final class SchemaField: Sendable {
    /// How the field's named type completes.
    enum Target: Sendable {
        case leaf(FieldPlan.Completion)
        /// Position in ``PlanningCatalog/objects``.
        case object(Int)
        /// Position in ``PlanningCatalog/abstracts``.
        case abstract(Int)
        /// An input object or an unknown type (schemas that validation rejects).
        case invalid
    }

    let name: String
    let parentTypeName: String
    let type: GraphQLTypeReference
    /// `nil` past 31 levels of lists (planning refuses the field).
    let shape: TypeShape?
    let resolver: FieldResolver?
    let argumentDefinitions: [GraphQLInputValueDefinition]
    /// The arguments' names, in order: the keys of every request's coerced arguments (shared).
    let argumentNames: [String]
    let target: Target
    let isTypename: Bool
    let leafShortcut: FieldPlan.LeafShortcut
    let writesStringsAsIs: Bool
    let enumNames: [String]
    /// `"name":` and `"ParentType"`: the encoded names of every plan whose response key is the field's name.
    let encodedNames: EncodedNames

    init(_ definition: GraphQLFieldDefinition, parentTypeName: String, target: Target) {
        name = definition.name
        self.parentTypeName = parentTypeName
        type = definition.type
        shape = TypeShape(definition.type)
        resolver = definition.resolver
        argumentDefinitions = definition.arguments
        argumentNames = definition.arguments.map(\.name)
        self.target = target
        isTypename = definition.name == "__typename"
        encodedNames = EncodedNames(key: definition.name, typename: parentTypeName)
        switch target {
        case .leaf(.builtin(let builtin)):
            leafShortcut = .builtin(builtin)
            enumNames = []
            writesStringsAsIs = builtin == .string || builtin == .id
        case .leaf(.scalar(let scalar)):
            leafShortcut = scalar.passesJSONThrough ? .passThrough : .none
            enumNames = []
            writesStringsAsIs = scalar.passesJSONThrough
        case .leaf(.enum(let enumType)):
            leafShortcut = .enumName
            enumNames = enumType.enumNames
            writesStringsAsIs = false
        case .leaf, .object, .abstract, .invalid:
            leafShortcut = .none
            enumNames = []
            writesStringsAsIs = false
        }
    }

    deinit { encodedNames.free() }
}
