import JSON
import Synchronization

/// A field value as far as it could be completed without waiting.
enum Completed {
    /// Finished.
    case value(JSONValue)
    /// An object or list with holes still waiting for async work.
    case node(ResultNode)
    /// The value itself is not known yet.
    case pending(Deferred)
    /// A non-null position became null: the enclosing nullable position becomes null.
    case failed
}

/// A composite result (object or list) that still has pending parts. Only the
/// executing task touches it; pending work returns raw values to that task.
final class ResultNode {
    enum Slot {
        case value(JSONValue)
        case node(ResultNode, nonNull: Bool)
        case pending
        case failed
    }

    let isList: Bool
    var keys: [String]
    var slots: [Slot]

    init(object: JSONObject) {
        isList = false
        keys = object.keys
        slots = object.values.map(Slot.value)
    }

    init(keys: [String], values: [JSONValue]) {
        isList = false
        self.keys = keys
        slots = values.map(Slot.value)
    }

    init(list: [JSONValue]) {
        isList = true
        keys = []
        slots = list.map(Slot.value)
    }

    /// The finished JSON, or `nil` when a non-null position inside failed.
    func finish() -> JSONValue? {
        var values: [JSONValue] = []
        values.reserveCapacity(slots.count)
        for slot in slots {
            switch slot {
            case .value(let value): values.append(value)
            case .node(let child, let nonNull):
                if let finished = child.finish() {
                    values.append(finished)
                } else if nonNull {
                    return nil
                } else {
                    values.append(.null)
                }
            case .pending: values.append(.null)
            case .failed: return nil
            }
        }
        if isList { return .array(values) }
        var object = JSONObject(capacity: values.count)
        for (key, value) in zip(keys, values) { object.append(key, value) }
        return .object(object)
    }
}

/// Async work a resolver handed back, and where its value goes.
struct PendingWork {
    let node: ResultNode
    let slot: Int
    /// Wrapper level of the field's type at the slot (see ``TypeShape``).
    let level: Int
    let plan: FieldPlan
    let path: ResponsePath
    let deferred: Deferred
}

/// The parent value of a selection: a JSON object (read without casts) or any value.
enum ObjectSource {
    case json(JSONObject)
    case value(any Sendable)

    /// The value as resolvers see it.
    var boxed: any Sendable {
        switch self {
        case .json(let object): return JSONValue.object(object)
        case .value(let value): return value
        }
    }
}

/// Executes one operation (spec §6). Completes everything it can synchronously,
/// collecting async work as ``PendingWork``; then runs pending work concurrently
/// (serially per root field for mutations) and completes each result as it
/// arrives, which may queue more work.
///
/// A struct driven through `mutating` methods: its state is only ever touched by
/// the task executing the request, and value semantics keep exclusivity checks static.
struct Executor {
    let schema: GraphQLSchema
    let variables: JSONObject
    let scope: RequestScope
    let source: Source
    var errors: [GraphQLError] = []
    var pending: [PendingWork] = []
    /// The response path of the value being completed, as steps (a list index, or
    /// `-(plan index + 1)` for a field: no strings copied per field), and the path
    /// objects materialised for it so far.
    var pathSteps: [Int] = []
    var pathObjects: [ResponsePath?] = []
    /// The operation's field plans by index (to turn steps back into keys).
    let fieldPlans: [FieldPlan]
    /// Arguments that depend on variables, coerced once per request, by ``FieldPlan/argumentSlot``.
    var argumentMemo: [Result<JSONObject, FieldError>?]

    init(schema: GraphQLSchema, source: Source, variables: JSONObject, scope: RequestScope, plan: OperationPlan) {
        self.schema = schema
        self.variables = variables
        self.scope = scope
        self.source = source
        self.fieldPlans = plan.fields
        self.argumentMemo = Array(repeating: nil, count: plan.argumentSlots)
        pathSteps.reserveCapacity(16)
        pathObjects.reserveCapacity(16)
    }

    // MARK: Paths and errors

    @inline(__always) mutating func pushField(_ plan: FieldPlan) {
        pathSteps.append(-plan.index - 1)
        pathObjects.append(nil)
    }

