/// Field Selection Merging (spec §5.3.2,
/// https://spec.graphql.org/October2021/#sec-Field-Selection-Merging): fields
/// with the same response name, wherever they come from (fragments included),
/// must be the same field with the same arguments (unless their parents are
/// different object types) and have compatible types and mergeable subfields.
///
/// graphql-js: `OverlappingFieldsCanBeMergedRule`, reported at each selection
/// set, with its algorithm: fields compared "within" a selection set once, and
/// "between" sets and fragments, with the fields of each selection set computed
/// once and each pair of fragments compared once (per mutual exclusivity).
/// Fragment chains are followed with explicit stacks, in graphql-js's order.
/// Identical leaf fields repeated many times (`{ a a a ... }`) are compared
/// once per kind instead of once per pair (see `collectConflictsWithin`).
extension DocumentValidator {
    func checkOverlappingFields(_ selectionSet: SelectionSet, parentType: ValidationType?) throws(ValidationAborted) {
        // `{ ...F }`: no fields of its own to compare, one fragment (no fragment
        // pairs), so graphql-js only marks the pairs of F's fragment chain.
        if selectionSet.selections.count == 1, case .fragmentSpread(let spread) = selectionSet.selections[0] {
            markFragmentChain(spread.name.value, selectionSetStart: selectionSet.loc.start)
            return
        }
        // Without fragment spreads and repeated response names nothing here can
        // conflict (sub-selections are checked where the walk visits them).
        if !Self.mayConflict(selectionSet) { return }
        let conflicts = findConflictsWithinSelectionSet(parentType: parentType, selectionSet: selectionSet)
        if overlap.depthExceeded && !overlap.depthReported {
            overlap.depthReported = true
            try report(
                "Fields nest more than \(Self.maxMergeDepth) levels deep through fragments; they cannot be checked for merging.",
                [selectionSet.loc.start]
            )
        }
        for conflict in conflicts {
            try report(
                "Fields \"\(conflict.responseName)\" conflict because \(conflict.reason.message). "
                    + "Use different aliases on the fields to fetch both if this was intentional.",
                conflict.fields1 + conflict.fields2
            )
        }
    }

    /// Whether a selection set spreads a fragment or repeats a response name
    /// (looking into its inline fragments), without building its field map.
    private static func mayConflict(_ selectionSet: SelectionSet) -> Bool {
        let selections = selectionSet.selections
        if selections.count == 1, case .field = selections[0] { return false }
        // Up to 16 names are compared in a list, by length first (see `sameName`).
        var names: [String] = []
        names.reserveCapacity(selections.count)
        var set: Set<String>?
        var nested: [SelectionSet] = []
        var current = selections
        while true {
            for index in current.indices {
                switch current[index] {
                case .fragmentSpread:
                    return true
                case .inlineFragment(let inline):
                    nested.append(inline.selectionSet)
                case .field(let field):
                    let key = field.alias?.value ?? field.name.value
                    if let inserted = set?.insert(key).inserted {
                        if !inserted { return true }
                        continue
                    }
                    if names.contains(where: { sameName($0, key) }) {
                        return true
                    } else if names.count < 16 {
                        names.append(key)
                    } else {
                        var seen = Set(names)
                        seen.insert(key)
                        set = seen
                    }
                }
            }
            guard let next = nested.popLast() else { return false }
            current = next.selections
        }
    }

    // MARK: Entry points

    private func findConflictsWithinSelectionSet(parentType: ValidationType?, selectionSet: SelectionSet) -> [OverlapConflict] {
        var conflicts: [OverlapConflict] = []
        let fields = fieldsAndFragments(parentType: parentType, selectionSet: selectionSet)
        collectConflictsWithin(&conflicts, fields)
        let names = fields.fragmentNames
        for index in names.indices {
            collectConflictsBetweenFieldsAndFragment(&conflicts, mutuallyExclusive: false, fields, names[index])
            for other in names[(index + 1)...] {
                collectConflictsBetweenFragments(&conflicts, mutuallyExclusive: false, names[index], other)
            }
        }
        return conflicts
    }

