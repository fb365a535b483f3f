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
            var name: String
            var spreads: [ValidationSpread]
            var next: Int
        }
        var path: [ValidationSpread] = []
        var pathIndexByName: [String: Int] = [name: 0]
        var stack = [Frame(name: name, spreads: rootSpreads, next: 0)]
        while let top = stack.last {
            if top.next == top.spreads.count {
                pathIndexByName[top.name] = nil
                stack.removeLast()
                if !stack.isEmpty { path.removeLast() }
                continue
            }
            let spread = top.spreads[top.next]
            stack[stack.count - 1].next += 1
            path.append(spread)
            if let cycleIndex = pathIndexByName[spread.name] {
                let cycle = path[cycleIndex...]
                let via = cycle.dropLast().map { "\"" + $0.name + "\"" }.joined(separator: ", ")
                try report(
                    "Cannot spread fragment \"\(spread.name)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
                    cycle.map(\.offset)
                )
                path.removeLast()
                continue
            }
            guard let (target, definition) = self.fragment(named: spread.name), !cycleVisited[target] else {
                path.removeLast()
                continue
            }
            cycleVisited[target] = true
            let spreads = fragmentSpreads(definitionIndex: target, definition)
            if spreads.isEmpty {
                path.removeLast()
                continue
            }
            pathIndexByName[spread.name] = path.count
            stack.append(Frame(name: spread.name, spreads: spreads, next: 0))
        }
    }
}
