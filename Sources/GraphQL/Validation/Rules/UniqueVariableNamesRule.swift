/// Variable Uniqueness (spec §5.8.1,
/// https://spec.graphql.org/October2021/#sec-Variable-Uniqueness): an operation
/// defines each variable once. graphql-js: `UniqueVariableNamesRule` (one error
/// per repeated name, at every definition of it).
extension DocumentValidator {
    func checkUniqueVariableNames(_ operation: OperationDefinition) throws(ValidationAborted) {
        let definitions = operation.variableDefinitions
        guard definitions.count > 1 else { return }
        if definitions.count <= 16 {
            // The usual handful: pairwise comparison finds them distinct without hashing.
            var repeated = false
            for index in definitions.indices.dropFirst() where !repeated {
                let name = definitions[index].variable.name.value
                repeated = definitions[..<index].contains { sameName($0.variable.name.value, name) }
            }
            if !repeated { return }
        }
        var order: [String] = []
        var groups: [String: [Int]] = [:]
        for definition in definitions {
            let name = definition.variable.name.value
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(definition.variable.name.loc.start)
        }
        guard order.count != definitions.count else { return }
        for name in order {
            guard let offsets = groups[name], offsets.count > 1 else { continue }
            try report("There can be only one variable named \"$\(name)\".", offsets)
        }
    }
}