    /// How deep sub-selections are compared. Only fragments can take the
    /// comparison deeper than the parser's nesting limit (each level through
    /// another fragment); past this, the walk would risk the thread's stack.
    static var maxMergeDepth: Int { 1_000 }

    private func findConflictsBetweenSubSelectionSets(
        mutuallyExclusive: Bool,
        _ parentType1: ValidationType?, _ selectionSet1: SelectionSet,
        _ parentType2: ValidationType?, _ selectionSet2: SelectionSet
    ) -> [OverlapConflict] {
        if overlap.depth >= Self.maxMergeDepth {
            overlap.depthExceeded = true
            return []
        }
        overlap.depth += 1
        defer { overlap.depth -= 1 }
        var conflicts: [OverlapConflict] = []
        let fields1 = fieldsAndFragments(parentType: parentType1, selectionSet: selectionSet1)
        let fields2 = fieldsAndFragments(parentType: parentType2, selectionSet: selectionSet2)
        collectConflictsBetween(&conflicts, mutuallyExclusive: mutuallyExclusive, fields1, fields2)
        for name in fields2.fragmentNames {
            collectConflictsBetweenFieldsAndFragment(&conflicts, mutuallyExclusive: mutuallyExclusive, fields1, name)
        }
        for name in fields1.fragmentNames {
            collectConflictsBetweenFieldsAndFragment(&conflicts, mutuallyExclusive: mutuallyExclusive, fields2, name)
        }
        for name1 in fields1.fragmentNames {
            for name2 in fields2.fragmentNames {
                collectConflictsBetweenFragments(&conflicts, mutuallyExclusive: mutuallyExclusive, name1, name2)
            }
        }
        return conflicts
    }

    // MARK: Fragments

    private func collectConflictsBetweenFieldsAndFragment(
        _ conflicts: inout [OverlapConflict],
        mutuallyExclusive: Bool,
        _ fields: OverlapFieldMap,
        _ fragmentName: String
    ) {
        // graphql-js recurses into the fragments each fragment spreads, checking
        // each (spread, spreader) pair just before descending; a stack popped in
        // the same order does the same without recursion.
        // Pairs are marked by the definitions their names resolve to; graphql-js
        // also marks pairs with an undefined fragment, which changes nothing (such
        // a pair is dropped right after either way).
        var stack: [(name: String, spreader: Int?)] = [(fragmentName, nil)]
        while let (name, spreader) = stack.popLast() {
            guard let index = fragmentIndexByName[name] else { continue }
            if let spreader {
                if overlap.comparedPairs.has(index, spreader, mutuallyExclusive: mutuallyExclusive) { continue }
                overlap.comparedPairs.add(index, spreader, mutuallyExclusive: mutuallyExclusive)
            }
            let start = fragmentSelectionStart[index]
            guard start >= 0 else { continue }
            // graphql-js: `if (fieldMap === fieldMap2) return`.
            if start == fields.selectionSetStart { continue }
            let referenced: [String]
            if fields.fields.isEmpty {
                // Nothing to compare: only the fragment pairs get marked, which
                // needs the fragments it spreads but not its fields.
                referenced = topLevelFragmentNames(index)
            } else {
                guard let fields2 = referencedFieldsAndFragments(index) else { continue }
                collectConflictsBetween(&conflicts, mutuallyExclusive: mutuallyExclusive, fields, fields2)
                referenced = fields2.fragmentNames
            }
            for name2 in referenced.reversed() {
                stack.append((name2, index))
            }
        }
    }

