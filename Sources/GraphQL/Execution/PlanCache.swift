import JSON
import Support
import Synchronization

/// Field argument coercion (spec §6.4.1 "CoerceArgumentValues").
enum ArgumentCoercion {
    /// - Parameter names: the definitions' names, in order (the schema's shared array): when every
    ///   argument gets a value, the result takes this array as its keys (no array of names per request).
    static func coerce(_ arguments: [GraphQLInputValueDefinition], names: [String]? = nil, nodes: [Argument], schema: GraphQLSchema,
                       variables: JSONObject) throws(FieldError) -> JSONObject {
        var coerced = CoercedArguments(capacity: arguments.count)
        for (position, definition) in arguments.enumerated() {
            coerced.position = position
            let name = definition.name
            guard let node = nodes.first(where: { $0.name.value == name }) else {
                if let defaultValue = definition.defaultValue {
                    coerced.append(name, defaultValue)
                } else if definition.type.isNonNull {
                    throw FieldError("Argument \"\(name)\" of required type \"\(definition.type)\" was not provided.")
                } else {
                    coerced.skip(arguments)
                }
                continue
            }
            var isNull = false
            if case .null = node.value { isNull = true }
            if case .variable(let variable) = node.value {
                guard let variableValue = variables[variable.name.value] else {
                    if let defaultValue = definition.defaultValue {
                        coerced.append(name, defaultValue)
                    } else if definition.type.isNonNull {
                        throw FieldError("Argument \"\(name)\" of required type \"\(definition.type)\" was provided the variable \"$\(variable.name.value)\" which was not provided a runtime value.")
                    } else {
                        coerced.skip(arguments)
                    }
                    continue
                }
                isNull = variableValue == .null
            }
            if isNull, definition.type.isNonNull {
                throw FieldError("Argument \"\(name)\" of non-null type \"\(definition.type)\" must not be null.")
            }
            guard let value = ValueCoercion.coerceLiteral(node.value, to: definition.type, in: schema, variables: variables) else {
                throw FieldError("Argument \"\(name)\" has invalid value \(ValueCoercion.print(node.value)).")
            }
            coerced.append(name, value)
        }
        return coerced.object(names: names, arguments)
    }

    /// The values coerced so far, with their names kept only once an argument was left out.
    private struct CoercedArguments {
        var values: [JSONValue] = []
        /// Set from the first argument left out: the names of the values, in order.
        var keys: [String]?
        /// The definition being coerced.
        var position = 0

        init(capacity: Int) { values.reserveCapacity(capacity) }

        mutating func append(_ name: String, _ value: JSONValue) {
            values.append(value)
            keys?.append(name)
        }

        /// The argument at ``position`` gets no value: from now on the names are kept.
        mutating func skip(_ arguments: [GraphQLInputValueDefinition]) {
            if keys == nil { keys = arguments[..<position].map(\.name) }
        }

        func object(names: [String]?, _ arguments: [GraphQLInputValueDefinition]) -> JSONObject {
            JSONObject(keys: keys ?? names ?? arguments.map(\.name), values: values)
        }
    }
}

/// Plans of one prepared document, by operation and `@skip`/`@include` variable values.
final class PlanCache: Sendable {
    struct Key: Hashable {
        var operation: String?
        var conditions: UInt64
    }

    let conditionVariables: [String]
    /// Read by every request, written once per new key: readers share the lock.
    private let plans = ReadWriteLocked<[(key: Key, plan: OperationPlan)]>([])
    static let maxPlans = 64

    /// The byte budget of the document cache holding this document, while it holds it.
    /// Each stored plan is charged to it first (a plan that does not fit is used once,
    /// not stored): without this, 64 `@skip`/`@include` combinations of each of a
    /// thousand large cached documents would hold 64 plans each, outside any bound.
    private struct Charging: Sendable {
        var budget: ByteBudget?
        var perPlan = 0
        var charged = 0
        var detached = false
    }
    private let charging = ReadWriteLocked(Charging())

    /// Charges plans stored from now on to `budget`, `perPlan` bytes each.
    func attach(to budget: ByteBudget, perPlan: Int) {
        charging.write { $0.budget = budget; $0.perPlan = perPlan }
    }

    /// Stops charging (the document left the cache); returns the bytes charged so far.
    func detach() -> Int {
        charging.write { state in
            state.detached = true
            state.budget = nil
            return state.charged
        }
    }

    /// Whether one more plan may be stored: charged when attached, refused once detached.
    private func chargeOnePlan() -> Bool {
        charging.write { state in
            if state.detached { return false }
            guard let budget = state.budget else { return true }
            guard budget.charge(state.perPlan) else { return false }
            state.charged += state.perPlan
            return true
        }
    }

