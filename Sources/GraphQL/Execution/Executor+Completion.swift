import JSON
import Synchronization

extension Executor where Output: ~Copyable {
    /// Spec §6.4.3 "CompleteValue", at wrapper `level` of the field's type: the
    /// value is written to the output (or left pending).
    mutating func completeValue(_ level: Int, _ plan: FieldPlan, _ raw: (any Sendable)?) throws(FieldError) -> Completed {
        guard let raw else { return try writeNull(level, plan) }
        // Host values (views read through `GraphQLFieldReadable`, plain Swift leaves)
        // are told apart first, by their type or one cast, not after the failing
        // casts below (each failing cast also copies the value). Neither a
        // `JSONValue`, a `Deferred` nor a list is such a value, so the outcome is the same.
        if !plan.shape.isList(level) {
            switch plan.leafShortcut {
            case .builtin, .enumName:
                // A built-in scalar or enum completes a plain Swift value as it completes
                // the same value as JSON (custom scalars see the value itself: not here).
                if let json = plainJSON(raw) {
                    return try withUnsafePointer(to: json) { pointer throws(FieldError) in try completeJSON(level, plan, at: pointer) }
                }
            case .passThrough, .none:
                // A JSON value (the common resolver result) skips the conformance look-up.
                // The conformance is found from the value's type: casting the value to
                // `any GraphQLFieldReadable` would copy it into a new box (a malloc per object).
                if let shared = plan.objectSelection, !isJSONValue(raw), let readable = readableType(raw) {
                    return shared._withUnsafeGuaranteedRef { executeFields($0, source: .value(raw), properties: .readable(raw, readable)) }
                }
            }
        }
        if let json = raw as? JSONValue {
            // Completed through a pointer (see ``JSONMembers``): `json` keeps it alive.
            return try withUnsafePointer(to: json) { pointer throws(FieldError) in try completeJSON(level, plan, at: pointer) }
        }
        if let deferred = raw as? Deferred { return .pending(deferred) }
        if plan.shape.isList(level) {
            if let items = raw as? [any Sendable] { return completeList(level + 1, plan, items) }
            if let items = raw as? [JSONValue] { return items.withUnsafeBufferPointer { completeJSONList(level + 1, plan, $0) } }
            throw notIterable(plan)
        }
        switch plan.completion {
        case .builtin(let builtin):
            let value: JSONValue
            do { value = try builtin.serialize(raw) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .scalar(let scalar):
            let value: JSONValue
            do { value = try scalar.type.serializeValue(raw) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .enum(let enumType):
            let value: JSONValue
            do { value = try enumType.type.serializeValue(raw) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .object(let selection):
            return executeFields(selection, source: .value(raw))
        case .abstract(let abstract):
            let selection = try runtimeSelection(of: raw, abstract, plan)
            return executeFields(selection, source: .value(raw))
        case .invalid:
            throw FieldError("Cannot complete value of unexpected output type: \"\(plan.type)\".")
        }
    }

    /// `null` at `level`, or the non-null error.
    @inline(__always)
    mutating func writeNull(_ level: Int, _ plan: FieldPlan) throws(FieldError) -> Completed {
        if plan.shape.isNonNull(level) { throw nonNullError(plan) }
        out.null()
        return .written
    }

    /// A serialised leaf value at `level` (null at a non-null level is the non-null error).
    @inline(__always)
    mutating func writeLeaf(_ value: JSONValue, _ level: Int, _ plan: FieldPlan) throws(FieldError) -> Completed {
        if case .null = value { return try writeNull(level, plan) }
        out.value(value)
        return .written
    }

    /// ``completeValue(_:_:_:)`` for a JSON value, read in place through `json`
    /// (see ``JSONMembers``): no dynamic casts, no type walking, no copies of
    /// objects or lists.
    mutating func completeJSON(_ level: Int, _ plan: FieldPlan, at json: UnsafePointer<JSONValue>) throws(FieldError) -> Completed {
        if plan.shape.isList(level) {
            if let items = JSONMembers.items(at: json) { return completeJSONList(level + 1, plan, items) }
            if json.pointee.isNullValue { return try writeNull(level, plan) }
            throw notIterable(plan)
        }
        if json.pointee.isNullValue { return try writeNull(level, plan) }
        // The common cases first, through flat fields of the plan: binding the
        // payload of `completion` would retain plans every thread shares.
        if let shared = plan.objectSelection {
            if let members = JSONMembers(at: json) {
                return shared._withUnsafeGuaranteedRef { executeFields($0, members: members) }
            }
            let value = json.pointee
            return shared._withUnsafeGuaranteedRef { executeFields($0, source: .value(value)) }
        }
        if let shared = plan.abstractPlan, let members = JSONMembers(at: json) {
            let found = shared._withUnsafeGuaranteedRef { Executor.typenameSelection(of: members, $0) }
            if let found { return found._withUnsafeGuaranteedRef { executeFields($0, members: members) } }
        }
        switch plan.leafShortcut {
        case .builtin(let builtin):
            if builtin.servesAsIs(json.pointee) {
                out.value(json.pointee)
                return .written
            }
        case .passThrough:
            out.value(json.pointee)
            return .written
        case .enumName:
            if plan.isEnumName(json.pointee) {
                out.value(json.pointee)
                return .written
            }
        case .none:
            break
        }
        switch plan.completion {
        case .builtin(let builtin):
            let value: JSONValue
            do { value = try builtin.serializeJSON(json.pointee) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .scalar(let scalar):
            let value: JSONValue
            do { value = try scalar.type.serializeJSON(json.pointee) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .enum(let enumType):
            let value: JSONValue
            do { value = try enumType.type.serializeJSON(json.pointee) } catch { throw FieldError(error.message) }
            return try writeLeaf(value, level, plan)
        case .object(let selection):
            if let members = JSONMembers(at: json) { return executeFields(selection, members: members) }
            return executeFields(selection, source: .value(json.pointee))
        case .abstract(let abstract):
            if let members = JSONMembers(at: json) {
                let selection = try runtimeSelection(ofJSON: members, abstract, plan)
                return executeFields(selection, members: members)
            }
            let value = json.pointee
            let selection = try runtimeSelection(of: value, abstract, plan)
            return executeFields(selection, source: .value(value))
        case .invalid:
            throw FieldError("Cannot complete value of unexpected output type: \"\(plan.type)\".")
        }
    }

    /// Spec §6.4.3 for lists: every item completed at its index (`level` is the items' level).
    mutating func completeList(_ level: Int, _ plan: FieldPlan, _ items: [any Sendable]) -> Completed {
        let start = out.position
        out.beginList()
        var node: ResultNode?
        for (index, item) in items.enumerated() {
            out.item(first: index == 0)
            pushIndex(index)
            let completed = complete(level, plan, item)
            let placed = placeItem(completed, level, plan, start, &node)
            pop()
            if !placed { return .failed }
        }
        return endList(start, node)
    }

    /// ``completeList(_:_:_:)`` for JSON items, read in place (see ``JSONMembers``).
    mutating func completeJSONList(_ level: Int, _ plan: FieldPlan, _ items: UnsafeBufferPointer<JSONValue>) -> Completed {
        let start = out.position
        out.beginList()
        var node: ResultNode?
        for index in items.indices {
            guard let base = items.baseAddress else { break }
            out.item(first: index == 0)
            pushIndex(index)
            let completed = completeJSONCatching(level, plan, at: base + index)
            let placed = placeItem(completed, level, plan, start, &node)
            pop()
            if !placed { return .failed }
        }
        return endList(start, node)
    }

    /// Closes a list begun at `start`: finished, or a node when items are pending.
    @inline(__always)
    private mutating func endList(_ start: Int, _ node: ResultNode?) -> Completed {
        if let node {
            out.endPartial(isList: true)
            out.spill(from: start, into: node)
            return .node(node)
        }
        out.endList(start: start)
        return .written
    }

    /// Places a list item's completion in the list begun at `start`; false when the list itself fails.
    @inline(__always)
    private mutating func placeItem(_ completed: consuming Completed, _ level: Int, _ plan: FieldPlan,
                                    _ start: Int, _ node: inout ResultNode?) -> Bool {
        switch consume completed {
        case .written:
            return true
        case .failed:
            return false
        case .node(let child):
            let target = node ?? ResultNode(isList: true, keys: [])
            node = target
            out.spill(from: start, into: target)
            target.slots.append(.node(child, nonNull: plan.shape.isNonNull(level)))
        case .pending(let deferred):
            let target = node ?? ResultNode(isList: true, keys: [])
            node = target
            out.spill(from: start, into: target)
            target.slots.append(.pending)
            pending.append(PendingWork(node: target, slot: target.slots.count - 1, level: level, plan: plan, path: currentPath(), deferred: deferred))
        }
        return true
    }

    /// The selection an object's `__typename` picks among the abstract type's few
    /// possible types, without retaining the shared plans; `nil` when the full
    /// path must decide (a type resolver, no or an unknown `__typename`: errors).
    static func typenameSelection(of object: JSONMembers, _ abstract: AbstractPlan) -> Unmanaged<SelectionPlan>? {
        guard !abstract.hasTypeResolver else { return nil }
        let hint = abstract.typenameHint.load(ordering: .relaxed)
        guard let index = object.index(forKey: "__typename", hint: hint) else { return nil }
        if index != hint { abstract.typenameHint.store(index, ordering: .relaxed) }
        switch object.values[index] {
        case .string(let name): return abstract.unretainedSelection(for: name)
        default: return nil
        }
    }

    /// ``runtimeSelection(of:_:_:)`` for a JSON object: without a type resolver,
    /// reads its `__typename` in place (no boxing, no casts).
    mutating func runtimeSelection(ofJSON object: JSONMembers, _ abstract: AbstractPlan, _ plan: FieldPlan) throws(FieldError) -> SelectionPlan {
        guard abstract.resolveType == nil else { return try runtimeSelection(of: object.object, abstract, plan) }
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
                name = try resolver.body(value, ResolveInfo(field: plan, owner: operation, path: currentPath(), request: scope))
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
        PropertyReader(source).property(name)
    }
}

/// How the default resolver reads the properties of one parent value that is not
/// a JSON object read in place: the value cast once to the form it has, so that
/// reading each selected field costs no further dynamic cast.
enum PropertyReader {
    case dictionary([String: any Sendable])
    /// A ``GraphQLFieldReadable`` value and its conformance, read where the
    /// existential holds it (see ``readField(of:as:_:)``).
    case readable(any Sendable, any GraphQLFieldReadable.Type)
    case object(JSONObject)
    case none

    init(_ source: any Sendable) {
        if let dictionary = source as? [String: any Sendable] {
            self = .dictionary(dictionary)
        } else if let readable = readableType(source) {
            self = .readable(source, readable)
        } else if let object = source as? JSONObject {
            self = .object(object)
        } else if let json = source as? JSONValue, case .object(let object) = json {
            self = .object(object)
        } else {
            self = .none
        }
    }

    /// The property called `name`; `nil` for null or when the value has no such property.
    func property(_ name: String) -> (any Sendable)? {
        switch self {
        case .dictionary(let dictionary): return dictionary[name] ?? nil
        case .readable(let value, let readable): return readField(of: value, as: readable, name)
        case .object(let object): return object[name]
        case .none: return nil
        }
    }
}

/// The JSON form of a resolver's value when its type is one of the plain Swift
/// types built-in scalars take (`String`, `Int`, `Int64`, `Int32`, `Double`,
/// `Bool`), found by comparing its type, which costs no dynamic cast; `nil` for
/// any other type (which then goes through the casts of ``BuiltinScalar/serialize(_:)``,
/// to the same result).
@inline(__always)
func plainJSON(_ raw: any Sendable) -> JSONValue? {
    plainJSON(opened: raw)
}

/// The value's ``GraphQLFieldReadable`` conformance, found from its type alone:
/// unlike `raw as? any GraphQLFieldReadable`, no copy of the value into a new
/// existential box (one malloc per object for a view larger than three words).
@inline(__always)
func readableType(_ raw: any Sendable) -> (any GraphQLFieldReadable.Type)? {
    readableType(opened: raw)
}

private func readableType<Value: Sendable>(opened value: Value) -> (any GraphQLFieldReadable.Type)? {
    Value.self as? any GraphQLFieldReadable.Type
}

/// Field `name` of `raw`, whose type is `readable` (from ``readableType(_:)``),
/// read in place: the value is neither copied nor re-boxed.
func readField(of raw: any Sendable, as readable: any GraphQLFieldReadable.Type, _ name: String) -> (any Sendable)? {
    readField(opened: raw, as: readable, name)
}

private func readField<Value: Sendable>(opened value: Value, as readable: any GraphQLFieldReadable.Type, _ name: String) -> (any Sendable)? {
    func read<Readable: GraphQLFieldReadable>(_: Readable.Type) -> (any Sendable)? {
        // `readable` came from `Value.self`: the same type, so the memory is already bound to it.
        guard Readable.self == Value.self else { return nil }
        return withUnsafePointer(to: value) { pointer in
            UnsafeRawPointer(pointer).assumingMemoryBound(to: Readable.self).pointee.graphQLField(name)
        }
    }
    return read(readable)
}

/// Whether the value is a `JSONValue` itself (its type compared: no cast).
@inline(__always)
func isJSONValue(_ raw: any Sendable) -> Bool {
    isJSONValue(opened: raw)
}

private func isJSONValue<Value: Sendable>(opened value: Value) -> Bool {
    Value.self == JSONValue.self
}

private func plainJSON<Value: Sendable>(opened value: Value) -> JSONValue? {
    if Value.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
    if Value.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
    if Value.self == Int64.self { return .int(unsafeBitCast(value, to: Int64.self)) }
    if Value.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
    if Value.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
    if Value.self == Int32.self { return .int(Int64(unsafeBitCast(value, to: Int32.self))) }
    return nil
}