    /// What `collectConflictsBetweenFieldsAndFragment` does for a selection set
    /// without fields: marks (spread, spreader) pairs along the fragment's
    /// chain of top-level spreads, not mutually exclusive.
    private func markFragmentChain(_ fragmentName: String, selectionSetStart: Int) {
        guard let first = fragmentIndexByName[fragmentName], fragmentSelectionStart[first] != selectionSetStart else { return }
        // The first fragment marks nothing itself; most spread no other fragment at their top.
        let firstNames = topLevelFragmentNames(first)
        if firstNames.isEmpty { return }
        var stack: [(index: Int, spreader: Int)] = []
        for name in firstNames.reversed() {
            if let target = fragmentIndexByName[name] { stack.append((target, first)) }
        }
        while let (index, spreader) = stack.popLast() {
            if overlap.comparedPairs.has(index, spreader, mutuallyExclusive: false) { continue }
            overlap.comparedPairs.add(index, spreader, mutuallyExclusive: false)
            if fragmentSelectionStart[index] == selectionSetStart { continue }
            let referenced = topLevelFragmentNames(index)
            if referenced.isEmpty { continue }
            for name in referenced.reversed() {
                if let target = fragmentIndexByName[name] { stack.append((target, index)) }
            }
        }
    }

    /// The fragments a fragment spreads in its own selection set (inline
    /// fragments included, fields' sub-selections not): its map's `fragmentNames`.
    private func topLevelFragmentNames(_ definitionIndex: Int) -> [String] {
        if let cached = overlap.topLevelFragmentNames[definitionIndex] { return cached }
        guard let selectionSet = fragmentAt[definitionIndex]?.selectionSet else { return [] }
        // Fields only (the usual fragment): nothing to collect.
        if !selectionSet.selections.contains(where: { if case .field = $0 { false } else { true } }) {
            overlap.topLevelFragmentNames[definitionIndex] = []
            return []
        }
        if let cached = overlap.cache[selectionSet.loc.start] {
            overlap.topLevelFragmentNames[definitionIndex] = cached.fragmentNames
            return cached.fragmentNames
        }
        var names: [String] = []
        // Same order as `collectFields`: depth first, in selection order.
        var pending: [[Selection]] = [selectionSet.selections]
        var positions: [Int] = [0]
        while let selections = pending.last {
            let position = positions[positions.count - 1]
            if position == selections.count {
                pending.removeLast()
                positions.removeLast()
                continue
            }
            positions[positions.count - 1] += 1
            switch selections[position] {
            case .fragmentSpread(let spread):
                if !names.contains(spread.name.value) { names.append(spread.name.value) }
            case .inlineFragment(let inline):
                pending.append(inline.selectionSet.selections)
                positions.append(0)
            case .field:
                break
            }
        }
        overlap.topLevelFragmentNames[definitionIndex] = names
        return names
    }

    private func collectConflictsBetweenFragments(
        _ conflicts: inout [OverlapConflict],
        mutuallyExclusive: Bool,
        _ fragmentName1: String,
        _ fragmentName2: String
    ) {
        var stack: [(String, String)] = [(fragmentName1, fragmentName2)]
        while let (name1, name2) = stack.popLast() {
            // Undefined fragments: see collectConflictsBetweenFieldsAndFragment.
            guard let index1 = fragmentIndexByName[name1], let index2 = fragmentIndexByName[name2],
                  index1 != index2 else { continue }
            if overlap.comparedPairs.has(index1, index2, mutuallyExclusive: mutuallyExclusive) { continue }
            overlap.comparedPairs.add(index1, index2, mutuallyExclusive: mutuallyExclusive)
            guard let fields1 = referencedFieldsAndFragments(index1),
                  let fields2 = referencedFieldsAndFragments(index2) else { continue }
            collectConflictsBetween(&conflicts, mutuallyExclusive: mutuallyExclusive, fields1, fields2)
            // graphql-js order: (name1, each of name2's fragments), then (each of name1's fragments, name2).
            var next: [(String, String)] = []
            for referenced in fields2.fragmentNames { next.append((name1, referenced)) }
            for referenced in fields1.fragmentNames { next.append((referenced, name2)) }
            stack.append(contentsOf: next.reversed())
        }
    }

    // MARK: Comparing fields

