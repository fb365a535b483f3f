import JSON

/// The fields collected for one response key of a selection set on one object
/// type (spec §6.3.2 "CollectFields"), with everything the executor looks up
/// once per request instead of once per object: the definition, the named return
/// type, the coerced arguments and the sub-selections per runtime type.
final class FieldPlan {
    let responseKey: String
    let nodes: [Field]
    let definition: GraphQLFieldDefinition
    let info: FieldInfo
    let isTypename: Bool
    /// The named type at the core of the field's type.
    let namedReturnType: GraphQLNamedType?
    /// Coerced arguments, computed on first use (they depend on variables only).
    var arguments: Result<JSONObject, FieldError>?
    /// Sub-selection plans by runtime object type name.
    var subPlans: [(typeName: String, plans: [FieldPlan])] = []

    init(responseKey: String, nodes: [Field], definition: GraphQLFieldDefinition, parentType: String, schema: GraphQLSchema) {
        self.responseKey = responseKey
        self.nodes = nodes
        self.definition = definition
        self.info = FieldInfo(name: definition.name, parentType: parentType, type: definition.type)
        self.isTypename = definition.name == "__typename"
        self.namedReturnType = schema.type(named: definition.type.namedType)
    }
}

/// Fields grouped by response key, in first-appearance order.
struct CollectedFields {
    var keys: [String] = []
    var nodes: [[Field]] = []
    var index: [String: Int] = [:]

    mutating func add(_ field: Field) {
        let key = field.responseKey
        if let position = index[key] {
            nodes[position].append(field)
        } else {
            index[key] = keys.count
            keys.append(key)
            nodes.append([field])
        }
    }
}

extension Executor {
    /// Plans for a selection on object type `objectType`.
    func plans(for objectType: GraphQLObjectType, selectionSets: [SelectionSet]) -> [FieldPlan] {
        var collected = CollectedFields()
        var visited = Set<String>()
        for selectionSet in selectionSets {
            collectFields(objectType.name, selectionSet, into: &collected, visited: &visited)
        }
        var plans: [FieldPlan] = []
        plans.reserveCapacity(collected.keys.count)
        for (key, fieldNodes) in zip(collected.keys, collected.nodes) {
            guard let first = fieldNodes.first,
                  let definition = schema.fieldDefinition(on: objectType.name, named: first.name.value) else { continue }
            plans.append(FieldPlan(responseKey: key, nodes: fieldNodes, definition: definition, parentType: objectType.name, schema: schema))
        }
        return plans
    }

    /// The sub-selection plans of `plan` for runtime type `objectType` (memoised per request).
    func subPlans(of plan: FieldPlan, for objectType: GraphQLObjectType) -> [FieldPlan] {
        for entry in plan.subPlans where entry.typeName == objectType.name { return entry.plans }
        let plans = plans(for: objectType, selectionSets: plan.nodes.compactMap(\.selectionSet))
        plan.subPlans.append((objectType.name, plans))
        return plans
    }

    func collectFields(_ typeName: String, _ selectionSet: SelectionSet, into collected: inout CollectedFields, visited: inout Set<String>) {
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
                visited.insert(name)
                guard let fragment = fragments[name], fragmentApplies(fragment.typeCondition.name.value, to: typeName) else { continue }
                collectFields(typeName, fragment.selectionSet, into: &collected, visited: &visited)
            }
        }
    }

    func fragmentApplies(_ condition: String, to typeName: String) -> Bool {
        if condition == typeName { return true }
        guard let conditionType = schema.type(named: condition), conditionType.isAbstractType else { return false }
        return schema.isSubType(typeName, of: condition)
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

    /// Coerces a field's arguments (spec §6.4.1 "CoerceArgumentValues").
    func argumentValues(_ arguments: [GraphQLInputValueDefinition], nodes: [Argument]) throws(FieldError) -> JSONObject {
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
