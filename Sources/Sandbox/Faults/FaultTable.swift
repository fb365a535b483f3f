import Support

/// The active fault rules, shared by all requests.
final class FaultTable: Sendable {
    private struct Entry: Sendable {
        let id: String
        let rule: FaultRule
        let pattern: RoutePattern
        var remaining: Int?
    }

    private let entries = Locked<[Entry]>([])

    init(_ rules: [FaultRule]) {
        for rule in rules { _ = add(rule) }
    }

    /// Adds a rule; returns its id. The rule must have a valid route (checked by `FaultRule(object:)`).
    @discardableResult
    func add(_ rule: FaultRule) -> String? {
        guard let pattern = RoutePattern(rule.route) else { return nil }
        let id = "flt_" + Identifiers.base62(10)
        entries.withLock { $0.append(Entry(id: id, rule: rule, pattern: pattern, remaining: rule.times)) }
        return id
    }

    /// Removes one rule; false if unknown.
    func remove(id: String) -> Bool {
        entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.id == id }) else { return false }
            list.remove(at: index)
            return true
        }
    }

    func removeAll() { entries.withLock { $0.removeAll() } }

    /// The active rules with their ids and remaining counts.
    func list() -> [(id: String, rule: FaultRule, remaining: Int?)] {
        entries.withLock { $0.map { ($0.id, $0.rule, $0.remaining) } }
    }

    /// The first rule matching the request, consuming one of its `times`.
    func take(method: String, path: String) -> FaultRule.Kind? {
        entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.pattern.matches(method: method, path: path) }) else { return nil }
            let kind = list[index].rule.kind
            if let remaining = list[index].remaining {
                if remaining <= 1 { list.remove(at: index) } else { list[index].remaining = remaining - 1 }
            }
            return kind
        }
    }
}
