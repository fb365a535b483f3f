import JSON
import Synchronization

/// How far a field value got without waiting. Finished values are already in
/// the executor's output.
enum Completed {
    /// Finished and written to the output.
    case written
    /// An object or list with holes still waiting for async work (nothing of it is in the output).
    case node(ResultNode)
    /// The value itself is not known yet (nothing was written).
    case pending(Deferred)
    /// A non-null position became null: the enclosing nullable position becomes null
    /// (it truncates the output back to where it began).
    case failed
}

/// One step of the executor's current response path and, once made, its path object.
struct PathStep {
    /// A list index, or `-(field plan index + 1)` for a field.
    var step: Int
    /// The shared path object for the path up to this step (made on demand).
    var object: ResponsePath? = nil
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

/// The parent value of a selection: a JSON object (read in place, without casts) or any value.
enum ObjectSource {
    case json(JSONMembers)
    case value(any Sendable)

    /// The value as resolvers see it.
    var boxed: any Sendable {
        switch self {
        case .json(let members): return members.object
        case .value(let value): return value
        }
    }
}

/// Executes one operation (spec §6). Completes everything it can synchronously,
/// writing finished values to its ``ResponseOutput`` as it goes and collecting
/// async work as ``PendingWork``; then runs pending work concurrently (serially
/// per root field for mutations) and completes each result as it arrives, which
/// may queue more work.
///
/// A struct driven through `mutating` methods: its state is only ever touched by
/// the task executing the request, and value semantics keep exclusivity checks static.
struct Executor<Output: ResponseOutput & ~Copyable>: ~Copyable {
    let schema: GraphQLSchema
    let variables: JSONObject
    let scope: RequestScope
    let source: Source
    var errors: [GraphQLError] = []
    var pending: [PendingWork] = []
    /// The response path of the value being completed, as steps (a list index, or
    /// `-(plan index + 1)` for a field: no strings copied per field), each with the
    /// path object materialised for it so far (one array: one allocation per request).
    var pathSteps: [PathStep] = []
    /// The operation's plan: it owns every ``FieldPlan`` the executor reads, so it
    /// is held for the whole execution (pending work and paths hold plan views).
    let operation: OperationPlan
    /// The operation's field plans by index (to turn steps back into keys).
    let fieldPlans: [FieldPlan]
    /// Arguments that depend on variables, coerced once per request, by ``FieldPlan/argumentSlot``.
    var argumentMemo: [Result<JSONObject, FieldError>?]
    /// Where finished values go.
    var out: Output
    /// Where the data's value starts in ``out``.
    let dataStart: Int

    init(schema: GraphQLSchema, source: Source, variables: JSONObject, scope: RequestScope, plan: OperationPlan, output: consuming Output) {
        self.schema = schema
        self.variables = variables
        self.scope = scope
        self.source = source
        self.operation = plan
        self.fieldPlans = plan.fields
        self.argumentMemo = Array(repeating: nil, count: plan.argumentSlots)
        self.dataStart = output.position
        self.out = output
        pathSteps.reserveCapacity(16)
    }

    // MARK: Paths and errors

    @inline(__always) mutating func pushField(_ plan: FieldPlan) {
        pathSteps.append(PathStep(step: -plan.index - 1))
    }

    @inline(__always) mutating func pushIndex(_ index: Int) {
        pathSteps.append(PathStep(step: index))
    }

    @inline(__always) mutating func pop() {
        pathSteps.removeLast()
    }

    func element(_ step: Int) -> PathElement {
        step >= 0 ? .index(step) : .key(fieldPlans[-step - 1].responseKey)
    }

    /// The current path as a shared linked path (built once per prefix).
    mutating func currentPath() -> ResponsePath {
        materialize(pathSteps.count - 1)
    }

    private mutating func materialize(_ depth: Int) -> ResponsePath {
        if let existing = pathSteps[depth].object { return existing }
        let parent = depth > 0 ? materialize(depth - 1) : nil
        let step = pathSteps[depth].step
        let path = ResponsePath(parent: parent, key: element(step), step: step)
        pathSteps[depth].object = path
        return path
    }

    /// Makes `path` the current path (its steps filled in from the leaf up: no array of the chain).
    mutating func restorePath(_ path: ResponsePath) {
        var depth = 0
        var node: ResponsePath? = path
        while let current = node {
            depth += 1
            node = current.parent
        }
        pathSteps.removeAll(keepingCapacity: true)
        pathSteps.append(contentsOf: repeatElement(PathStep(step: 0), count: depth))
        node = path
        while let current = node {
            depth -= 1
            pathSteps[depth] = PathStep(step: current.step, object: current)
            node = current.parent
        }
    }

    mutating func record(_ error: FieldError, _ plan: FieldPlan) {
        let plans = fieldPlans
        errors.append(GraphQLError(
            error.message,
            locations: source.locations(at: plan.nodes.map(\.loc.start)),
            path: pathSteps.map { $0.step >= 0 ? .index($0.step) : .key(plans[-$0.step - 1].responseKey) },
            extensions: error.extensions
        ))
    }

