/// Single Root Field (spec §5.2.3.1,
/// https://spec.graphql.org/October2021/#sec-Single-root-field): a subscription
/// selects exactly one root field, not an introspection field; and, since the
/// September 2025 spec, without `@skip` / `@include` at its root.
/// graphql-js: `SingleFieldSubscriptionsRule` (the `@skip` / `@include` part as
/// in graphql-js 16.11: those selections are reported and not collected).
extension DocumentValidator {
    func checkSingleFieldSubscription(_ operation: OperationDefinition) throws(ValidationAborted) {
        guard operation.operation == .subscription, let root = schema.subscriptionType else { return }
        var order: [String] = []
        var fields: [String: [(name: String, offset: Int)]] = [:]
        var forbidden: [Int] = []
        var visited = Set<String>()

        func included(_ directives: [Directive]) -> Bool {
            if let skip = directives.first(where: { $0.name.value == "skip" }) {
                forbidden.append(skip.loc.start)
                return false
            }
            if let include = directives.first(where: { $0.name.value == "include" }) {
                forbidden.append(include.loc.start)
                return false
            }
            return true
        }
        func matches(_ condition: NamedType?) -> Bool {
            guard let condition else { return true }
            let name = condition.name.value
            if name == root.name { return true }
            guard let type = schema.type(named: name), type.isAbstractType else { return false }
            return schema.isSubType(root.name, of: name)
        }
        // Iterative, like the rest of the walk over fragments.
        var stack: [(selections: [Selection], next: Int)] = [(operation.selectionSet.selections, 0)]
        while let top = stack.last {
            if top.next == top.selections.count {
                stack.removeLast()
                continue
            }
            let selection = top.selections[top.next]
            stack[stack.count - 1].next += 1
            switch selection {
            case .field(let field):
                guard included(field.directives) else { continue }
                let key = field.responseKey
                if fields[key] == nil { order.append(key) }
                fields[key, default: []].append((field.name.value, field.loc.start))
            case .inlineFragment(let inline):
                guard included(inline.directives), matches(inline.typeCondition) else { continue }
                stack.append((inline.selectionSet.selections, 0))
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard !visited.contains(name), included(spread.directives) else { continue }
                visited.insert(name)
                guard let (_, fragment) = fragment(named: name), matches(fragment.typeCondition) else { continue }
                stack.append((fragment.selectionSet.selections, 0))
            }
        }

        let subject = operation.name.map { "Subscription \"\($0.value)\"" } ?? "Anonymous Subscription"
        if !forbidden.isEmpty {
            try report("\(subject) must not use `@skip` or `@include` directives in the top level selection.", forbidden)
            return
        }
        if order.count > 1 {
            let extra = order.dropFirst().flatMap { fields[$0] ?? [] }.map(\.offset)
            try report("\(subject) must select only one top level field.", extra)
        }
        for key in order {
            guard let nodes = fields[key], let first = nodes.first, first.name.hasPrefix("__") else { continue }
            try report("\(subject) must not select an introspection top level field.", nodes.map(\.offset))
        }
    }
}
