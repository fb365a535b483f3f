// The single-pass validator: the state every rule shares, error collection in
// graphql-js's order, and the facts computed once per fragment and operation.
//
// graphql-js runs 26 visitors in parallel over the document, each with its own
// state, and recomputes fragment facts per rule. Here the document is walked
// once (DocumentWalker.swift) and, at each node, the checks of the rules that
// graphql-js runs at that node are called in `specifiedRules` order, so the
// errors come out in the same order. Facts several rules need (a fragment's
// spreads, its variable usages, a selection set's fields) are computed once.

/// Thrown inside the walk when the error limit is reached.
struct ValidationAborted: Error {}

/// An error before its locations are resolved: byte offsets of its nodes.
struct PendingValidationError {
    var message: String
    var offsets: [Int]
}

/// A use of a variable: where, and what the position expects (graphql-js `ValidationVariableUsage`).
struct ValidationVariableUsage {
    /// The variable's name, without `$`.
    var name: String
    /// Offset of the `$`.
    var offset: Int
    /// The input type the position expects, if known.
    var type: GraphQLTypeReference?
    /// Whether the position has a default value (an argument or input field default).
    var hasLocationDefault: Bool
    /// When the variable is the value of a field of a OneOf input object: that type's name.
    var oneOfType: String?
}

/// One spread of a fragment: its name and where it is.
struct ValidationSpread {
    var name: String
    var offset: Int
}

/// Operation-end checks postponed until the fragments they need have been walked.
struct DeferredOperationEndCheck {
    /// Index of the operation in the document's definitions.
    var definitionIndex: Int
    /// Where its errors go in the error list (the errors reported before its end).
    var errorPosition: Int
    /// Its own variable usages, in document order.
    var usages: [ValidationVariableUsage]
    /// The fragments it uses (definition indexes), in graphql-js's order.
    var referenced: [Int]
}

/// Validates one document against one schema; used once.
final class DocumentValidator {
    let schema: GraphQLSchema
    /// The schema's types and fields as validation looks them up.
    let catalog: ValidationCatalog
    let document: Document
    let maxErrors: Int

    /// Errors in report order.
    var errors: [PendingValidationError] = []
    /// When set, the walk only collects facts (variable usages) and reports nothing.
    var collectOnly = false
    /// Whether `report` stops the walk past `maxErrors` (not while merging postponed checks).
    var throwsAtLimit = true

    /// Fragment definitions by name: the last definition of a name wins, as in graphql-js.
    let fragmentIndexByName: FragmentNameIndex
    /// Each definition's `FragmentDefinition`, or nil for other definitions.
    let fragmentAt: [FragmentDefinition?]
    /// Offset of each fragment definition's selection set (-1 for other definitions).
    let fragmentSelectionStart: [Int]
    /// Variable usages of each fragment definition (by definition index), once walked.
    var fragmentUsages: [[ValidationVariableUsage]?]
    /// Spreads of each fragment definition (by definition index), in graphql-js's order.
    var fragmentSpreadCache: [[ValidationSpread]?]
    /// Operation checks waiting for fragments defined later in the document.
    var deferredChecks: [DeferredOperationEndCheck] = []

    /// Directive definitions written in the document itself (rare; graphql-js honours them).
    let documentDirectives: [String: DirectiveDefinition]

    /// Fragments each operation uses, in document order of the operations (NoUnusedFragments).
    var referencedFragmentsByOperation: [[Int]] = []
    /// Names of the types the document defines (KnownTypeNames), computed on first use.
    var documentTypeNameCache: Set<String>?

    /// Usages collected while walking the current operation or fragment.
    var currentUsages: [ValidationVariableUsage] = []

    /// State of OverlappingFieldsCanBeMerged shared across the whole document.
    var overlap: OverlapState

