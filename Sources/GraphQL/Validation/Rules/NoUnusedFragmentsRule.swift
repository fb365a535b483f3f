/// Fragments Must Be Used (spec §5.5.1.4,
/// https://spec.graphql.org/October2021/#sec-Fragments-Must-Be-Used): every
/// fragment is used by some operation, directly or through other fragments.
/// graphql-js: `NoUnusedFragmentsRule`, reported when the document is left.
extension DocumentValidator {
    func checkNoUnusedFragments() throws(ValidationAborted) {
        var used = Set<String>()
        for referenced in referencedFragmentsByOperation {
            for index in referenced {
                if let name = fragmentAt[index]?.name.value { used.insert(name) }
            }
        }
        for case let fragment? in fragmentAt where !used.contains(fragment.name.value) {
            try report("Fragment \"\(fragment.name.value)\" is never used.", [fragment.loc.start])
        }
    }
}
