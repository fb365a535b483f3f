/// Maximum introspection depth: graphql-js's recommended `MaxIntrospectionDepthRule`
/// (16.9+, appended to `specifiedRules`). Not a spec rule: a guard against
/// introspection queries that nest the list fields `fields`, `interfaces`,
/// `possibleTypes` and `inputFields` 3 or more deep (following fragments),
/// which make a server build huge responses.
///
/// graphql-js revisits a fragment each time it is spread, which is exponential
/// on fragments that spread others twice; here a fragment's answer at a given
/// depth is remembered whenever no fragment cycle was cut while computing it,
/// which gives the same answers in linear time.
extension DocumentValidator {
    /// Checks a `__schema` / `__type` field; returns true when it reported
    /// (graphql-js then stops checking inside that field).
    func checkIntrospectionDepth(_ field: Field) throws(ValidationAborted) -> Bool {
        let name = field.name.value
        // The first byte settles most fields without a string comparison.
        guard name.utf8.first == UInt8(ascii: "_"), name == "__schema" || name == "__type" else { return false }
        var visiting = Set<String>()
        var cutCycle = false
        guard let selectionSet = field.selectionSet,
              introspectionTooDeep(selectionSet.selections, depth: 0, visiting: &visiting, cutCycle: &cutCycle) else {
            return false
        }
        try report("Maximum introspection depth exceeded", [field.loc.start])
        return true
    }

    private func introspectionTooDeep(
        _ selections: [Selection],
        depth: Int,
        visiting: inout Set<String>,
        cutCycle: inout Bool
    ) -> Bool {
        for selection in selections {
            switch selection {
            case .field(let field):
                var fieldDepth = depth
                switch field.name.value {
                case "fields", "interfaces", "possibleTypes", "inputFields":
                    fieldDepth += 1
                    if fieldDepth >= 3 { return true }
                default:
                    break
                }
                if let set = field.selectionSet,
                   introspectionTooDeep(set.selections, depth: fieldDepth, visiting: &visiting, cutCycle: &cutCycle) {
                    return true
                }
            case .inlineFragment(let inline):
                if introspectionTooDeep(inline.selectionSet.selections, depth: depth, visiting: &visiting, cutCycle: &cutCycle) {
                    return true
                }
            case .fragmentSpread(let spread):
                let name = spread.name.value
                if visiting.contains(name) {
                    cutCycle = true
                    continue
                }
                guard let (_, fragment) = fragment(named: name) else { continue }
                let key = IntrospectionDepthKey(fragment: name, depth: depth)
                if let known = introspectionDepthMemo[key] {
                    if known { return true }
                    continue
                }
                visiting.insert(name)
                var innerCut = false
                let result = introspectionTooDeep(fragment.selectionSet.selections, depth: depth, visiting: &visiting, cutCycle: &innerCut)
                visiting.remove(name)
                if innerCut {
                    cutCycle = true
                } else {
                    introspectionDepthMemo[key] = result
                }
                if result { return true }
            }
        }
        return false
    }
}

/// A fragment and the depth at which MaxIntrospectionDepth entered it.
struct IntrospectionDepthKey: Hashable {
    var fragment: String
    var depth: Int
}
