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

/// A set of variable names: a plain array for the usual handful (comparing
/// short strings is cheaper than hashing them), a `Set` past that.
struct VariableNameSet {
    private let names: [String]
    private let set: Set<String>?

    init(_ names: [String]) {
        self.names = names
        self.set = names.count > 16 ? Set(names) : nil
    }

    func contains(_ name: String) -> Bool {
        if let set { return set.contains(name) }
        return names.contains { sameName($0, name) }
    }
}

/// `a == b`, with the lengths compared first: most names compared in a list
/// differ, and two strings of different lengths are told apart without
/// calling into the standard library's string comparison.
@inline(__always)
func sameName(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a == b
}
