/// Fragments Must Be Used (spec §5.5.1.4,
/// https://spec.graphql.org/October2021/#sec-Fragments-Must-Be-Used): every
/// fragment is used by some operation, directly or through other fragments.
/// graphql-js: `NoUnusedFragmentsRule`, reported when the document is left.
extension DocumentValidator {
    func checkNoUnusedFragments() throws(ValidationAborted) {
        // Referenced fragments are the definitions their names resolve to: one per name.
        var used = [Bool](repeating: false, count: fragmentAt.count)
        for referenced in referencedFragmentsByOperation {
            for index in referenced { used[index] = true }
        }
        for case let fragment? in fragmentAt {
            if let slot = fragmentIndexByName[fragment.name.value], used[slot] { continue }
            try report("Fragment \"\(fragment.name.value)\" is never used.", [fragment.loc.start])
        }
    }
}
