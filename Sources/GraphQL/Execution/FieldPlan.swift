import JSON
import Synchronization

/// The fields of one selection set on one object type, collected (spec §6.3.2
/// "CollectFields") and resolved against the schema once per document and
/// assignment of the `@skip`/`@include` variables, then shared by every request
/// that executes that document.
final class SelectionPlan: Sendable {
    let fields: [FieldPlan]
    /// The fields' response keys, shared by every result object of the selection.
    let responseKeys: [String]
    /// ``fields`` unretained, in memory of their own: iterating them takes no
    /// reference count (plans are read by every request on every thread).
    let unretainedFields: UnretainedPlans

    init(fields: [FieldPlan]) {
        self.fields = fields
        self.responseKeys = fields.map(\.responseKey)
        self.unretainedFields = UnretainedPlans(fields)
    }

    deinit { unretainedFields.free() }
}

/// Field plans as unretained references in memory allocated once and freed by
/// the owning ``SelectionPlan``'s `deinit`, which also holds the plans strongly.
///
/// `@unchecked Sendable`: written only in `init`, read-only afterwards, freed
/// only when no request can reach the owning selection plan.
struct UnretainedPlans: @unchecked Sendable {
    let plans: UnsafeBufferPointer<Unmanaged<FieldPlan>>

    init(_ fields: [FieldPlan]) {
        let memory = UnsafeMutableBufferPointer<Unmanaged<FieldPlan>>.allocate(capacity: max(fields.count, 1))
        _ = memory.initialize(from: fields.map { Unmanaged.passUnretained($0) })
        plans = UnsafeBufferPointer(rebasing: memory[0..<fields.count])
    }

    /// Frees the memory; only the owning plan's `deinit` calls it.
    func free() { UnsafeMutableBufferPointer(mutating: plans).deallocate() }
}

/// One response key of a selection: the field definition, its resolver, its
/// arguments (coerced once when they use no variables) and how to complete its value.
/// Hot fields are stored flat so that reading them retains as little as possible.
final class FieldPlan: Sendable {
    // What completing a property of a JSON object reads comes first: stored
    // properties are laid out in declaration order, so these share a cache line or two.

    /// A property whose named type is a leaf and whose type has no list at the top:
    /// the executor completes it inline, without a path step.
    let isLeafProperty: Bool
    /// Read by the default resolver from the parent JSON object: no resolver, not `__typename`.
    let readsProperty: Bool
    let isTypename: Bool
    /// The field type's list / non-null wrappers, packed.
    let shape: TypeShape
    /// Where the property was last found in a parent JSON object (objects of one
    /// shape keep members in the same places). Only a hint: always checked.
    let propertyHint = Atomic<Int>(-1)
    let fieldName: String
    /// How most leaf values complete, flat (reading it retains nothing).
    let leafShortcut: LeafShortcut
    /// A string value of this leaf serialises as itself (`String`, `ID`, or a custom scalar without `serialize`).
    let writesStringsAsIs: Bool
    /// An enum field's value names (empty otherwise).
    let enumNames: [String]
    let completion: Completion
    /// The selection of an object-typed field, unretained: ``completion`` owns it.
    let objectSelection: Unmanaged<SelectionPlan>?
    /// The plan of an abstract-typed field, unretained: ``completion`` owns it.
    let abstractPlan: Unmanaged<AbstractPlan>?
    let responseKey: String
    /// `"responseKey":` and the parent type's name as JSON (what `__typename`
    /// writes), for responses written straight to bytes.
    let encodedNames: EncodedNames
    /// Position among the operation's plans (indexes the path's field steps).
    let index: Int
    /// Where a request memoises the arguments when they depend on variables
    /// (indexes a per-request array as long as the operation has such fields); else -1.
    let argumentSlot: Int
    let resolver: FieldResolver?
    /// Arguments coerced at planning time; `nil` when they depend on variables.
    let constantArguments: Result<JSONObject, FieldError>?
    let parentTypeName: String
    /// The first field node of the key (its arguments are the field's arguments).
    let firstNode: Field
    /// Further field nodes merged into the key; usually none (and then no array is allocated).
    let moreNodes: [Field]
    let argumentDefinitions: [GraphQLInputValueDefinition]
    let type: GraphQLTypeReference

    /// The common leaf completions, without references: a built-in scalar whose
    /// value already has the right JSON form, a custom scalar without
    /// `serialize`, an enum name. Anything else goes through ``completion``.
    enum LeafShortcut: Sendable {
        case builtin(BuiltinScalar)
        case passThrough
        case enumName
        case none
    }

