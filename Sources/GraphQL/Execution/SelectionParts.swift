/// What planning reads of a selection or a definition, one part at a time.
///
/// Binding a case's payload (`case .field(let field)`) copies all of it, each
/// string and array it holds retained and later released; an accessor that
/// returns one part lets the optimizer read the selection in place (in the
/// document's arrays) and copy only that part. Planning reads every selection
/// of the document once per execution, so this is most of collecting's cost.
extension Selection {
    enum Kind {
        case field
        case fragmentSpread
        case inlineFragment
    }

    @inline(__always)
    var kind: Kind {
        switch self {
        case .field: .field
        case .fragmentSpread: .fragmentSpread
        case .inlineFragment: .inlineFragment
        }
    }

    /// Whether the selection has no directives (so `@skip`/`@include` cannot exclude it).
    @inline(__always)
    var hasNoDirectives: Bool {
        switch self {
        case .field(let node): node.directives.isEmpty
        case .fragmentSpread(let node): node.directives.isEmpty
        case .inlineFragment(let node): node.directives.isEmpty
        }
    }

    /// A field's response key (its alias, or its name); empty for fragments.
    @inline(__always)
    var fieldResponseKey: String {
        guard case .field(let node) = self else { return "" }
        return node.alias?.value ?? node.name.value
    }

    /// A field's name; empty for fragments.
    @inline(__always)
    var fieldName: String {
        guard case .field(let node) = self else { return "" }
        return node.name.value
    }

    /// A field's selection set (`nil` for a leaf field or a fragment).
    @inline(__always)
    var fieldSelectionSet: SelectionSet? {
        guard case .field(let node) = self else { return nil }
        return node.selectionSet
    }

    /// A field's arguments; empty for fragments.
    @inline(__always)
    var fieldArguments: [Argument] {
        guard case .field(let node) = self else { return [] }
        return node.arguments
    }

    /// A fragment spread's fragment name; empty otherwise.
    @inline(__always)
    var spreadName: String {
        guard case .fragmentSpread(let node) = self else { return "" }
        return node.name.value
    }

    /// An inline fragment's type condition's name, if it has one.
    @inline(__always)
    var inlineTypeCondition: String? {
        guard case .inlineFragment(let node) = self else { return nil }
        return node.typeCondition?.name.value
    }

    /// An inline fragment's selection set (`nil` for fields and spreads).
    @inline(__always)
    var inlineSelectionSet: SelectionSet? {
        guard case .inlineFragment(let node) = self else { return nil }
        return node.selectionSet
    }
}

extension Definition {
    /// A fragment definition's name (`nil` for other definitions).
    @inline(__always)
    var fragmentName: String? {
        guard case .fragment(let node) = self else { return nil }
        return node.name.value
    }

    /// A fragment definition's type condition's name (empty for other definitions).
    @inline(__always)
    var fragmentTypeCondition: String {
        guard case .fragment(let node) = self else { return "" }
        return node.typeCondition.name.value
    }

    /// A fragment definition's selection set (`nil` for other definitions).
    @inline(__always)
    var fragmentSelectionSet: SelectionSet? {
        guard case .fragment(let node) = self else { return nil }
        return node.selectionSet
    }
}
