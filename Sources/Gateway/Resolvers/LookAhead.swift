import GraphQL

extension ResolveInput {
    /// Whether this field's selection asks for `field` directly or inside an inline fragment.
    /// Fragment spreads are not followed (the document is not at hand): a field selected only
    /// through one answers false, and the resolver then does what it would do without look-ahead.
    /// For reading related rows with the parent in one statement when they will be needed.
    func selects(_ field: String) -> Bool {
        info.fieldNodes.contains { node in node.selectionSet.map { Self.contains(field, in: $0) } ?? false }
    }

    private static func contains(_ field: String, in selectionSet: SelectionSet) -> Bool {
        selectionSet.selections.contains { selection in
            switch selection {
            case .field(let node): node.name.value == field
            case .inlineFragment(let fragment): contains(field, in: fragment.selectionSet)
            case .fragmentSpread: false
            }
        }
    }
}
