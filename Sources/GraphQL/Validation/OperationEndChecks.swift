// The checks graphql-js runs when it leaves an operation, over every variable
// usage of the operation and of the fragments it spreads.

/// An operation's variable usages followed by those of its fragments, in
/// graphql-js's `getRecursiveVariableUsages` order, without copying them.
struct ValidationOperationUsages: Sequence {
    let own: [ValidationVariableUsage]
    let fragments: [[ValidationVariableUsage]]

    var isEmpty: Bool { own.isEmpty && fragments.allSatisfy(\.isEmpty) }

    func makeIterator() -> FlattenSequence<[[ValidationVariableUsage]]>.Iterator {
        ([own] + fragments).joined().makeIterator()
    }
}

extension DocumentValidator {
    /// NoUndefinedVariables, NoUnusedVariables and VariablesInAllowedPosition for
    /// the operation at `definitionIndex`, whose fragments have all been walked.
    func operationEndChecks(
        definitionIndex: Int,
        ownUsages: [ValidationVariableUsage],
        referenced: [Int]
    ) throws(ValidationAborted) {
        guard let operation = operationAt[definitionIndex] else { return }
        let usages = ValidationOperationUsages(own: ownUsages, fragments: referenced.map { fragmentUsages[$0] ?? [] })
        try checkNoUndefinedVariables(operation, usages: usages)
        try checkNoUnusedVariables(operation, usages: usages)
        try checkVariablesInAllowedPosition(operation, usages: usages)
    }
}