    /// Whether `name` is one of the enum's values (length first, then contents).
    @inline(__always)
    func hasEnumName(_ name: String) -> Bool {
        let length = name.utf8.count
        for candidate in enumNames where candidate.utf8.count == length && candidate == name { return true }
        return false
    }

    /// Whether `value` is a string naming one of the enum's values (read in place).
    @inline(__always)
    func isEnumName(_ value: borrowing JSONValue) -> Bool {
        switch value {
        case .string(let name): return hasEnumName(name)
        default: return false
        }
    }

    /// How a field's named return type completes; payloads are single references.
    enum Completion: Sendable {
        case builtin(BuiltinScalar)
        case scalar(LeafType<GraphQLScalarType>)
        case `enum`(LeafType<GraphQLEnumType>)
        case object(SelectionPlan)
        case abstract(AbstractPlan)
        case invalid
    }

    deinit {
        encodedNames.free()
    }

    /// Every field node of the key, in document order.
    var nodes: [Field] { moreNodes.isEmpty ? [firstNode] : [firstNode] + moreNodes }

    init(index: Int, responseKey: String, firstNode: Field, moreNodes: [Field], definition: GraphQLFieldDefinition, parentType: String,
         shape: TypeShape, constantArguments: Result<JSONObject, FieldError>?, argumentSlot: Int, completion: Completion) {
        self.index = index
        self.responseKey = responseKey
        self.encodedNames = EncodedNames(key: responseKey, typename: parentType)
        self.firstNode = firstNode
        self.moreNodes = moreNodes
        self.argumentDefinitions = definition.arguments
        self.type = definition.type
        self.fieldName = definition.name
        self.parentTypeName = parentType
        self.shape = shape
        self.resolver = definition.resolver
        self.isTypename = definition.name == "__typename"
        self.constantArguments = constantArguments
        self.argumentSlot = argumentSlot
        self.completion = completion
        self.readsProperty = definition.resolver == nil && !isTypename
        switch completion {
        case .builtin, .scalar, .enum: isLeafProperty = readsProperty && !shape.isList(0)
        case .object, .abstract, .invalid: isLeafProperty = false
        }
        if case .object(let selection) = completion {
            objectSelection = Unmanaged.passUnretained(selection)
        } else {
            objectSelection = nil
        }
        if case .abstract(let abstract) = completion {
            abstractPlan = Unmanaged.passUnretained(abstract)
        } else {
            abstractPlan = nil
        }
        switch completion {
        case .builtin(let builtin):
            leafShortcut = .builtin(builtin)
            enumNames = []
            writesStringsAsIs = builtin == .string || builtin == .id
        case .scalar(let scalar):
            leafShortcut = scalar.passesJSONThrough ? .passThrough : .none
            enumNames = []
            writesStringsAsIs = scalar.passesJSONThrough
        case .enum(let enumType):
            leafShortcut = .enumName
            enumNames = enumType.enumNames
            writesStringsAsIs = false
        case .object, .abstract, .invalid:
            leafShortcut = .none
            enumNames = []
            writesStringsAsIs = false
        }
    }
}

/// The list and non-null wrappers of a type, two bits per level from the outside
/// in (bit 0: non-null, bit 1: list); the level after the last list is the named type.
struct TypeShape: Sendable {
    let bits: UInt64

    /// The shape of `type`; `nil` past 31 levels of lists.
    init?(_ type: GraphQLTypeReference) {
        var bits: UInt64 = 0
        var level: UInt64 = 0
        var current = type
        while true {
            guard level < 32 else { return nil }
            var nonNull = false
            if case .nonNull(let inner) = current {
                nonNull = true
                current = inner
            }
            if nonNull { bits |= 1 << (2 * level) }
            if case .list(let item) = current {
                bits |= 2 << (2 * level)
                current = item
                level += 1
                continue
            }
            break
        }
        self.bits = bits
    }

    @inline(__always) func isNonNull(_ level: Int) -> Bool { (bits >> UInt64(2 * level)) & 1 != 0 }
    @inline(__always) func isList(_ level: Int) -> Bool { (bits >> UInt64(2 * level)) & 2 != 0 }
}

/// A scalar or enum type behind one reference, with what the executor's JSON
/// fast path needs to complete most values without calling into the type.
final class LeafType<Type: Sendable>: Sendable {
    let type: Type
    /// A scalar without a `serialize` function: a JSON value serialises as itself.
    let passesJSONThrough: Bool
    /// An enum's value names (a JSON string naming one serialises as itself).
    let enumNames: [String]