    /// State of UniqueOperationNames / UniqueFragmentNames.
    var knownOperationNames: [String: Int] = [:]
    /// The first offset of each fragment name, at the definition index its name resolves to.
    var knownFragmentNameOffsets: [Int?]
    /// State of NoFragmentCycles: fragments visited, at the definition index their name resolves to.
    var cycleVisited: [Bool]
    /// Number of operations in the document (LoneAnonymousOperation).
    let operationCount: Int
    /// The operations by definition index (nil for other definitions).
    let operationAt: [OperationDefinition?]
    /// Whether the document holds type-system definitions (rare).
    let hasTypeSystemDefinitions: Bool
    /// UniqueDirectivesPerLocation's per-type maps for type-system definitions.
    var typeDirectivesSeen: [String: [String: Int]] = [:]
    var schemaDirectivesSeen: [String: Int] = [:]
    /// MaxIntrospectionDepth: fragment results computed without cutting a cycle.
    var introspectionDepthMemo: [IntrospectionDepthKey: Bool] = [:]

    init(schema: GraphQLSchema, document: Document, maxErrors: Int) {
        self.schema = schema
        self.catalog = schema.validation
        self.document = document
        self.maxErrors = maxErrors
        var fragmentNames: [String] = []
        var selectionStarts = [Int](repeating: -1, count: document.definitions.count)
        var fragmentIndexes: [Int] = []
        var fragments: [FragmentDefinition?] = []
        var operations: [OperationDefinition?] = []
        var directives: [String: DirectiveDefinition] = [:]
        var operationCount = 0
        var typeSystem = false
        let count = document.definitions.count
        fragments.reserveCapacity(count)
        operations.reserveCapacity(count)
        for index in 0..<count {
            switch document.definitions[index] {
            case .fragment(let fragment):
                fragmentNames.append(fragment.name.value)
                fragmentIndexes.append(index)
                selectionStarts[index] = fragment.selectionSet.loc.start
                fragments.append(fragment)
                operations.append(nil)
            case .operation(let operation):
                operationCount += 1
                fragments.append(nil)
                operations.append(operation)
            case .directive(let directive):
                directives[directive.name.value] = directive
                fragments.append(nil)
                operations.append(nil)
                typeSystem = true
            default:
                fragments.append(nil)
                operations.append(nil)
                typeSystem = true
            }
        }
        self.fragmentUsages = [[ValidationVariableUsage]?](repeating: nil, count: count)
        self.fragmentSpreadCache = [[ValidationSpread]?](repeating: nil, count: count)
        self.fragmentIndexByName = FragmentNameIndex(names: fragmentNames, definitionIndexes: fragmentIndexes)
        self.knownFragmentNameOffsets = [Int?](repeating: nil, count: count)
        self.cycleVisited = [Bool](repeating: false, count: count)
        self.overlap = OverlapState(definitionCount: count)
        self.fragmentAt = fragments
        self.fragmentSelectionStart = selectionStarts
        self.operationAt = operations
        self.documentDirectives = directives
        self.operationCount = operationCount
        self.hasTypeSystemDefinitions = typeSystem
    }

    // MARK: Running

    /// Walks the document and returns the errors, located.
    func run() -> [GraphQLError] {
        var aborted = false
        do throws(ValidationAborted) {
            try walkDocument()
        } catch {
            aborted = true
        }
        if !deferredChecks.isEmpty {
            if aborted {
                // The walk stopped early: walk the fragments not seen yet for their
                // variable usages only, so the postponed checks can be completed.
                collectOnly = true
                for index in document.definitions.indices where fragmentUsages[index] == nil {
                    if let fragment = fragmentAt[index] {
                        try? walkFragmentDefinition(fragment, index: index)
                    }
                }
                collectOnly = false
            }
            mergeDeferredChecks()
        }
        if errors.count > maxErrors {
            errors.removeLast(errors.count - maxErrors)
            errors.append(PendingValidationError(message: "Too many validation errors, error limit reached. Validation aborted.", offsets: []))
        }
        return locate()
    }

    /// Reports an error at the nodes starting at `offsets`; throws once more than
    /// `maxErrors` errors have been reported.
    @inline(__always)
    func report(_ message: String, _ offsets: [Int]) throws(ValidationAborted) {
        if collectOnly { return }
        errors.append(PendingValidationError(message: message, offsets: offsets))
        if errors.count > maxErrors && throwsAtLimit { throw ValidationAborted() }
    }

