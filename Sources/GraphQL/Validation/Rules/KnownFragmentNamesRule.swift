/// Fragment Spread Target Defined (spec §5.5.2.1,
/// https://spec.graphql.org/October2021/#sec-Fragment-spread-target-defined):
/// every spread names a fragment of the document. graphql-js: `KnownFragmentNamesRule`.
extension DocumentValidator {
    func checkKnownFragmentName(_ spread: FragmentSpread) throws(ValidationAborted) {
        if fragmentIndexByName[spread.name.value] == nil {
            try report("Unknown fragment \"\(spread.name.value)\".", [spread.name.loc.start])
        }
    }
}
