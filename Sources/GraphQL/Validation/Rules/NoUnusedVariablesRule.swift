/// All Variables Used (spec §5.8.4,
/// https://spec.graphql.org/October2021/#sec-All-Variables-Used): every variable
/// an operation defines is used by it or by the fragments it spreads.
/// graphql-js: `NoUnusedVariablesRule`, reported when the operation is left.
extension DocumentValidator {
    func checkNoUnusedVariables(_ operation: OperationDefinition, usages: ValidationOperationUsages) throws(ValidationAborted) {
        guard !operation.variableDefinitions.isEmpty else { return }
        var names: [String] = []
        for usage in usages { names.append(usage.name) }
        let used = VariableNameSet(names)
        for definition in operation.variableDefinitions where !used.contains(definition.variable.name.value) {
            let variable = definition.variable.name.value
            let message = if let name = operation.name {
                "Variable \"$\(variable)\" is never used in operation \"\(name.value)\"."
            } else {
                "Variable \"$\(variable)\" is never used."
            }
            try report(message, [definition.loc.start])
        }
    }
}
