import GraphQL

extension ResolveInput {
    /// Whether this field's selection asks for `field` directly or inside an inline fragment.
    /// Fragment spreads are not followed (the document is not at hand): a field selected only
    /// through one answers false, and the resolver then does what it would do without look-ahead.
    /// For reading related rows with the parent in one statement when they will be needed.
    func selects(_ field: String) -> Bool { Self.selects(field, in: info.fieldNodes) }

    /// ``selects(_:)`` over `nodes` (`info.fieldNodes`, read once by a resolver asking several questions).
    static func selects(_ field: String, in nodes: [Field]) -> Bool {
        nodes.contains { node in node.selectionSet.map { contains(field, in: $0) } ?? false }
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

extension ResolveInput {
    /// Whether this field's selection certainly asks for none of `fields`: none is selected
    /// directly or inside an inline fragment, and no fragment spread (whose fields are not at
    /// hand) appears anywhere in it. False whenever in doubt, so a resolver may leave out what
    /// only `fields` need when this is true.
    func certainlyOmits(_ fields: Set<String>) -> Bool { Self.certainlyOmits(fields, in: info.fieldNodes) }

    /// ``certainlyOmits(_:)`` over `nodes` (`info.fieldNodes`, read once by a resolver asking several questions).
    static func certainlyOmits(_ fields: Set<String>, in nodes: [Field]) -> Bool {
        nodes.allSatisfy { node in node.selectionSet.map { omits(fields, in: $0) } ?? true }
    }

    private static func omits(_ fields: Set<String>, in selectionSet: SelectionSet) -> Bool {
        selectionSet.selections.allSatisfy { selection in
            switch selection {
            case .field(let node): !fields.contains(node.name.value)
            case .inlineFragment(let fragment): omits(fields, in: fragment.selectionSet)
            case .fragmentSpread: false
            }
        }
    }
}