    init(_ type: Type) {
        self.type = type
        if let scalar = type as? GraphQLScalarType {
            passesJSONThrough = scalar.builtin == nil && scalar.serialize == nil
        } else {
            passesJSONThrough = false
        }
        enumNames = (type as? GraphQLEnumType)?.values.map(\.name) ?? []
    }
}

/// The selections of an abstract-typed field for each possible object type.
final class AbstractPlan: Sendable {
    let name: String
    let resolveType: TypeResolver?
    let plans: [String: SelectionPlan]
    /// Where `__typename` was last found in a JSON value (see ``FieldPlan/propertyHint``).
    let typenameHint = Atomic<Int>(-1)

    /// The possible types' names and selections, in parallel, for small look-ups.
    private let names: [String]
    private let selections: [SelectionPlan]

    /// Whether a ``TypeResolver`` decides (else the value's `__typename`); flat, so asking retains nothing.
    let hasTypeResolver: Bool

    init(name: String, resolveType: TypeResolver?, plans: [String: SelectionPlan]) {
        self.name = name
        self.resolveType = resolveType
        self.hasTypeResolver = resolveType != nil
        self.plans = plans
        self.names = Array(plans.keys)
        self.selections = names.compactMap { plans[$0] }
    }

    /// ``selection(for:)`` without retaining the shared selection (the plan keeps it
    /// alive); `nil` when the type is not one of the few possible ones scanned.
    func unretainedSelection(for typeName: String) -> Unmanaged<SelectionPlan>? {
        guard names.count <= 16 else { return nil }
        let length = typeName.utf8.count
        return names.withUnsafeBufferPointer { names in
            selections.withUnsafeBufferPointer { selections in
                for position in names.indices where names[position].utf8.count == length && names[position] == typeName {
                    return Unmanaged.passUnretained(selections[position])
                }
                return nil
            }
        }
    }

    /// The selection for the object type `typeName`: a length-first scan when the
    /// abstract type has few possible types (cheaper than hashing the name), else the dictionary.
    func selection(for typeName: String) -> SelectionPlan? {
        guard names.count <= 16 else { return plans[typeName] }
        let length = typeName.utf8.count
        for position in names.indices where names[position].utf8.count == length && names[position] == typeName {
            return selections[position]
        }
        return nil
    }
}

/// The plan of one operation, cached in its ``PreparedDocument``.
final class OperationPlan: Sendable {
    let root: SelectionPlan
    let rootType: GraphQLObjectType
    /// Every field plan, at the position of its `index`.
    let fields: [FieldPlan]
    /// How many fields have arguments that depend on variables (see ``FieldPlan/argumentSlot``).
    let argumentSlots: Int

    init(root: SelectionPlan, rootType: GraphQLObjectType, fields: [FieldPlan], argumentSlots: Int) {
        self.root = root
        self.rootType = rootType
        self.fields = fields
        self.argumentSlots = argumentSlots
    }
}

/// A planning failure (only for documents validation would reject, such as fragment cycles).
struct PlanningError: Error {
    let message: String
}

/// Fields grouped by response key, in first-appearance order. Selection sets are
/// small, so a linear scan beats hashing until there are many keys; a key seen
/// once (the common case) costs no array of its own.
struct CollectedFields {
    var keys: [String] = []
    var firsts: [Field] = []
    /// Further fields of a key, by key position (merged fields are rare).
    var more: [Int: [Field]] = [:]
    var index: [String: Int] = [:]

    mutating func add(_ field: Field) {
        let key = field.responseKey
        if keys.count < 24 {
            let length = key.utf8.count
            for position in keys.indices where keys[position].utf8.count == length && keys[position] == key {
                more[position, default: []].append(field)
                return
            }
        } else {
            if index.isEmpty {
                for (position, existing) in keys.enumerated() { index[existing] = position }
            }
            if let position = index[key] {
                more[position, default: []].append(field)
                return
            }
            index[key] = keys.count
        }
        keys.append(key)
        firsts.append(field)
    }

}

/// Builds ``OperationPlan``s: collects fields per object type, eagerly for every
/// possible runtime type of abstract fields.
struct Planner {
    let schema: GraphQLSchema
    let fragments: [String: FragmentDefinition]
    /// Values of the variables `@skip`/`@include` read (others are not consulted).
    let variables: JSONObject
    var count = 0
    var argumentSlots = 0
    var all: [FieldPlan] = []
    /// Plans of selections made only of fragment spreads, by type and fragment names.
    var fragmentPlans: [String: SelectionPlan] = [:]
    static let maxDepth = 256
    static let noArguments: Result<JSONObject, FieldError> = .success(JSONObject())

