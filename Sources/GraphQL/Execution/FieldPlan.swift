import JSON
import Synchronization

/// The fields of one selection set on one object type, collected (spec §6.3.2
/// "CollectFields") and resolved against the schema once per document and
/// assignment of the `@skip`/`@include` variables, then shared by every request
/// that executes that document.
///
/// The fields' plans are stored inline, in one buffer this selection owns (one
/// allocation per selection set, not one per field): a ``FieldPlan`` is a view
/// of one of them, read without reference counting.
///
/// `@unchecked Sendable`: the buffer is written only by the ``Planner`` before
/// the selection is made (and so before any request can reach it), read-only
/// afterwards (a plan's property hint is an `Atomic`), and freed by `deinit`.
final class SelectionPlan: @unchecked Sendable {
    private let base: UnsafeMutablePointer<FieldPlanStorage>
    /// How many fields the selection has.
    let count: Int
    /// The fields' response keys, shared by every result object of the selection.
    let responseKeys: [String]

    /// Takes ownership of `count` initialized plans at `base` (allocated by ``FieldPlanStorage/allocate(_:)``).
    init(base: UnsafeMutablePointer<FieldPlanStorage>, count: Int, responseKeys: [String]) {
        self.base = base
        self.count = count
        self.responseKeys = responseKeys
    }

    /// The field at `position` (`0..<count`): valid while this selection lives.
    @inline(__always)
    func field(_ position: Int) -> FieldPlan { FieldPlan(base + position) }

    deinit { FieldPlanStorage.release(base, count: count) }
}

/// One response key of a selection, as the executor reads it: a view of the plan
/// stored inline in its ``SelectionPlan``.
///
/// `@unchecked Sendable`: the storage is immutable once planned (the property
/// hint is an `Atomic`). A view is valid while its ``OperationPlan`` lives: the
/// operation plan owns every selection of the operation (from ``OperationPlan/root``),
/// the planning catalog (every ``SchemaField`` a plan refers to, unowned) and the
/// document (every field node a plan points to). The ``Executor`` holds it for
/// the whole execution and ``ResolveInfo`` for as long as a resolver keeps one;
/// pending work and paths only live inside the executor.
struct FieldPlan: @unchecked Sendable {
    let storage: UnsafePointer<FieldPlanStorage>

    @inline(__always) init(_ storage: UnsafeMutablePointer<FieldPlanStorage>) { self.storage = UnsafePointer(storage) }

    @inline(__always) var isLeafProperty: Bool { storage.pointee.isLeafProperty }
    @inline(__always) var readsProperty: Bool { storage.pointee.readsProperty }
    @inline(__always) var isTypename: Bool { storage.pointee.isTypename }
    @inline(__always) var shape: TypeShape { storage.pointee.shape }
    @inline(__always) var propertyHint: Int { storage.pointee.propertyHint.load(ordering: .relaxed) }
    @inline(__always) func rememberProperty(at index: Int) { storage.pointee.propertyHint.store(index, ordering: .relaxed) }
    @inline(__always) var fieldName: String { storage.pointee.fieldName }
    @inline(__always) var leafShortcut: LeafShortcut { storage.pointee.leafShortcut }
    @inline(__always) var writesStringsAsIs: Bool { storage.pointee.writesStringsAsIs }
    @inline(__always) var completion: Completion { storage.pointee.completion }
    @inline(__always) var objectSelection: Unmanaged<SelectionPlan>? { storage.pointee.objectSelection }
    @inline(__always) var abstractPlan: Unmanaged<AbstractPlan>? { storage.pointee.abstractPlan }
    @inline(__always) var responseKey: String { storage.pointee.responseKey }
    @inline(__always) var encodedNames: EncodedNames { storage.pointee.encodedNames }
    @inline(__always) var index: Int { storage.pointee.index }
    @inline(__always) var argumentSlot: Int { storage.pointee.argumentSlot }
    @inline(__always) var resolver: FieldResolver? { storage.pointee.schemaField._withUnsafeGuaranteedRef { $0.resolver } }
    /// Arguments coerced at planning time; `nil` when they depend on variables.
    @inline(__always) var constantArguments: Result<JSONObject, FieldError>? {
        storage.pointee.takesNoArguments ? Planner.noArguments : storage.pointee.constantArguments
    }
    /// The first field node of the key (its arguments are the field's arguments).
    var firstNode: Field { storage.pointee.firstNode }
    var parentTypeName: String { storage.pointee.schemaField._withUnsafeGuaranteedRef { $0.parentTypeName } }
    var argumentDefinitions: [GraphQLInputValueDefinition] { storage.pointee.schemaField._withUnsafeGuaranteedRef { $0.argumentDefinitions } }
    /// The arguments' names in definition order (shared by every request's coerced arguments).
    var argumentNames: [String] { storage.pointee.schemaField._withUnsafeGuaranteedRef { $0.argumentNames } }
    var type: GraphQLTypeReference { storage.pointee.schemaField._withUnsafeGuaranteedRef { $0.type } }

