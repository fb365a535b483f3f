import JSON
import Synchronization

/// Field argument coercion (spec §6.4.1 "CoerceArgumentValues").
enum ArgumentCoercion {
    static func coerce(_ arguments: [GraphQLInputValueDefinition], nodes: [Argument], schema: GraphQLSchema, variables: JSONObject) throws(FieldError) -> JSONObject {
        var coerced = JSONObject(capacity: arguments.count)
        for definition in arguments {
            let name = definition.name
            guard let node = nodes.first(where: { $0.name.value == name }) else {
                if let defaultValue = definition.defaultValue {
                    coerced.append(name, defaultValue)
                } else if definition.type.isNonNull {
                    throw FieldError("Argument \"\(name)\" of required type \"\(definition.type)\" was not provided.")
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
        return coerced
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
        plans.write { plans in
            if plans.count < PlanCache.maxPlans, !plans.contains(where: { $0.key == key }) { plans.append((key, plan)) }
        }
    }
}

/// An operation picked from a document (spec §6.1 "GetOperation") with its
/// variables plan; cached per requested name so that a repeated request neither
/// searches nor copies the document's definitions.
final class SelectedOperation: Sendable {
    let operation: OperationDefinition
    let kind: OperationType
    /// Where the operation starts in the document (for errors).
    let start: Int
    let variables: VariablesPlan

    init(_ operation: OperationDefinition, schema: GraphQLSchema) {
        self.operation = operation
        self.kind = operation.operation
        self.start = operation.loc.start
        self.variables = VariablesPlan(schema: schema, operation: operation)
    }
}