    init(schema: GraphQLSchema, fragments: [String: FragmentDefinition], variables: JSONObject) {
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
    }

    mutating func plan(_ operation: OperationDefinition, rootType: GraphQLObjectType) throws(PlanningError) -> OperationPlan {
        let root = try selection(for: rootType, selectionSets: [operation.selectionSet], depth: 0)
        all.sort { $0.index < $1.index }
        return OperationPlan(root: root, rootType: rootType, fields: all, argumentSlots: argumentSlots)
    }

    mutating func selection(for objectType: GraphQLObjectType, selectionSets: [SelectionSet], depth: Int) throws(PlanningError) -> SelectionPlan {
        guard depth < Planner.maxDepth else {
            throw PlanningError(message: "Selections nest more than \(Planner.maxDepth) levels deep (is there a fragment cycle?).")
        }
        // `{ ...Money }` in many places plans once per object type: a selection made
        // only of plain fragment spreads depends on nothing else.
        let memoKey = Planner.fragmentOnlyKey(objectType.name, selectionSets)
        if let memoKey, let shared = fragmentPlans[memoKey] { return shared }
        let plan = try collectAndPlan(objectType, selectionSets, depth)
        if let memoKey { fragmentPlans[memoKey] = plan }
        return plan
    }

    /// `type|A,B` when every selection is a fragment spread without directives; else `nil`.
    static func fragmentOnlyKey(_ typeName: String, _ selectionSets: [SelectionSet]) -> String? {
        var key = typeName
        for selectionSet in selectionSets {
            for selection in selectionSet.selections {
                guard case .fragmentSpread(let spread) = selection, spread.directives.isEmpty else { return nil }
                key += "|" + spread.name.value
            }
        }
        return key
    }

    private mutating func collectAndPlan(_ objectType: GraphQLObjectType, _ selectionSets: [SelectionSet], _ depth: Int) throws(PlanningError) -> SelectionPlan {
        var collected = CollectedFields()
        var visited: [String] = []
        for selectionSet in selectionSets {
            collectFields(objectType.name, selectionSet, into: &collected, visited: &visited)
        }
        var plans: [FieldPlan] = []
        plans.reserveCapacity(collected.keys.count)
        for (position, key) in collected.keys.enumerated() {
            let first = collected.firsts[position]
            let fieldName = first.name.value
            let found: GraphQLFieldDefinition?
            if fieldName.utf8.first == UInt8(ascii: "_") {
                found = schema.fieldDefinition(on: objectType.name, named: fieldName)
            } else {
                found = objectType.field(named: fieldName)
            }
            guard let definition = found else { continue }
            let index = count
            count += 1
            let moreNodes = collected.more[position] ?? []
            var subSelections: [SelectionSet] = []
            if let set = first.selectionSet { subSelections.append(set) }
            for node in moreNodes { if let set = node.selectionSet { subSelections.append(set) } }
            let completion: FieldPlan.Completion
            let namedType = definition.type.namedType
            if let leaf = schema.leafCompletions[namedType] {
                completion = leaf
            } else {
                switch schema.type(named: namedType) {
                case .scalar, .enum:
                    completion = .invalid
                    case .object(let object)?:
                    completion = .object(try selection(for: object, selectionSets: subSelections, depth: depth + 1))
                case .interface(let interface)?:
                    completion = .abstract(AbstractPlan(name: interface.name, resolveType: interface.resolveType,
                                                        plans: try possiblePlans(interface.name, subSelections, depth)))
                case .union(let union)?:
                    completion = .abstract(AbstractPlan(name: union.name, resolveType: union.resolveType,
                                                        plans: try possiblePlans(union.name, subSelections, depth)))
                case .inputObject?, nil:
                    completion = .invalid
                }
            }
            guard let shape = TypeShape(definition.type) else {
                throw PlanningError(message: "The type of \(objectType.name).\(definition.name) nests lists too deeply.")
            }
            let constant = constantArguments(definition, first)
            var argumentSlot = -1
            if constant == nil {
                argumentSlot = argumentSlots
                argumentSlots += 1
            }
            let fieldPlan = FieldPlan(
                index: index, responseKey: key, firstNode: first, moreNodes: moreNodes, definition: definition, parentType: objectType.name,
                shape: shape, constantArguments: constant, argumentSlot: argumentSlot, completion: completion
            )
            plans.append(fieldPlan)
            all.append(fieldPlan)
        }
        return SelectionPlan(fields: plans)
    }

