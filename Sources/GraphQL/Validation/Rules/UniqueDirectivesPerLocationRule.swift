/// Directives Are Unique Per Location (spec §5.7.3,
/// https://spec.graphql.org/October2021/#sec-Directives-Are-Unique-Per-Location):
/// a non-repeatable directive appears at most once on a node.
/// graphql-js: `UniqueDirectivesPerLocationRule` (unknown directives are ignored).
extension DocumentValidator {
    func checkUniqueDirectives(_ directives: [Directive]) throws(ValidationAborted) {
        guard directives.count > 1 else { return }
        var seen: [String: Int] = [:]
        try checkUniqueDirectives(directives, seen: &seen)
    }

    /// `seen` carries the directives met so far at this location (shared by a
    /// type's definition and its extensions).
    func checkUniqueDirectives(_ directives: [Directive], seen: inout [String: Int]) throws(ValidationAborted) {
        for directive in directives {
            let name = directive.name.value
            guard isUniqueDirective(name) else { continue }
            if let first = seen[name] {
                try report("The directive \"@\(name)\" can only be used once at this location.", [first, directive.loc.start])
            } else {
                seen[name] = directive.loc.start
            }
        }
    }

    private func isUniqueDirective(_ name: String) -> Bool {
        if let definition = documentDirectives[name] { return !definition.repeatable }
        if let definition = schema.directive(named: name) { return !definition.isRepeatable }
        return false
    }
}
