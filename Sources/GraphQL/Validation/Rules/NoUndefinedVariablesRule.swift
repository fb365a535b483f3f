/// All Variable Uses Defined (spec §5.8.3,
/// https://spec.graphql.org/October2021/#sec-All-Variable-Uses-Defined): every
/// variable an operation uses, directly or in the fragments it spreads, is
/// defined by that operation. graphql-js: `NoUndefinedVariablesRule`, reported
/// when the operation is left.
extension DocumentValidator {
    func checkNoUndefinedVariables(_ operation: OperationDefinition, usages: ValidationOperationUsages) throws(ValidationAborted) {
        guard !usages.isEmpty else { return }
        let defined = VariableNameSet(operation.variableDefinitions.map(\.variable.name.value))
        for usage in usages where !defined.contains(usage.name) {
            let message = if let name = operation.name {
                "Variable \"$\(usage.name)\" is not defined by operation \"\(name.value)\"."
            } else {
                "Variable \"$\(usage.name)\" is not defined."
            }
            try report(message, [usage.offset, operation.loc.start])
        }
    }
}