    // MARK: Objects

    /// Executes a selection on `source` (spec §6.3 "ExecuteSelectionSet").
    /// `properties`: how the default resolver reads the source's properties, when
    /// the caller already knows (else found on the first field that needs it).
    mutating func executeFields(_ selection: SelectionPlan, source: ObjectSource, properties known: PropertyReader? = nil) -> Completed {
        if case .json(let members) = source { return executeFields(selection, members: members) }
        let start = out.position
        out.beginObject()
        var node: ResultNode?
        // How the default resolver reads this value's properties, found by one
        // dynamic cast per object (on its first such field) instead of one per field.
        var properties = known
        for position in 0..<selection.count {
            let plan = selection.field(position)
            out.key(plan, first: position == 0)
            pushField(plan)
            let completed: Completed
            if plan.readsProperty {
                if properties == nil { properties = PropertyReader(source.boxed) }
                completed = complete(0, plan, properties?.property(plan.fieldName) ?? nil)
            } else {
                completed = executeField(plan, source: source)
            }
            let placed = placeField(completed, plan, selection, start, &node)
            pop()
            if !placed { return .failed }
        }
        return endFields(selection, start, node)
    }

    /// ``executeFields(_:source:)`` on a JSON object: properties are read in place
    /// (at their remembered positions, through pointers: no copies of shared data)
    /// and leaf properties complete without a path step.
    mutating func executeFields(_ selection: SelectionPlan, members object: JSONMembers) -> Completed {
        // The plans are shared by every request on every thread: views of the
        // selection's own storage, read without reference counts.
        let start = out.position
        out.beginObject()
        var node: ResultNode?
        for position in 0..<selection.count {
            let plan = selection.field(position)
            out.key(plan, first: position == 0)
            if plan.isLeafProperty {
                if completeLeafProperty(plan, object) { continue }
                return .failed
            }
            pushField(plan)
            let completed: Completed
            if plan.readsProperty {
                if let index = propertyIndex(plan, object), let value = object.value(at: index) {
                    completed = completeJSONCatching(0, plan, at: value)
                } else {
                    completed = complete(0, plan, nil)
                }
            } else {
                completed = executeField(plan, source: .json(object))
            }
            let placed = placeField(completed, plan, selection, start, &node)
            pop()
            if !placed { return .failed }
        }
        return endFields(selection, start, node)
    }

    /// Closes an object begun at `start`: finished, or a node when parts are pending.
    @inline(__always)
    private mutating func endFields(_ selection: SelectionPlan, _ start: Int, _ node: ResultNode?) -> Completed {
        if let node {
            out.endPartial(isList: false)
            out.spill(from: start, into: node)
            return .node(node)
        }
        out.endObject(selection.responseKeys, start: start)
        return .written
    }

    /// Places a field's completion in the object begun at `start`; false when the
    /// object itself fails. The field's path step must still be pushed (pending work records it).
    @inline(__always)
    private mutating func placeField(_ completed: consuming Completed, _ plan: FieldPlan, _ selection: SelectionPlan,
                                     _ start: Int, _ node: inout ResultNode?) -> Bool {
        switch consume completed {
        case .written:
            return true
        case .failed:
            return false
        case .node(let child):
            let target = node ?? ResultNode(isList: false, keys: selection.responseKeys)
            node = target
            out.spill(from: start, into: target)
            target.slots.append(.node(child, nonNull: plan.shape.isNonNull(0)))
        case .pending(let deferred):
            let target = node ?? ResultNode(isList: false, keys: selection.responseKeys)
            node = target
            out.spill(from: start, into: target)
            target.slots.append(.pending)
            pending.append(PendingWork(node: target, slot: target.slots.count - 1, level: 0, plan: plan, path: currentPath(), deferred: deferred))
        }
        return true
    }

    /// Where the default resolver finds `plan`'s property in `object`, trying the remembered position first.
    @inline(__always)
    func propertyIndex(_ plan: FieldPlan, _ object: JSONMembers) -> Int? {
        let hint = plan.propertyHint
        guard let index = object.index(forKey: plan.fieldName, hint: hint) else { return nil }
        if index != hint { plan.rememberProperty(at: index) }
        return index
    }

    /// A leaf-typed property of a JSON object, completed without pushing a path
    /// step (pushed only to record an error): the same outcome as
    /// ``executeField(_:source:)`` followed by ``completeJSON(_:_:_:)``, written to
    /// the output (false: the non-null field failed). A value that serialises as
    /// itself is written from where it is (each copy of data shared between
    /// threads costs a contended reference count).
    @inline(__always)
    mutating func completeLeafProperty(_ plan: FieldPlan, _ object: JSONMembers) -> Bool {
        guard let index = propertyIndex(plan, object), let value = object.value(at: index) else { return leafNull(plan) }
        // Strings that serialise as themselves are written in place, without a
        // copy (a retain of data other threads may share).
        if plan.writesStringsAsIs, out.writePlainString(at: value) { return true }
        return completeLeaf(plan, value.pointee)
    }