    /// Every pair of fields with one response name in one selection set.
    ///
    /// Exactly graphql-js's pairs and order, with one shortcut for large groups.
    /// Fields written alike (same parent type, name, arguments and
    /// sub-selections, fragment spreads included) are one "kind". Whether two
    /// fields conflict depends only on their kinds and on which fragment pairs
    /// were already compared; that set only grows, and a grown set can only hide
    /// conflicts. So once two kinds are found not to conflict, later pairs of
    /// the same kinds cannot conflict either, and would only re-mark fragment
    /// pairs already marked: they are skipped. This keeps `{ a a a ... }` or
    /// `{ a { ...F } a { ...F } ... }` repeated thousands of times linear.
    private func collectConflictsWithin(_ conflicts: inout [OverlapConflict], _ fields: OverlapFieldMap) {
        for groupIndex in fields.ranges.indices where fields.ranges[groupIndex].count > 1 {
            let responseName = fields.names[groupIndex]
            let group = Array(fields.group(groupIndex))
            if group.count <= Self.pairwiseLimit {
                for i in group.indices {
                    for j in (i + 1)..<group.count {
                        if let conflict = findConflict(mutuallyExclusive: false, responseName, group[i], group[j]) {
                            conflicts.append(conflict)
                        }
                    }
                }
            } else {
                collectConflictsWithinLargeGroup(&conflicts, responseName, group)
            }
        }
    }

    /// Groups larger than this use the kinds shortcut.
    static var pairwiseLimit: Int { 16 }

    private func collectConflictsWithinLargeGroup(
        _ conflicts: inout [OverlapConflict],
        _ responseName: String,
        _ group: [OverlapField]
    ) {
        // The kind of each field.
        var kindOf: [Int] = []
        kindOf.reserveCapacity(group.count)
        var kindByKey: [String: Int] = [:]
        var members: [[Int]] = []
        for (index, info) in group.enumerated() {
            let key = structuralKey(info)
            if let existing = kindByKey[key] {
                kindOf.append(existing)
                members[existing].append(index)
            } else {
                kindByKey[key] = members.count
                kindOf.append(members.count)
                members.append([index])
            }
        }
        let kindCount = members.count
        // Pairs of kinds found not to conflict.
        var harmless = Set<Int>()
        var firstMemberAfter = [Int](repeating: 0, count: kindCount)
        for i in group.indices {
            let kindI = kindOf[i]
            var found: [(Int, OverlapConflict)] = []
            for otherKind in 0..<kindCount {
                let list = members[otherKind]
                // Members of `otherKind` after `i` (each list is increasing).
                var start = firstMemberAfter[otherKind]
                while start < list.count && list[start] <= i { start += 1 }
                firstMemberAfter[otherKind] = start
                guard start < list.count else { continue }
                let pairKey = min(kindI, otherKind) * kindCount + max(kindI, otherKind)
                if harmless.contains(pairKey) { continue }
                for j in list[start...] {
                    if let conflict = findConflict(mutuallyExclusive: false, responseName, group[i], group[j]) {
                        found.append((j, conflict))
                    } else {
                        harmless.insert(pairKey)
                        break
                    }
                }
            }
            found.sort { $0.0 < $1.0 }
            conflicts.append(contentsOf: found.map(\.1))
            // Enough conflicts to reach the error limit: the rest cannot be reported.
            if conflicts.count > maxErrors { return }
        }
    }

    /// A text identifying how a field is written: parent type, name, arguments,
    /// and sub-selections (fields, inline fragments, fragment spreads by name).
    private func structuralKey(_ info: OverlapField) -> String {
        var key = (info.parentName ?? "?") + "."
        appendStructure(of: info.field, to: &key)
        return key
    }

    private func appendStructure(of field: Field, to key: inout String) {
        key += field.name.value
        // Arguments may contain any text: a length prefix keeps keys unambiguous.
        let arguments = argumentsKey(field)
        key += "(\(arguments.utf8.count))" + arguments
        if let selectionSet = field.selectionSet { appendStructure(of: selectionSet, to: &key) }
    }