    @inline(__always) mutating func pushIndex(_ index: Int) {
        pathSteps.append(index)
        pathObjects.append(nil)
    }

    @inline(__always) mutating func pop() {
        pathSteps.removeLast()
        pathObjects.removeLast()
    }

    func element(_ step: Int) -> PathElement {
        step >= 0 ? .index(step) : .key(fieldPlans[-step - 1].responseKey)
    }

    /// The current path as a shared linked path (built once per prefix).
    mutating func currentPath() -> ResponsePath {
        materialize(pathSteps.count - 1)
    }

    private mutating func materialize(_ depth: Int) -> ResponsePath {
        if let existing = pathObjects[depth] { return existing }
        let parent = depth > 0 ? materialize(depth - 1) : nil
        let step = pathSteps[depth]
        let path = ResponsePath(parent: parent, key: element(step), step: step)
        pathObjects[depth] = path
        return path
    }

    mutating func restorePath(_ path: ResponsePath) {
        var chain: [ResponsePath] = []
        var node: ResponsePath? = path
        while let current = node {
            chain.append(current)
            node = current.parent
        }
        pathSteps.removeAll(keepingCapacity: true)
        pathObjects.removeAll(keepingCapacity: true)
        for step in chain.reversed() {
            pathSteps.append(step.step)
            pathObjects.append(step)
        }
    }

    mutating func record(_ error: FieldError, _ plan: FieldPlan) {
        errors.append(GraphQLError(
            error.message,
            locations: source.locations(at: plan.nodes.map(\.loc.start)),
            path: pathSteps.map(element),
            extensions: error.extensions
        ))
    }

    // MARK: Objects

    /// Executes a selection on `source` (spec §6.3 "ExecuteSelectionSet").
    mutating func executeFields(_ selection: SelectionPlan, source: ObjectSource) -> Completed {
        if case .json(let object) = source { return executeFields(selection, json: object) }
        let fields = selection.fields
        var values: [JSONValue] = []
        values.reserveCapacity(fields.count)
        var node: ResultNode?
        for position in fields.indices {
            let plan = fields[position]
            pushField(plan)
            let completed = executeField(plan, source: source)
            let placed = placeField(completed, plan, position, selection, &values, &node)
            pop()
            if !placed { return .failed }
        }
        if let node { return .node(node) }
        return .value(.object(JSONObject(keys: selection.responseKeys, values: values)))
    }

    /// ``executeFields(_:source:)`` on a JSON object: properties are read in place
    /// (at their remembered positions), leaf properties complete without a path step,
    /// and the result shares the selection's array of response keys.
    mutating func executeFields(_ selection: SelectionPlan, json object: JSONObject) -> Completed {
        let fields = selection.fields
        var values: [JSONValue] = []
        values.reserveCapacity(fields.count)
        var node: ResultNode?
        for position in fields.indices {
            // The plans are shared by every request on every thread: `fields` keeps
            // them alive, and not retaining each one spares a contended reference count.
            unowned(unsafe) let plan = fields[position]
            if plan.isLeafProperty {
                let completed = Unmanaged.passUnretained(plan)._withUnsafeGuaranteedRef { completeLeafProperty($0, object) }
                guard let value = completed else { return .failed }
                if let node {
                    node.keys.append(plan.responseKey)
                    node.slots.append(.value(value))
                } else {
                    values.append(value)
                }
                continue
            }
            let placed = Unmanaged.passUnretained(plan)._withUnsafeGuaranteedRef { plan in
                pushField(plan)
                let completed: Completed
                if plan.readsProperty {
                    if let index = propertyIndex(plan, object) {
                        completed = completeJSONCatching(0, plan, object.values[index])
                    } else {
                        completed = complete(0, plan, nil)
                    }
                } else {
                    completed = executeField(plan, source: .json(object))
                }
                let placed = placeField(completed, plan, position, selection, &values, &node)
                pop()
                return placed
            }
            if !placed { return .failed }
        }
        if let node { return .node(node) }
        return .value(.object(JSONObject(keys: selection.responseKeys, values: values)))
    }

