/// Fragment Name Uniqueness (spec §5.5.1.1,
/// https://spec.graphql.org/October2021/#sec-Fragment-Name-Uniqueness): no two
/// fragments share a name. graphql-js: `UniqueFragmentNamesRule`.
extension DocumentValidator {
    func checkUniqueFragmentName(_ fragment: FragmentDefinition) throws(ValidationAborted) {
        let name = fragment.name.value
        if let first = knownFragmentNames[name] {
            try report("There can be only one fragment named \"\(name)\".", [first, fragment.name.loc.start])
        } else {
            knownFragmentNames[name] = fragment.name.loc.start
        }
    }
}