    private func appendStructure(of selectionSet: SelectionSet, to key: inout String) {
        key += "{"
        for selection in selectionSet.selections {
            switch selection {
            case .fragmentSpread(let spread):
                key += "..." + spread.name.value
            case .field(let field):
                key += field.responseKey + ":"
                appendStructure(of: field, to: &key)
            case .inlineFragment(let inline):
                key += "... on " + (inline.typeCondition?.name.value ?? "")
                appendStructure(of: inline.selectionSet, to: &key)
            }
            key += " "
        }
        key += "}"
    }

    private func collectConflictsBetween(
        _ conflicts: inout [OverlapConflict],
        mutuallyExclusive: Bool,
        _ fields1: OverlapFieldMap,
        _ fields2: OverlapFieldMap
    ) {
        if fields1.fields.isEmpty || fields2.fields.isEmpty { return }
        for groupIndex in fields1.ranges.indices {
            let responseName = fields1.names[groupIndex]
            guard let index2 = fields2.index(of: responseName) else { continue }
            let group1 = fields1.group(groupIndex)
            let group2 = fields2.group(index2)
            for field1 in group1 {
                for field2 in group2 {
                    if let conflict = findConflict(mutuallyExclusive: mutuallyExclusive, responseName, field1, field2) {
                        conflicts.append(conflict)
                    }
                }
            }
        }
    }

    private func findConflict(
        mutuallyExclusive parentFieldsAreMutuallyExclusive: Bool,
        _ responseName: String,
        _ field1: OverlapField,
        _ field2: OverlapField
    ) -> OverlapConflict? {
        let node1 = field1.field
        let node2 = field2.field
        let mutuallyExclusive = parentFieldsAreMutuallyExclusive
            || (field1.parentName != field2.parentName && field1.parentIsObject && field2.parentIsObject)
        if !mutuallyExclusive {
            if node1.name.value != node2.name.value {
                return OverlapConflict(responseName: responseName,
                                     reason: .text("\"\(node1.name.value)\" and \"\(node2.name.value)\" are different fields"),
                                     fields1: [node1.loc.start], fields2: [node2.loc.start])
            }
            if !sameArguments(node1, node2) {
                return OverlapConflict(responseName: responseName, reason: .text("they have differing arguments"),
                                     fields1: [node1.loc.start], fields2: [node2.loc.start])
            }
        }
        let type1 = field1.type
        let type2 = field2.type
        if let type1, let type2, doTypesConflict(type1, type2) {
            return OverlapConflict(responseName: responseName,
                                 reason: .text("they return conflicting types \"\(type1)\" and \"\(type2)\""),
                                 fields1: [node1.loc.start], fields2: [node2.loc.start])
        }
        if let selectionSet1 = node1.selectionSet, let selectionSet2 = node2.selectionSet {
            let subconflicts = findConflictsBetweenSubSelectionSets(
                mutuallyExclusive: mutuallyExclusive,
                type1.flatMap { catalog.namedType(of: $0) }, selectionSet1,
                type2.flatMap { catalog.namedType(of: $0) }, selectionSet2
            )
            if !subconflicts.isEmpty {
                return OverlapConflict(
                    responseName: responseName,
                    reason: .subfields(subconflicts.map { ($0.responseName, $0.reason) }),
                    fields1: [node1.loc.start] + subconflicts.flatMap(\.fields1),
                    fields2: [node2.loc.start] + subconflicts.flatMap(\.fields2)
                )
            }
        }
        return nil
    }