    /// Stores a field's completion at `position`; false when the object itself fails.
    /// The field's path step must still be pushed (pending work records it).
    @inline(__always)
    private mutating func placeField(_ completed: consuming Completed, _ plan: FieldPlan, _ position: Int, _ selection: SelectionPlan,
                                     _ values: inout [JSONValue], _ node: inout ResultNode?) -> Bool {
        switch consume completed {
        case .value(let value):
            if let node {
                node.keys.append(plan.responseKey)
                node.slots.append(.value(value))
            } else {
                values.append(value)
            }
        case .failed:
            return false
        case .node(let child):
            let target = node ?? ResultNode(keys: Array(selection.responseKeys[..<position]), values: values)
            node = target
            target.keys.append(plan.responseKey)
            target.slots.append(.node(child, nonNull: plan.shape.isNonNull(0)))
        case .pending(let deferred):
            let target = node ?? ResultNode(keys: Array(selection.responseKeys[..<position]), values: values)
            node = target
            target.keys.append(plan.responseKey)
            target.slots.append(.pending)
            pending.append(PendingWork(node: target, slot: target.slots.count - 1, level: 0, plan: plan, path: currentPath(), deferred: deferred))
        }
        return true
    }

    /// Where the default resolver finds `plan`'s property in `object`, trying the remembered position first.
    @inline(__always)
    func propertyIndex(_ plan: FieldPlan, _ object: JSONObject) -> Int? {
        let hint = plan.propertyHint.load(ordering: .relaxed)
        guard let index = object.index(forKey: plan.fieldName, hint: hint) else { return nil }
        if index != hint { plan.propertyHint.store(index, ordering: .relaxed) }
        return index
    }

    /// A leaf-typed property of a JSON object, completed without pushing a path
    /// step (pushed only to record an error): the same outcome as
    /// ``executeField(_:source:)`` followed by ``completeJSON(_:_:_:)``, as the
    /// value itself (`nil`: the non-null field failed). A value that serialises as
    /// itself is handed on without another copy (each copy of data shared between
    /// threads costs a contended reference count).
    @inline(__always)
    mutating func completeLeafProperty(_ plan: FieldPlan, _ object: JSONObject) -> JSONValue? {
        guard let index = propertyIndex(plan, object) else { return leafNull(plan) }
        let value = object.values[index]
        if case .null = value { return leafNull(plan) }
        switch plan.leafShortcut {
        case .builtin(let builtin): if builtin.servesAsIs(value) { return value }
        case .passThrough: return value
        case .enumName: if case .string(let name) = value, plan.hasEnumName(name) { return value }
        case .none: break
        }
        let serialized: JSONValue
        do {
            switch plan.completion {
            case .builtin(let builtin): serialized = try builtin.serializeJSON(value)
            case .scalar(let scalar): serialized = try scalar.type.serializeJSON(value)
            case .enum(let enumType): serialized = try enumType.type.serializeJSON(value)
            case .object, .abstract, .invalid: serialized = .null
            }
        } catch {
            return leafFailed(FieldError(error.message), plan)
        }
        if case .null = serialized { return leafNull(plan) }
        return serialized
    }

    /// A leaf property that is null: null, or an error when the field is non-null.
    private mutating func leafNull(_ plan: FieldPlan) -> JSONValue? {
        plan.shape.isNonNull(0) ? leafFailed(nonNullError(plan), plan) : .null
    }

    /// Records an error of a leaf property completed without a path step.
    private mutating func leafFailed(_ error: FieldError, _ plan: FieldPlan) -> JSONValue? {
        pushField(plan)
        record(error, plan)
        pop()
        return plan.shape.isNonNull(0) ? nil : .null
    }