    mutating func possiblePlans(_ abstractType: String, _ selectionSets: [SelectionSet], _ depth: Int) throws(PlanningError) -> [String: SelectionPlan] {
        var plans: [String: SelectionPlan] = [:]
        for object in schema.possibleTypes(of: abstractType) {
            plans[object.name] = try selection(for: object, selectionSets: selectionSets, depth: depth + 1)
        }
        return plans
    }

    /// Arguments that use no variable are coerced once, here.
    func constantArguments(_ definition: GraphQLFieldDefinition, _ field: Field) -> Result<JSONObject, FieldError>? {
        if definition.arguments.isEmpty { return Planner.noArguments }
        guard !field.arguments.contains(where: { Planner.usesVariables($0.value) }) else { return nil }
        do {
            return .success(try ArgumentCoercion.coerce(definition.arguments, nodes: field.arguments, schema: schema, variables: [:]))
        } catch {
            return .failure(error)
        }
    }

    static func usesVariables(_ value: Value) -> Bool {
        switch value {
        case .variable: return true
        case .list(let list): return list.values.contains(where: usesVariables)
        case .object(let object): return object.fields.contains { usesVariables($0.value) }
        default: return false
        }
    }

    func collectFields(_ typeName: String, _ selectionSet: SelectionSet, into collected: inout CollectedFields, visited: inout [String]) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                guard shouldInclude(field.directives) else { continue }
                collected.add(field)
            case .inlineFragment(let fragment):
                guard shouldInclude(fragment.directives) else { continue }
                if let condition = fragment.typeCondition, !fragmentApplies(condition.name.value, to: typeName) { continue }
                collectFields(typeName, fragment.selectionSet, into: &collected, visited: &visited)
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard !visited.contains(name), shouldInclude(spread.directives) else { continue }
                visited.append(name)
                guard let fragment = fragments[name], fragmentApplies(fragment.typeCondition.name.value, to: typeName) else { continue }
                collectFields(typeName, fragment.selectionSet, into: &collected, visited: &visited)
            }
        }
    }

    func fragmentApplies(_ condition: String, to typeName: String) -> Bool {
        // Only abstract types have subtypes, so no look-up of the condition's kind is needed.
        condition == typeName || schema.isSubType(typeName, of: condition)
    }

    /// `@skip(if:)` / `@include(if:)` (spec §6.3.2 steps 3.a–3.b).
    func shouldInclude(_ directives: [Directive]) -> Bool {
        if directives.isEmpty { return true }
        for directive in directives {
            let name = directive.name.value
            guard name == "skip" || name == "include" else { continue }
            guard let argument = directive.arguments.first(where: { $0.name.value == "if" }) else { continue }
            let value = ValueCoercion.coerceLiteral(argument.value, to: .nonNull(.named("Boolean")), in: schema, variables: variables)
            if name == "skip", value == .bool(true) { return false }
            if name == "include", value != .bool(true) { return false }
        }
        return true
    }

    /// Names of the variables that `@skip`/`@include` read anywhere in `document`.
    static func conditionVariables(_ document: Document) -> [String] {
        var names = Set<String>()
        func visit(_ directives: [Directive]) {
            for directive in directives where directive.name.value == "skip" || directive.name.value == "include" {
                for argument in directive.arguments {
                    if case .variable(let variable) = argument.value { names.insert(variable.name.value) }
                }
            }
        }
        func visit(_ selectionSet: SelectionSet) {
            for selection in selectionSet.selections {
                visit(selection.directives)
                switch selection {
                case .field(let field): if let set = field.selectionSet { visit(set) }
                case .inlineFragment(let fragment): visit(fragment.selectionSet)
                case .fragmentSpread: break
                }
            }
        }
        for definition in document.definitions {
            switch definition {
            case .operation(let operation): visit(operation.selectionSet)
            case .fragment(let fragment): visit(fragment.selectionSet)
            default: break
            }
        }
        return names.sorted()
    }
}

extension GraphQLSchema {
    /// Completions of every scalar and enum type, made once per schema.
    static func makeLeafCompletions(_ types: [GraphQLNamedType]) -> [String: FieldPlan.Completion] {
        var completions: [String: FieldPlan.Completion] = [:]
        for type in types {
            switch type {
            case .scalar(let scalar):
                completions[scalar.name] = scalar.builtin.map(FieldPlan.Completion.builtin) ?? .scalar(LeafType(scalar))
            case .enum(let enumType):
                completions[enumType.name] = .enum(LeafType(enumType))
            default:
                break
            }
        }
        return completions
    }
}