    /// The fragment definition graphql-js's `getFragment(name)` returns.
    @inline(__always)
    func fragment(named name: String) -> (index: Int, definition: FragmentDefinition)? {
        guard let index = fragmentIndexByName[name], let definition = fragmentAt[index] else { return nil }
        return (index, definition)
    }

    /// Runs the postponed operation-end checks and inserts their errors where
    /// graphql-js reports them: at the end of their operation. Errors reported
    /// after that point in the walk can only come later in graphql-js's order.
    private func mergeDeferredChecks() {
        let checks = deferredChecks
        deferredChecks = []
        let walked = errors
        var merged: [PendingValidationError] = []
        merged.reserveCapacity(walked.count)
        var position = 0
        throwsAtLimit = false
        for check in checks {
            while position < check.errorPosition && position < walked.count {
                merged.append(walked[position])
                position += 1
            }
            errors = []
            try? operationEndChecks(definitionIndex: check.definitionIndex, ownUsages: check.usages, referenced: check.referenced)
            merged.append(contentsOf: errors)
        }
        throwsAtLimit = true
        while position < walked.count {
            merged.append(walked[position])
            position += 1
        }
        errors = merged
    }

    // MARK: Fragment facts

    /// The fragment spreads inside `selectionSet`, in graphql-js's
    /// `getFragmentSpreads` order (a set's own spreads first, nested sets last-first).
    func spreads(in selectionSet: SelectionSet) -> [ValidationSpread] {
        var result: [ValidationSpread] = []
        appendSpreads(in: selectionSet.selections, to: &result)
        return result
    }

    /// graphql-js pops nested sets off a stack: a set's own spreads, then its
    /// nested sets' last one first, each in full. Recursion does the same
    /// (its depth is bounded by the parser's nesting limit, as the walk's).
    private func appendSpreads(in selections: [Selection], to result: inout [ValidationSpread]) {
        var hasNested = false
        for selection in selections {
            switch selection {
            case .fragmentSpread(let spread):
                result.append(ValidationSpread(name: spread.name.value, offset: spread.loc.start))
            case .field(let field):
                if field.selectionSet != nil { hasNested = true }
            case .inlineFragment:
                hasNested = true
            }
        }
        guard hasNested else { return }
        for selection in selections.reversed() {
            switch selection {
            case .fragmentSpread:
                break
            case .field(let field):
                if let child = field.selectionSet { appendSpreads(in: child.selections, to: &result) }
            case .inlineFragment(let inline):
                appendSpreads(in: inline.selectionSet.selections, to: &result)
            }
        }
    }

    /// `spreads(in:)` of a fragment definition, computed once.
    func fragmentSpreads(definitionIndex: Int, _ fragment: FragmentDefinition) -> [ValidationSpread] {
        if let cached = fragmentSpreadCache[definitionIndex] { return cached }
        let result = spreads(in: fragment.selectionSet)
        fragmentSpreadCache[definitionIndex] = result
        return result
    }

    /// Definition indexes of the fragments an operation uses, directly or not,
    /// in graphql-js's `getRecursivelyReferencedFragments` order.
    func recursivelyReferencedFragments(of selectionSet: SelectionSet) -> [Int] {
        var result: [Int] = []
        // graphql-js marks names; a name without a fragment leads nowhere, so
        // marking the fragment each name resolves to is the same.
        var collected = [Bool](repeating: false, count: fragmentAt.count)
        var first = true
        var stack: [Int] = []
        while true {
            let found: [ValidationSpread]
            if first {
                found = spreads(in: selectionSet)
                first = false
            } else if let index = stack.popLast(), let fragment = fragmentAt[index] {
                found = fragmentSpreads(definitionIndex: index, fragment)
            } else {
                break
            }
            for spread in found {
                guard let index = fragmentIndexByName[spread.name], !collected[index] else { continue }
                collected[index] = true
                result.append(index)
                stack.append(index)
            }
        }
        return result
    }
}