    /// Resolves and completes one field (spec §6.4 "ExecuteField"); the path is already pushed.
    mutating func executeField(_ plan: FieldPlan, source: ObjectSource) -> Completed {
        if plan.isTypename { return .value(.string(plan.parentTypeName)) }
        guard let resolver = plan.resolver else {
            // The default resolver: the property named like the field.
            switch source {
            case .json(let object):
                guard let index = propertyIndex(plan, object) else { return complete(0, plan, nil) }
                return completeJSONCatching(0, plan, object.values[index])
            case .value(let value):
                return complete(0, plan, Executor.property(of: value, plan.fieldName))
            }
        }
        let arguments: JSONObject
        switch plan.constantArguments ?? argumentMemo[plan.argumentSlot] ?? coerceArguments(plan) {
        case .success(let value): arguments = value
        case .failure(let error): return fieldFailed(error, plan)
        }
        let input = ResolveInput(
            source: source.boxed,
            arguments: arguments,
            info: ResolveInfo(field: plan, path: currentPath(), request: scope)
        )
        switch resolver.body {
        case .sync(let resolve):
            let raw: (any Sendable)?
            do {
                raw = try resolve(input)
            } catch {
                return fieldFailed(FieldError(wrapping: error), plan)
            }
            return complete(0, plan, raw)
        case .async(let resolve):
            return .pending(Deferred { try await resolve(input) })
        }
    }

    mutating func coerceArguments(_ plan: FieldPlan) -> Result<JSONObject, FieldError> {
        let result: Result<JSONObject, FieldError>
        do {
            result = .success(try ArgumentCoercion.coerce(plan.argumentDefinitions, nodes: plan.firstNode.arguments, schema: schema, variables: variables))
        } catch {
            result = .failure(error)
        }
        argumentMemo[plan.argumentSlot] = result
        return result
    }

    @inline(__always) mutating func fieldFailed(_ error: FieldError, _ plan: FieldPlan) -> Completed {
        record(error, plan)
        return plan.shape.isNonNull(0) ? .failed : .value(.null)
    }

    /// Completes a value at wrapper `level` of the field's type, turning errors into null (or failure).
    mutating func complete(_ level: Int, _ plan: FieldPlan, _ raw: (any Sendable)?) -> Completed {
        let completed: Completed
        do {
            completed = try completeValue(level, plan, raw)
        } catch {
            record(error, plan)
            return plan.shape.isNonNull(level) ? .failed : .value(.null)
        }
        if case .failed = completed, !plan.shape.isNonNull(level) { return .value(.null) }
        return completed
    }

    /// ``complete(_:_:_:)`` for a JSON value.
    @inline(__always)
    mutating func completeJSONCatching(_ level: Int, _ plan: FieldPlan, _ json: JSONValue) -> Completed {
        let completed: Completed
        do {
            completed = try completeJSON(level, plan, json)
        } catch {
            record(error, plan)
            return plan.shape.isNonNull(level) ? .failed : .value(.null)
        }
        if case .failed = completed, !plan.shape.isNonNull(level) { return .value(.null) }
        return completed
    }

    func nonNullError(_ plan: FieldPlan) -> FieldError {
        FieldError("Cannot return null for non-nullable field \(plan.parentTypeName).\(plan.fieldName).")
    }

    func notIterable(_ plan: FieldPlan) -> FieldError {
        FieldError("Expected Iterable, but did not find one for field \"\(plan.parentTypeName).\(plan.fieldName)\".")
    }

    /// Spec §6.4.3 "CompleteValue", at wrapper `level` of the field's type.
    mutating func completeValue(_ level: Int, _ plan: FieldPlan, _ raw: (any Sendable)?) throws(FieldError) -> Completed {
        guard let raw else {
            if plan.shape.isNonNull(level) { throw nonNullError(plan) }
            return .value(.null)
        }
        if let json = raw as? JSONValue { return try completeJSON(level, plan, json) }
        if let deferred = raw as? Deferred { return .pending(deferred) }
        let completed: Completed
        if plan.shape.isList(level) {
            if let items = raw as? [any Sendable] {
                completed = completeList(level + 1, plan, items)
            } else if let items = raw as? [JSONValue] {
                completed = completeJSONList(level + 1, plan, items)
            } else {
                throw notIterable(plan)
            }
        } else {
            switch plan.completion {
            case .builtin(let builtin):
                do { completed = .value(try builtin.serialize(raw)) } catch { throw FieldError(error.message) }
            case .scalar(let scalar):
                do { completed = .value(try scalar.type.serializeValue(raw)) } catch { throw FieldError(error.message) }
            case .enum(let enumType):
                do { completed = .value(try enumType.type.serializeValue(raw)) } catch { throw FieldError(error.message) }
            case .object(let selection):
                completed = executeFields(selection, source: .value(raw))
            case .abstract(let abstract):
                let selection = try runtimeSelection(of: raw, abstract, plan)
                completed = executeFields(selection, source: .value(raw))
            case .invalid:
                throw FieldError("Cannot complete value of unexpected output type: \"\(plan.type)\".")
            }
        }
        if plan.shape.isNonNull(level), case .value(.null) = completed { throw nonNullError(plan) }
        return completed
    }