    /// Every field node of the key, in document order (made at planning time for a
    /// field with a resolver, whose ``ResolveInfo/fieldNodes`` a resolver may read per request).
    var nodes: [Field] {
        let planned = storage.pointee.resolverNodes
        if !planned.isEmpty { return planned }
        let moreNodes = storage.pointee.moreNodes
        return moreNodes.isEmpty ? [firstNode] : [firstNode] + moreNodes
    }

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
        return storage.pointee.schemaField._withUnsafeGuaranteedRef { field in
            for candidate in field.enumNames where candidate.utf8.count == length && candidate == name { return true }
            return false
        }
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
}

/// One response key of a selection: the schema's field, its resolver, its
/// arguments (coerced once when they use no variables) and how to complete its value,
/// stored inline in its ``SelectionPlan`` (read through ``FieldPlan``).
/// Hot fields are stored flat so that reading them retains as little as possible;
/// what is the same for every plan of the field stays in its ``SchemaField``.
struct FieldPlanStorage: ~Copyable {
    // What completing a property of a JSON object reads comes first: stored
    // properties are laid out in declaration order, so these share a cache line or two.

    /// A property whose named type is a leaf and whose type has no list at the top:
    /// the executor completes it inline, without a path step.
    let isLeafProperty: Bool
    /// Read by the default resolver from the parent JSON object: no resolver, not `__typename`.
    let readsProperty: Bool
    let isTypename: Bool
    /// Whether ``encodedNames`` is this plan's own (an aliased key) rather than its ``SchemaField``'s.
    let ownsEncodedNames: Bool
    /// The field type's list / non-null wrappers, packed.
    let shape: TypeShape
    /// Where the property was last found in a parent JSON object (objects of one
    /// shape keep members in the same places). Only a hint: always checked.
    let propertyHint = Atomic<Int>(-1)
    /// How most leaf values complete, flat (reading it retains nothing).
    let leafShortcut: FieldPlan.LeafShortcut
    /// A string value of this leaf serialises as itself (`String`, `ID`, or a custom scalar without `serialize`).
    let writesStringsAsIs: Bool
    let completion: FieldPlan.Completion
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
    /// The field has no arguments: ``FieldPlan/constantArguments`` is ``Planner/noArguments``
    /// (not stored per plan: most fields take none, and each copy is reference counted).
    let takesNoArguments: Bool
    /// Arguments coerced at planning time; `nil` when they depend on variables or the field takes none.
    let constantArguments: Result<JSONObject, FieldError>?
    /// The first field node of the key, a `.field` selection in place in the
    /// document (which the ``OperationPlan`` holds: see ``FieldPlan``).
    let node: UnsafePointer<Selection>
    /// Further field nodes merged into the key; usually none (and then no array is allocated).
    let moreNodes: [Field]
    /// Every field node of the key when the field has a resolver (empty otherwise): made
    /// once here, not once per request by ``FieldPlan/nodes``.
    let resolverNodes: [Field]
    /// The schema's field: what every plan of it shares (its resolver, enum values,
    /// type). Unretained: the ``OperationPlan`` holds the planning catalog, which
    /// holds every schema field, so planning takes no reference count on fields
    /// every request shares, and reading it (`_withUnsafeGuaranteedRef`) takes none either.
    let schemaField: Unmanaged<SchemaField>
    /// The field's name (inline: read for every property looked up).
    let fieldName: String

