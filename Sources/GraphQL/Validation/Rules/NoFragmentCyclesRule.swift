/// Fragment Spreads Must Not Form Cycles (spec §5.5.2.2,
/// https://spec.graphql.org/October2021/#sec-Fragment-spreads-must-not-form-cycles).
/// graphql-js: `NoFragmentCyclesRule`, run at each fragment definition with the
/// same depth-first order and messages; written as a loop with an explicit
/// stack so a long chain of fragments cannot exhaust the thread's stack.
extension DocumentValidator {
    func checkFragmentCycles(_ fragment: FragmentDefinition, index: Int) throws(ValidationAborted) {
        let name = fragment.name.value
        // Visited marks are kept at the definition a name resolves to (one per name).
        guard let slot = fragmentIndexByName[name], !cycleVisited[slot] else { return }
        cycleVisited[slot] = true
        let rootSpreads = fragmentSpreads(definitionIndex: index, fragment)
        if rootSpreads.isEmpty { return }

        struct Frame {
            /// The definition the frame's name resolves to.
            var slot: Int
            var spreads: [ValidationSpread]
            var next: Int
        }
        var path: [ValidationSpread] = []
        // Position in `path` of each fragment on it (by the definition its name resolves to), or -1.
        var pathIndexAt = [Int](repeating: -1, count: fragmentAt.count)
        pathIndexAt[slot] = 0
        var stack = [Frame(slot: slot, spreads: rootSpreads, next: 0)]
        while let top = stack.last {
            if top.next == top.spreads.count {
                pathIndexAt[top.slot] = -1
                stack.removeLast()
                if !stack.isEmpty { path.removeLast() }
                continue
            }
            let spread = top.spreads[top.next]
            stack[stack.count - 1].next += 1
            path.append(spread)
            let spreadSlot = fragmentIndexByName[spread.name]
            if let spreadSlot, pathIndexAt[spreadSlot] >= 0 {
                let cycleIndex = pathIndexAt[spreadSlot]
                let cycle = path[cycleIndex...]
                let via = cycle.dropLast().map { "\"" + $0.name + "\"" }.joined(separator: ", ")
                try report(
                    "Cannot spread fragment \"\(spread.name)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
                    cycle.map(\.offset)
                )
                path.removeLast()
                continue
            }
            guard let target = spreadSlot, let definition = fragmentAt[target], !cycleVisited[target] else {
                path.removeLast()
                continue
            }
            cycleVisited[target] = true
            let spreads = fragmentSpreads(definitionIndex: target, definition)
            if spreads.isEmpty {
                path.removeLast()
                continue
            }
            pathIndexAt[target] = path.count
            stack.append(Frame(slot: target, spreads: spreads, next: 0))
        }
    }
}
