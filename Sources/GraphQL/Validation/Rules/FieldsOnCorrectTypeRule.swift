/// Field Selections (spec §5.3.1,
/// https://spec.graphql.org/October2021/#sec-Field-Selections): a selected field
/// exists on the parent type. graphql-js: `FieldsOnCorrectTypeRule`, with its
/// suggestions (inline fragments on types that have the field, else similar names).
extension DocumentValidator {
    func checkFieldOnCorrectType(
        _ field: Field,
        parentType: ValidationType?,
        definition: ValidationField?
    ) throws(ValidationAborted) {
        guard definition == nil, let parentType = parentType?.named else { return }
        let name = field.name.value
        var suggestion = GraphQLSuggestions.didYouMean("to use an inline fragment on", suggestedTypeNames(parentType, fieldName: name))
        if suggestion.isEmpty {
            let fieldNames = (parentType.fields ?? []).map(\.name)
            suggestion = GraphQLSuggestions.didYouMean(GraphQLSuggestions.list(name, fieldNames))
        }
        try report("Cannot query field \"\(name)\" on type \"\(parentType.name)\".\(suggestion)", [field.loc.start])
    }

    /// Types of an abstract parent that do have the field: the most used first,
    /// interfaces before their implementations, then by name.
    private func suggestedTypeNames(_ type: GraphQLNamedType, fieldName: String) -> [String] {
        guard type.isAbstractType else { return [] }
        var suggested: [String] = []
        var usage: [String: Int] = [:]
        for possible in schema.possibleTypes(of: type.name) {
            guard possible.field(named: fieldName) != nil else { continue }
            if usage[possible.name] == nil { suggested.append(possible.name) }
            usage[possible.name] = 1
            for interface in possible.interfaces {
                guard schema.type(named: interface)?.field(named: fieldName) != nil else { continue }
                if usage[interface] == nil { suggested.append(interface) }
                usage[interface, default: 0] += 1
            }
        }
        GraphQLSuggestions.insertionSort(&suggested) { a, b in
            let difference = (usage[b] ?? 0) - (usage[a] ?? 0)
            if difference != 0 { return difference }
            if case .interface? = schema.type(named: a), schema.isSubType(b, of: a) { return -1 }
            if case .interface? = schema.type(named: b), schema.isSubType(a, of: b) { return 1 }
            return GraphQLSuggestions.naturalCompare(a, b)
        }
        return suggested
    }
}