    init(document: Document) {
        conditionVariables = Planner.conditionVariables(document)
    }

    /// The key of a request, or `nil` when it cannot be cached (too many condition variables).
    func key(operation: String?, variables: JSONObject) -> Key? {
        guard conditionVariables.count <= 64 else { return nil }
        var mask: UInt64 = 0
        for (bit, name) in conditionVariables.enumerated() where variables[name] == .bool(true) {
            mask |= 1 << UInt64(bit)
        }
        return Key(operation: operation, conditions: mask)
    }

    func plan(for key: Key) -> OperationPlan? {
        // Few plans per document: a scan (conditions first) is cheaper than hashing the key.
        plans.read { plans in plans.pointee.first { $0.key.conditions == key.conditions && $0.key.operation == key.operation }?.plan }
    }

    /// Operations selected so far, by requested operation name (documents hold few operations: a list).
    private let operations = ReadWriteLocked<[(name: String?, selected: SelectedOperation)]>([])

    /// The operation selected by the requested name `name`, if it was selected before.
    func operation(named name: String?) -> SelectedOperation? {
        operations.read { operations in operations.pointee.first { $0.name == name }?.selected }
    }

    /// Remembers the operation selected by `name`.
    func store(_ selected: SelectedOperation, named name: String?) {
        operations.write { operations in
            if operations.count < PlanCache.maxPlans, !operations.contains(where: { $0.name == name }) { operations.append((name, selected)) }
        }
    }

    func store(_ plan: OperationPlan, for key: Key) {
        let full = plans.read { plans in plans.pointee.count >= PlanCache.maxPlans || plans.pointee.contains { $0.key == key } }
        guard !full, chargeOnePlan() else { return }
        let stored = plans.write { plans -> Bool in
            guard plans.count < PlanCache.maxPlans, !plans.contains(where: { $0.key == key }) else { return false }
            plans.append((key, plan))
            return true
        }
        if !stored { refundOnePlan() }
    }

    /// Gives back the charge of a plan another request stored first.
    private func refundOnePlan() {
        charging.write { state in
            guard let budget = state.budget, state.charged >= state.perPlan else { return }
            state.charged -= state.perPlan
            budget.release(state.perPlan)
        }
    }
}

/// An operation picked from a document (spec §6.1 "GetOperation") with its
/// variables plan; cached per requested name so that a repeated request neither
/// searches nor copies the document's definitions. The HTTP layer and the executor
/// share it: the operation is selected once per (document, requested name).
public final class SelectedOperation: Sendable {
    /// The operation's definition in the document.
    public let operation: OperationDefinition
    /// Query, mutation or subscription.
    public let kind: OperationType
    /// Where the operation starts in the document (for errors).
    let start: Int
    let variables: VariablesPlan
    /// What the host remembers about this operation (the HTTP layer: its measured
    /// cost and root fields); the engine never reads it. One value, replaced whole.
    private let hostNote = ReadWriteLocked<(any Sendable)?>(nil)

    init(_ operation: OperationDefinition, schema: GraphQLSchema) {
        self.operation = operation
        self.kind = operation.operation
        self.start = operation.loc.start
        self.variables = VariablesPlan(schema: schema, operation: operation)
    }

    /// The note the host stored with ``remember(_:)``, if it is a `Note`.
    public func note<Note: Sendable>(as type: Note.Type) -> Note? {
        hostNote.read { $0.pointee as? Note }
    }

    /// Stores the host's note about this operation (kept as long as the operation is).
    public func remember(_ note: some Sendable) {
        hostNote.write { $0 = note }
    }
}

extension PreparedDocument {
    /// The operation a request naming `name` runs (spec §6.1 "GetOperation"),
    /// selected once and then remembered with the document, so the HTTP layer and
    /// the executor never search the definitions twice. Fails like `selectOperation`
    /// (unknown name, several operations and no name, none at all).
    public func selectOperation(named name: String?, schema: GraphQLSchema) -> Result<SelectedOperation, GraphQLError> {
        guard let document else { return .failure(GraphQLError("The document did not parse.")) }
        return SelectedOperation.select(in: document, named: name, schema: schema, plans: plans)
    }
}

extension SelectedOperation {
    /// The operation named `name` in `document`: from `plans` when selected before, else selected and stored there.
    static func select(
        in document: Document, named name: String?, schema: GraphQLSchema, plans: PlanCache?
    ) -> Result<SelectedOperation, GraphQLError> {
        if let cached = plans?.operation(named: name) { return .success(cached) }
        switch GraphQL.selectOperation(in: document, named: name) {
        case .success(let found):
            let selected = SelectedOperation(found, schema: schema)
            plans?.store(selected, named: name)
            return .success(selected)
        case .failure(let error):
            return .failure(error)
        }
    }
}