    /// ``completeValue(_:_:_:)`` for JSON values: no dynamic casts, no type walking.
    mutating func completeJSON(_ level: Int, _ plan: FieldPlan, _ json: JSONValue) throws(FieldError) -> Completed {
        let completed: Completed
        if plan.shape.isList(level) {
            switch json {
            case .null: completed = .value(.null)
            case .array(let items): completed = completeJSONList(level + 1, plan, items)
            default: throw notIterable(plan)
            }
        } else if case .null = json {
            completed = .value(.null)
        } else {
            switch plan.completion {
            case .builtin(let builtin):
                do { completed = .value(try builtin.serializeJSON(json)) } catch { throw FieldError(error.message) }
            case .scalar(let scalar):
                if scalar.passesJSONThrough {
                    completed = .value(json)
                } else {
                    do { completed = .value(try scalar.type.serializeJSON(json)) } catch { throw FieldError(error.message) }
                }
            case .enum(let enumType):
                if case .string(let name) = json, plan.hasEnumName(name) {
                    completed = .value(json)
                } else {
                    do { completed = .value(try enumType.type.serializeJSON(json)) } catch { throw FieldError(error.message) }
                }
            case .object(let selection):
                if case .object(let object) = json {
                    // The plan keeps its selection alive: no retain of the shared plan.
                    if let shared = plan.objectSelection {
                        completed = shared._withUnsafeGuaranteedRef { executeFields($0, json: object) }
                    } else {
                        completed = executeFields(selection, json: object)
                    }
                } else {
                    completed = executeFields(selection, source: .value(json))
                }
            case .abstract(let abstract):
                if case .object(let object) = json {
                    let selection = try runtimeSelection(ofJSON: object, abstract, plan)
                    completed = executeFields(selection, json: object)
                } else {
                    let selection = try runtimeSelection(of: json, abstract, plan)
                    completed = executeFields(selection, source: .value(json))
                }
            case .invalid:
                throw FieldError("Cannot complete value of unexpected output type: \"\(plan.type)\".")
            }
        }
        if plan.shape.isNonNull(level), case .value(.null) = completed { throw nonNullError(plan) }
        return completed
    }

    /// Spec §6.4.3 for lists: every item completed at its index (`level` is the items' level).
    mutating func completeList(_ level: Int, _ plan: FieldPlan, _ items: [any Sendable]) -> Completed {
        var values: [JSONValue] = []
        values.reserveCapacity(items.count)
        var node: ResultNode?
        for (index, item) in items.enumerated() {
            pushIndex(index)
            let completed = complete(level, plan, item)
            if !place(completed, at: index, level: level, plan: plan, values: &values, node: &node) {
                pop()
                return .failed
            }
            pop()
        }
        if let node { return .node(node) }
        return .value(.array(values))
    }

    mutating func completeJSONList(_ level: Int, _ plan: FieldPlan, _ items: [JSONValue]) -> Completed {
        var values: [JSONValue] = []
        values.reserveCapacity(items.count)
        var node: ResultNode?
        for index in items.indices {
            pushIndex(index)
            let completed = completeJSONCatching(level, plan, items[index])
            if !place(completed, at: index, level: level, plan: plan, values: &values, node: &node) {
                pop()
                return .failed
            }
            pop()
        }
        if let node { return .node(node) }
        return .value(.array(values))
    }