    /// The first field node of the key.
    var firstNode: Field {
        guard case .field(let field) = node.pointee else { preconditionFailure("a field plan's node is a field selection") }
        return field
    }

    init(index: Int, responseKey: String, node: UnsafePointer<Selection>, moreNodes: [Field], field: SchemaField, shape: TypeShape,
         constantArguments: Result<JSONObject, FieldError>?, argumentSlot: Int, completion: FieldPlan.Completion) {
        self.index = index
        self.responseKey = responseKey
        if responseKey == field.name {
            encodedNames = field.encodedNames
            ownsEncodedNames = false
        } else {
            encodedNames = EncodedNames(key: responseKey, typename: field.parentTypeName)
            ownsEncodedNames = true
        }
        self.node = node
        self.moreNodes = moreNodes
        if field.resolver != nil, case .field(let first) = node.pointee {
            resolverNodes = [first] + moreNodes
        } else {
            resolverNodes = []
        }
        self.schemaField = Unmanaged.passUnretained(field)
        self.fieldName = field.name
        self.shape = shape
        self.isTypename = field.isTypename
        self.takesNoArguments = field.argumentDefinitions.isEmpty
        self.constantArguments = field.argumentDefinitions.isEmpty ? nil : constantArguments
        self.argumentSlot = argumentSlot
        self.completion = completion
        let readsProperty = field.resolver == nil && !field.isTypename
        self.readsProperty = readsProperty
        self.leafShortcut = field.leafShortcut
        self.writesStringsAsIs = field.writesStringsAsIs
        switch completion {
        case .builtin, .scalar, .enum:
            isLeafProperty = readsProperty && !shape.isList(0)
            objectSelection = nil
            abstractPlan = nil
        case .object(let selection):
            isLeafProperty = false
            objectSelection = Unmanaged.passUnretained(selection)
            abstractPlan = nil
        case .abstract(let abstract):
            isLeafProperty = false
            objectSelection = nil
            abstractPlan = Unmanaged.passUnretained(abstract)
        case .invalid:
            isLeafProperty = false
            objectSelection = nil
            abstractPlan = nil
        }
    }

    /// Memory for the plans of a selection of at most `capacity` fields.
    static func allocate(_ capacity: Int) -> UnsafeMutablePointer<FieldPlanStorage> {
        .allocate(capacity: max(capacity, 1))
    }

