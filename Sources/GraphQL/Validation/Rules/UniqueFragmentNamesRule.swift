/// Fragment Name Uniqueness (spec §5.5.1.1,
/// https://spec.graphql.org/October2021/#sec-Fragment-Name-Uniqueness): no two
/// fragments share a name. graphql-js: `UniqueFragmentNamesRule`.
extension DocumentValidator {
    func checkUniqueFragmentName(_ fragment: FragmentDefinition) throws(ValidationAborted) {
        let name = fragment.name.value
        // Every fragment's name resolves to the last fragment of that name: a slot per name.
        guard let slot = fragmentIndexByName[name] else { return }
        if let first = knownFragmentNameOffsets[slot] {
            try report("There can be only one fragment named \"\(name)\".", [first, fragment.name.loc.start])
        } else {
            knownFragmentNameOffsets[slot] = fragment.name.loc.start
        }
    }
}