    /// Stores a list item's completion; false when the list itself fails.
    @inline(__always)
    private mutating func place(_ completed: consuming Completed, at index: Int, level: Int, plan: FieldPlan,
                                values: inout [JSONValue], node: inout ResultNode?) -> Bool {
        switch consume completed {
        case .value(let value):
            if let node { node.slots.append(.value(value)) } else { values.append(value) }
        case .failed:
            return false
        case .node(let child):
            let target = node ?? ResultNode(list: values)
            node = target
            target.slots.append(.node(child, nonNull: plan.shape.isNonNull(level)))
        case .pending(let deferred):
            let target = node ?? ResultNode(list: values)
            node = target
            target.slots.append(.pending)
            pending.append(PendingWork(node: target, slot: index, level: level, plan: plan, path: currentPath(), deferred: deferred))
        }
        return true
    }

    /// ``runtimeSelection(of:_:_:)`` for a JSON object: without a type resolver,
    /// reads its `__typename` in place (no boxing, no casts).
    mutating func runtimeSelection(ofJSON object: JSONObject, _ abstract: AbstractPlan, _ plan: FieldPlan) throws(FieldError) -> SelectionPlan {
        guard abstract.resolveType == nil else { return try runtimeSelection(of: JSONValue.object(object), abstract, plan) }
        let hint = abstract.typenameHint.load(ordering: .relaxed)
        var name: String?
        if let index = object.index(forKey: "__typename", hint: hint) {
            if index != hint { abstract.typenameHint.store(index, ordering: .relaxed) }
            if case .string(let found) = object.values[index] { name = found }
        }
        return try selection(named: name, abstract, plan)
    }

    /// Spec §6.4.3 "ResolveAbstractType": the selection for the value's object type.
    mutating func runtimeSelection(of value: any Sendable, _ abstract: AbstractPlan, _ plan: FieldPlan) throws(FieldError) -> SelectionPlan {
        let resolver = abstract.resolveType
        let name: String?
        if let resolver {
            do {
                name = try resolver.body(value, ResolveInfo(field: plan, path: currentPath(), request: scope))
            } catch {
                throw FieldError(wrapping: error)
            }
        } else {
            name = Executor.typename(of: value)
        }
        return try selection(named: name, abstract, plan)
    }

    /// The selection of the object type `name` an abstract value resolved to, or the error graphql-js gives.
    func selection(named name: String?, _ abstract: AbstractPlan, _ plan: FieldPlan) throws(FieldError) -> SelectionPlan {
        let abstractType = abstract.name
        guard let name else {
            throw FieldError("Abstract type \"\(abstractType)\" must resolve to an Object type at runtime for field \"\(plan.parentTypeName).\(plan.fieldName)\". Either the \"\(abstractType)\" type should provide a \"resolveType\" function or each possible type should provide an \"isTypeOf\" function.")
        }
        guard let selection = abstract.selection(for: name) else {
            if schema.type(named: name) == nil {
                throw FieldError("Abstract type \"\(abstractType)\" was resolved to a type \"\(name)\" that does not exist inside the schema.")
            }
            if schema.objectType(named: name) == nil {
                throw FieldError("Abstract type \"\(abstractType)\" was resolved to a non-object type \"\(name)\".")
            }
            throw FieldError("Runtime Object type \"\(name)\" is not a possible type for \"\(abstractType)\".")
        }
        return selection
    }

    /// The `__typename` a value carries, if any.
    static func typename(of value: any Sendable) -> String? {
        switch value {
        case let json as JSONValue:
            if case .object(let object) = json, case .string(let name)? = object["__typename"] { return name }
            return nil
        case let named as any GraphQLTypeNamed:
            return named.graphQLTypeName
        case let dictionary as [String: any Sendable]:
            return dictionary["__typename"] as? String
        case let object as JSONObject:
            if case .string(let name)? = object["__typename"] { return name }
            return nil
        default:
            return nil
        }
    }

    /// The default resolver for values that are not JSON objects.
    static func property(of source: any Sendable, _ name: String) -> (any Sendable)? {
        if let dictionary = source as? [String: any Sendable] { return dictionary[name] ?? nil }
        if let readable = source as? any GraphQLFieldReadable { return readable.graphQLField(name) }
        if let object = source as? JSONObject { return object[name] }
        if let json = source as? JSONValue, case .object(let object) = json { return object[name] }
        return nil
    }
}