    /// Whether two field types cannot share a response position (graphql-js `doTypesConflict`).
    private func doTypesConflict(_ type1: GraphQLTypeReference, _ type2: GraphQLTypeReference) -> Bool {
        switch (type1, type2) {
        case (.list(let inner1), .list(let inner2)): return doTypesConflict(inner1, inner2)
        case (.list, _), (_, .list): return true
        case (.nonNull(let inner1), .nonNull(let inner2)): return doTypesConflict(inner1, inner2)
        case (.nonNull, _), (_, .nonNull): return true
        case (.named(let name1), .named(let name2)):
            let leaf1 = catalog.type(named: name1)?.isLeaf ?? false
            let leaf2 = catalog.type(named: name2)?.isLeaf ?? false
            return (leaf1 || leaf2) && name1 != name2
        }
    }

    /// graphql-js compares `print(sortValueNode(arguments as an object))`.
    private func sameArguments(_ field1: Field, _ field2: Field) -> Bool {
        if field1.arguments.isEmpty && field2.arguments.isEmpty { return true }
        return argumentsKey(field1) == argumentsKey(field2)
    }

    private func argumentsKey(_ field: Field) -> String {
        if field.arguments.isEmpty { return "{}" }
        let object = ObjectValue(
            fields: field.arguments.map { ObjectField(name: $0.name, value: $0.value, loc: $0.loc) },
            loc: field.loc
        )
        return Printer.print(Self.sortedValue(.object(object)))
    }

    /// graphql-js `sortValueNode`: object fields by name (stable, natural order), recursively.
    private static func sortedValue(_ value: Value) -> Value {
        switch value {
        case .object(let object):
            var fields = object.fields.map { ObjectField(name: $0.name, value: sortedValue($0.value), loc: $0.loc) }
            GraphQLSuggestions.insertionSort(&fields) { GraphQLSuggestions.naturalCompare($0.name.value, $1.name.value) }
            return .object(ObjectValue(fields: fields, loc: object.loc))
        case .list(let list):
            return .list(ListValue(values: list.values.map(sortedValue), loc: list.loc))
        default:
            return value
        }
    }

    // MARK: Collecting fields

    /// The fields and spread fragment names of a selection set, computed once.
    private func fieldsAndFragments(parentType: ValidationType?, selectionSet: SelectionSet) -> OverlapFieldMap {
        if let cached = overlap.cache[selectionSet.loc.start] { return cached }
        var collected: [(String, OverlapField)] = []
        var fragmentNames: [String] = []
        collectFields(parentType: parentType, selectionSet: selectionSet, into: &collected, fragmentNames: &fragmentNames)
        let result = OverlapFieldMap(selectionSetStart: selectionSet.loc.start, collected: collected, fragmentNames: fragmentNames)
        overlap.cache[selectionSet.loc.start] = result
        return result
    }

    /// The fields of the fragment defined at `definitionIndex`.
    private func referencedFieldsAndFragments(_ definitionIndex: Int) -> OverlapFieldMap? {
        let start = fragmentSelectionStart[definitionIndex]
        guard start >= 0 else { return nil }
        if let cached = overlap.cache[start] { return cached }
        guard let fragment = fragmentAt[definitionIndex] else { return nil }
        let type = catalog.type(named: fragment.typeCondition.name.value)
        return fieldsAndFragments(parentType: type, selectionSet: fragment.selectionSet)
    }

    private func collectFields(
        parentType: ValidationType?,
        selectionSet: SelectionSet,
        into collected: inout [(String, OverlapField)],
        fragmentNames: inout [String]
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                // graphql-js looks fields up directly here: meta fields have no definition.
                let type = parentType?.field(named: field.name.value)?.type
                collected.append((field.responseKey, OverlapField(parentName: parentType?.name,
                                                                  parentIsObject: parentType?.isObject ?? false,
                                                                  field: field, type: type)))
            case .fragmentSpread(let spread):
                if !fragmentNames.contains(spread.name.value) {
                    fragmentNames.append(spread.name.value)
                }
            case .inlineFragment(let inline):
                let type = inline.typeCondition.map { catalog.type(named: $0.name.value) } ?? parentType
                collectFields(parentType: type, selectionSet: inline.selectionSet, into: &collected, fragmentNames: &fragmentNames)
            }
        }
    }
}