    /// Deinitializes the first `count` plans at `base` (freeing aliased keys' encoded
    /// names) and frees the memory: a selection's `deinit`, or planning that failed.
    static func release(_ base: UnsafeMutablePointer<FieldPlanStorage>, count: Int) {
        for position in 0..<count where base[position].ownsEncodedNames { base[position].encodedNames.free() }
        base.deinitialize(count: count)
        base.deallocate()
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
    /// Where `__typename` was last found in a JSON value (see ``FieldPlan/propertyHint``).
    let typenameHint = Atomic<Int>(-1)

    /// The possible types' names and selections, in parallel, for small look-ups.
    private let names: [String]
    private let selections: [SelectionPlan]
    /// The selections by type name, only for abstract types with many possible types.
    private let byName: [String: SelectionPlan]

    /// Whether a ``TypeResolver`` decides (else the value's `__typename`); flat, so asking retains nothing.
    let hasTypeResolver: Bool

    init(name: String, resolveType: TypeResolver?, names: [String], selections: [SelectionPlan]) {
        self.name = name
        self.resolveType = resolveType
        self.hasTypeResolver = resolveType != nil
        self.names = names
        self.selections = selections
        if names.count > 16 {
            var byName: [String: SelectionPlan] = [:]
            for (name, selection) in zip(names, selections) where byName[name] == nil { byName[name] = selection }
            self.byName = byName
        } else {
            self.byName = [:]
        }
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
        guard names.count <= 16 else { return byName[typeName] }
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
    /// Every field plan, at the position of its `index`: views of plans stored in
    /// the selections ``root`` owns (directly or through nested plans), valid while this plan lives.
    let fields: [FieldPlan]
    /// How many fields have arguments that depend on variables (see ``FieldPlan/argumentSlot``).
    let argumentSlots: Int
    /// What the plans point to without holding it: the schema's fields and the document's field nodes.
    let catalog: PlanningCatalog
    let document: Document

    init(root: SelectionPlan, rootType: GraphQLObjectType, fields: [FieldPlan], argumentSlots: Int,
         catalog: PlanningCatalog, document: Document) {
        self.root = root
        self.rootType = rootType
        self.fields = fields
        self.argumentSlots = argumentSlots
        self.catalog = catalog
        self.document = document
    }
}

/// A planning failure (only for documents validation would reject, such as fragment cycles).
struct PlanningError: Error {
    let message: String
}

/// Fields grouped by response key, in first-appearance order, for every selection
/// a planner is working on at once: one stack shared by its nested calls. A
/// selection collects after the entries of the selections enclosing it and
/// removes its own when planned, so once the arrays have grown, collecting
/// allocates nothing. Selection sets are small, so a linear scan finds a key
/// until a selection has many (then a dictionary, for that selection only).
///
/// Field nodes are held as pointers to their selections in the document's arrays
/// (no field is copied into this stack). Safety: every array pointed into is
/// reached from the planner's ``Planner/document`` (copies of its parts share its
/// array storage), which the planner and then the ``OperationPlan`` (where the
/// plans keep the first node of each key) hold: while a reference to the
/// document's definitions is held, none of the arrays under them can be written
/// in place (a write copies a shared array first) or freed.
struct CollectedFields {
    /// Response keys; parallel to ``firsts``.
    var keys: [String] = []
    /// The first field node of each key: a `.field` selection, in place in the document.
    var firsts: [UnsafePointer<Selection>] = []
    /// Further field nodes of a key, with the key's position (merged fields are rare).
    var more: [(position: Int, field: UnsafePointer<Selection>)] = []
    /// The fragments spread so far by the selection being collected.
    var visited: [String] = []
    /// Key positions by key, for the selection being collected when it has many keys.
    var index: [String: Int] = [:]
    /// Where the selection being collected begins in ``keys``.
    var base = 0
    static let scanLimit = 24

    init() {
        keys.reserveCapacity(32)
        firsts.reserveCapacity(32)
    }

    /// Where a selection's entries begin: its keys and merged fields.
    struct Mark {
        let keys: Int
        let more: Int
    }

    /// Starts collecting a selection after the entries already held.
    mutating func begin() -> Mark {
        base = keys.count
        visited.removeAll(keepingCapacity: true)
        if !index.isEmpty { index.removeAll(keepingCapacity: true) }
        return Mark(keys: keys.count, more: more.count)
    }

    /// Removes the entries of the selection that began at `mark`.
    mutating func end(_ mark: Mark) {
        keys.removeSubrange(mark.keys...)
        firsts.removeSubrange(mark.keys...)
        if more.count > mark.more { more.removeSubrange(mark.more...) }
    }

    /// The further fields merged into the key at `position` (usually none: no array allocated).
    func merged(into position: Int, since mark: Mark) -> [Field] {
        guard more.count > mark.more else { return [] }
        var fields: [Field] = []
        for entry in more[mark.more...] where entry.position == position {
            if case .field(let field) = entry.field.pointee { fields.append(field) }
        }
        return fields
    }

    /// Adds the field selection at `selection`, whose response key is `key`, to the selection being collected.
    mutating func add(_ key: String, at selection: UnsafePointer<Selection>) {
        if keys.count - base < CollectedFields.scanLimit {
            let length = key.utf8.count
            for position in base..<keys.count where keys[position].utf8.count == length && keys[position] == key {
                more.append((position, selection))
                return
            }
        } else {
            if index.isEmpty {
                for position in base..<keys.count { index[keys[position]] = position }
            }
            if let position = index[key] {
                more.append((position, selection))
                return
            }
            index[key] = keys.count
        }
        keys.append(key)
        firsts.append(selection)
    }
}

/// The selection sets merged into one selection: a field's (and those of the
/// fields merged with it under its response key), or an operation's.
struct SubSelections {
    let first: SelectionSet?
    /// Fields merged into the key; their selection sets follow `first`'s.
    let more: [Field]

    /// Calls `body` with each selection set in order until it returns false; false then.
    @inline(__always)
    func allSatisfy(_ body: (SelectionSet) -> Bool) -> Bool {
        if let first, !body(first) { return false }
        for field in more {
            if let set = field.selectionSet, !body(set) { return false }
        }
        return true
    }
}

/// Builds ``OperationPlan``s: collects fields per object type, eagerly for every
/// possible runtime type of abstract fields. Fields are found in the schema's
/// ``PlanningCatalog``: one look-up per selected field, no schema structs copied.
struct Planner {
    let schema: GraphQLSchema
    let catalog: PlanningCatalog
    /// What collecting fields reads: the document's fragments and the condition variables.
    let scope: PlanningScope
    /// The document planned: field plans point into it (see ``FieldPlanStorage/node``).
    let document: Document
    var argumentSlots = 0
    /// Every field plan made so far; a plan's index is its position here.
    var all: [FieldPlan] = []
    /// Plans of selections made only of fragment spreads, by type and fragment
    /// names (few per document: a scan that allocates nothing to ask).
    var fragmentPlans: [FragmentOnlyPlan] = []
    /// The fields of the selections being planned (see ``CollectedFields``).
    var collected = CollectedFields()
    static let maxDepth = 256
    static let noArguments: Result<JSONObject, FieldError> = .success(JSONObject())

    struct FragmentOnlyPlan {
        let typeName: String
        let spreads: [String]
        let plan: SelectionPlan
    }

    init(schema: GraphQLSchema, document: Document, variables: JSONObject) {
        self.schema = schema
        self.catalog = schema.planning
        self.scope = PlanningScope(schema: schema, document: document, variables: variables)
        self.document = document
        all.reserveCapacity(64)
    }

    mutating func plan(_ operation: OperationDefinition, rootType: GraphQLObjectType) throws(PlanningError) -> OperationPlan {
        guard let rootObject = catalog.object(named: rootType.name) else {
            throw PlanningError(message: "The root type \(rootType.name) is not an object type of the schema.")
        }
        let root = try selection(for: rootObject, SubSelections(first: operation.selectionSet, more: []), depth: 0)
        return OperationPlan(root: root, rootType: rootType, fields: all, argumentSlots: argumentSlots, catalog: catalog, document: document)
    }

    mutating func selection(for object: PlanningObject, _ sub: SubSelections, depth: Int) throws(PlanningError) -> SelectionPlan {
        guard depth < Planner.maxDepth else {
            throw PlanningError(message: "Selections nest more than \(Planner.maxDepth) levels deep (is there a fragment cycle?).")
        }
        // `{ ...Money }` in many places plans once per object type: a selection made
        // only of plain fragment spreads depends on nothing else.
        guard Planner.isFragmentOnly(sub) else { return try collectAndPlan(object, sub, depth) }
        let typeName = object.name
        // Read in place: iterating would copy (retain) each memo's parts.
        let memoized: SelectionPlan? = fragmentPlans.withUnsafeBufferPointer { memos in
            for position in memos.indices where memos[position].typeName == typeName && Planner.spreads(sub, equal: memos[position].spreads) {
                return memos[position].plan
            }
            return nil
        }
        if let memoized { return memoized }
        let plan = try collectAndPlan(object, sub, depth)
        var spreads: [String] = []
        _ = sub.allSatisfy { selectionSet in
            for case .fragmentSpread(let spread) in selectionSet.selections { spreads.append(spread.name.value) }
            return true
        }
        fragmentPlans.append(FragmentOnlyPlan(typeName: object.name, spreads: spreads, plan: plan))
        return plan
    }

    /// Whether every selection is a fragment spread without directives (and there is one at least).
    static func isFragmentOnly(_ sub: SubSelections) -> Bool {
        var any = false
        let plain = sub.allSatisfy { selectionSet in
            let plain = selectionSet.selections.withUnsafeBufferPointer { selections in
                for position in selections.indices {
                    guard selections[position].kind == .fragmentSpread, selections[position].hasNoDirectives else { return false }
                }
                return true
            }
            any = any || !selectionSet.selections.isEmpty
            return plain
        }
        return plain && any
    }

    /// Whether the spreads of fragment-only selections `sub` name `names`, in order.
    static func spreads(_ sub: SubSelections, equal names: [String]) -> Bool {
        var count = 0
        let matches = sub.allSatisfy { selectionSet in
            selectionSet.selections.withUnsafeBufferPointer { selections in
                for position in selections.indices {
                    guard count < names.count, selections[position].kind == .fragmentSpread,
                          selections[position].spreadName == names[count] else { return false }
                    count += 1
                }
                return true
            }
        }
        return matches && count == names.count
    }

    private mutating func collectAndPlan(_ object: PlanningObject, _ sub: SubSelections, _ depth: Int) throws(PlanningError) -> SelectionPlan {
        let mark = collected.begin()
        defer { collected.end(mark) }
        if let first = sub.first { collected.collect(object.name, first, in: scope) }
        for field in sub.more {
            if let set = field.selectionSet { collected.collect(object.name, set, in: scope) }
        }
        let end = collected.keys.count
        // The plans are made in place, in the selection's own buffer; on a failure
        // those made so far are released with it.
        let base = FieldPlanStorage.allocate(end - mark.keys)
        var count = 0
        var responseKeys: [String] = []
        responseKeys.reserveCapacity(end - mark.keys)
        do throws(PlanningError) {
            for position in mark.keys..<end {
                let node = collected.firsts[position]
                guard let field = object.field(named: node.pointee.fieldName) else { continue }
                let moreNodes = collected.merged(into: position, since: mark)
                let completion: FieldPlan.Completion
                switch field.target {
                case .leaf(let leaf):
                    completion = leaf
                case .object(let target):
                    let fieldSub = SubSelections(first: node.pointee.fieldSelectionSet, more: moreNodes)
                    completion = .object(try selection(for: catalog.objects[target], fieldSub, depth: depth + 1))
                case .abstract(let target):
                    let fieldSub = SubSelections(first: node.pointee.fieldSelectionSet, more: moreNodes)
                    let abstract = catalog.abstracts[target]
                    var names: [String] = []
                    var selections: [SelectionPlan] = []
                    names.reserveCapacity(abstract.possible.count)
                    selections.reserveCapacity(abstract.possible.count)
                    for objectIndex in abstract.possible {
                        let possible = catalog.objects[objectIndex]
                        names.append(possible.name)
                        selections.append(try selection(for: possible, fieldSub, depth: depth + 1))
                    }
                    completion = .abstract(AbstractPlan(name: abstract.name, resolveType: abstract.resolveType, names: names, selections: selections))
                case .invalid:
                    completion = .invalid
                }
                guard let shape = field.shape else {
                    throw PlanningError(message: "The type of \(object.name).\(field.name) nests lists too deeply.")
                }
                let takesNone = field.argumentDefinitions.isEmpty
                let constant = takesNone ? nil : constantArguments(field.argumentDefinitions, node.pointee.fieldArguments)
                var argumentSlot = -1
                if !takesNone, constant == nil {
                    argumentSlot = argumentSlots
                    argumentSlots += 1
                }
                let key = collected.keys[position]
                (base + count).initialize(to: FieldPlanStorage(
                    index: all.count, responseKey: key, node: node, moreNodes: moreNodes, field: field,
                    shape: shape, constantArguments: constant, argumentSlot: argumentSlot, completion: completion
                ))
                all.append(FieldPlan(base + count))
                responseKeys.append(key)
                count += 1
            }
        } catch {
            FieldPlanStorage.release(base, count: count)
            throw error
        }
        return SelectionPlan(base: base, count: count, responseKeys: responseKeys)
    }

    /// Arguments that use no variable are coerced once, here.
    func constantArguments(_ definitions: [GraphQLInputValueDefinition], _ arguments: [Argument]) -> Result<JSONObject, FieldError>? {
        if definitions.isEmpty { return Planner.noArguments }
        guard !arguments.contains(where: { Planner.usesVariables($0.value) }) else { return nil }
        do {
            return .success(try ArgumentCoercion.coerce(definitions, nodes: arguments, schema: schema, variables: [:]))
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

/// What collecting fields reads (spec §6.3.2 "CollectFields"): the document's
/// fragments and the values of the variables `@skip`/`@include` read. Kept apart
/// from the planner's mutable state, so collecting can read it while writing
/// ``CollectedFields`` without copying either.
struct PlanningScope {
    let schema: GraphQLSchema
    /// The document's fragments (the first of each name), in parallel with their names.
    let fragmentNames: [String]
    /// Each fragment's type condition and selection set, in parallel with ``fragmentNames``.
    let fragmentTypeConditions: [String]
    let fragmentSelectionSets: [SelectionSet]
    /// Positions by name, only for documents with many fragments (else a scan).
    let fragmentIndex: [String: Int]
    /// Values of the variables `@skip`/`@include` read (others are not consulted).
    let variables: JSONObject

    init(schema: GraphQLSchema, document: Document, variables: JSONObject) {
        self.schema = schema
        self.variables = variables
        var names: [String] = []
        var conditions: [String] = []
        var selectionSets: [SelectionSet] = []
        var index: [String: Int] = [:]
        // Read in place, part by part (see `SelectionParts.swift`): no definition is copied whole.
        document.definitions.withUnsafeBufferPointer { definitions in
            for position in definitions.indices {
                guard let name = definitions[position].fragmentName, !names.contains(name),
                      let selectionSet = definitions[position].fragmentSelectionSet else { continue }
                names.append(name)
                conditions.append(definitions[position].fragmentTypeCondition)
                selectionSets.append(selectionSet)
            }
        }
        if names.count > 16 {
            for (position, name) in names.enumerated() { index[name] = position }
        }
        fragmentNames = names
        fragmentTypeConditions = conditions
        fragmentSelectionSets = selectionSets
        fragmentIndex = index
    }

    /// The position of the fragment called `name`.
    func fragmentPosition(_ name: String) -> Int? {
        guard fragmentNames.count <= 16 else { return fragmentIndex[name] }
        let length = name.utf8.count
        for position in fragmentNames.indices where fragmentNames[position].utf8.count == length && fragmentNames[position] == name {
            return position
        }
        return nil
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
}

extension CollectedFields {
    /// Adds the fields `selectionSet` selects on object type `typeName` to the selection being collected.
    mutating func collect(_ typeName: String, _ selectionSet: SelectionSet, in scope: borrowing PlanningScope) {
        // Read in place, part by part (see `SelectionParts.swift`): iterating the
        // array or binding a case's payload would copy (retain) each selection's parts.
        selectionSet.selections.withUnsafeBufferPointer { selections in
            guard let start = selections.baseAddress else { return }
            for position in selections.indices {
                let selection = start + position
                let included = selection.pointee.hasNoDirectives || scope.shouldInclude(selection.pointee.directives)
                switch selection.pointee.kind {
                case .field:
                    guard included else { continue }
                    add(selection.pointee.fieldResponseKey, at: selection)
                case .inlineFragment:
                    guard included, let fragmentSet = selection.pointee.inlineSelectionSet else { continue }
                    if let condition = selection.pointee.inlineTypeCondition, !scope.fragmentApplies(condition, to: typeName) { continue }
                    collect(typeName, fragmentSet, in: scope)
                case .fragmentSpread:
                    let name = selection.pointee.spreadName
                    guard !visited.contains(name), included else { continue }
                    visited.append(name)
                    guard let fragment = scope.fragmentPosition(name),
                          scope.fragmentApplies(scope.fragmentTypeConditions[fragment], to: typeName) else { continue }
                    collect(typeName, scope.fragmentSelectionSets[fragment], in: scope)
                }
            }
        }
    }
}