    /// ``completeLeafProperty(_:_:)`` once the property is found.
    @inline(__always)
    mutating func completeLeaf(_ plan: FieldPlan, _ value: borrowing JSONValue) -> Bool {
        if value.isNullValue { return leafNull(plan) }
        switch plan.leafShortcut {
        case .builtin(let builtin):
            if builtin.servesAsIs(value) {
                out.value(value)
                return true
            }
        case .passThrough:
            out.value(value)
            return true
        case .enumName:
            if plan.isEnumName(value) {
                out.value(value)
                return true
            }
        case .none:
            break
        }
        let serialized: JSONValue
        do {
            switch plan.completion {
            case .builtin(let builtin): serialized = try builtin.serializeJSON(copy value)
            case .scalar(let scalar): serialized = try scalar.type.serializeJSON(copy value)
            case .enum(let enumType): serialized = try enumType.type.serializeJSON(copy value)
            case .object, .abstract, .invalid: serialized = .null
            }
        } catch {
            return leafFailed(FieldError(error.message), plan)
        }
        if case .null = serialized { return leafNull(plan) }
        out.value(serialized)
        return true
    }

    /// A leaf property that is null: `null`, or an error when the field is non-null.
    private mutating func leafNull(_ plan: FieldPlan) -> Bool {
        if plan.shape.isNonNull(0) { return leafFailed(nonNullError(plan), plan) }
        out.null()
        return true
    }

    /// Records an error of a leaf property completed without a path step.
    private mutating func leafFailed(_ error: FieldError, _ plan: FieldPlan) -> Bool {
        pushField(plan)
        record(error, plan)
        pop()
        if plan.shape.isNonNull(0) { return false }
        out.null()
        return true
    }

    /// Resolves and completes one field (spec §6.4 "ExecuteField"); the path is already pushed.
    mutating func executeField(_ plan: FieldPlan, source: ObjectSource) -> Completed {
        if plan.isTypename {
            out.typename(plan)
            return .written
        }
        guard let resolver = plan.resolver else {
            // The default resolver: the property named like the field.
            switch source {
            case .json(let object):
                guard let index = propertyIndex(plan, object), let value = object.value(at: index) else { return complete(0, plan, nil) }
                return completeJSONCatching(0, plan, at: value)
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
            info: ResolveInfo(field: plan, owner: operation, path: currentPath(), request: scope)
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
            result = .success(try ArgumentCoercion.coerce(plan.argumentDefinitions, names: plan.argumentNames, nodes: plan.firstNode.arguments, schema: schema, variables: variables))
        } catch {
            result = .failure(error)
        }
        argumentMemo[plan.argumentSlot] = result
        return result
    }

    @inline(__always) mutating func fieldFailed(_ error: FieldError, _ plan: FieldPlan) -> Completed {
        record(error, plan)
        if plan.shape.isNonNull(0) { return .failed }
        out.null()
        return .written
    }

    /// Completes a value at wrapper `level` of the field's type, turning errors into
    /// null (or failure). A nullable position that fails is truncated back to where
    /// it began and written as `null`.
    mutating func complete(_ level: Int, _ plan: FieldPlan, _ raw: (any Sendable)?) -> Completed {
        let mark = out.position
        let completed: Completed
        do {
            completed = try completeValue(level, plan, raw)
        } catch {
            record(error, plan)
            return failedAt(mark, level, plan)
        }
        if case .failed = completed { return failedAt(mark, level, plan) }
        return completed
    }

    /// ``complete(_:_:_:)`` for a JSON value.
    @inline(__always)
    mutating func completeJSONCatching(_ level: Int, _ plan: FieldPlan, at json: UnsafePointer<JSONValue>) -> Completed {
        let mark = out.position
        let completed: Completed
        do {
            completed = try completeJSON(level, plan, at: json)
        } catch {
            record(error, plan)
            return failedAt(mark, level, plan)
        }
        if case .failed = completed { return failedAt(mark, level, plan) }
        return completed
    }

    /// A position begun at `mark` failed: null when it is nullable, else the failure goes up.
    @inline(never)
    mutating func failedAt(_ mark: Int, _ level: Int, _ plan: FieldPlan) -> Completed {
        out.truncate(to: mark)
        if plan.shape.isNonNull(level) { return .failed }
        out.null()
        return .written
    }

    func nonNullError(_ plan: FieldPlan) -> FieldError {
        FieldError("Cannot return null for non-nullable field \(plan.parentTypeName).\(plan.fieldName).")
    }

    func notIterable(_ plan: FieldPlan) -> FieldError {
        FieldError("Expected Iterable, but did not find one for field \"\(plan.parentTypeName).\(plan.fieldName)\".")
    }
}
