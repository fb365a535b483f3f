/// Operation Name Uniqueness (spec §5.2.1.1,
/// https://spec.graphql.org/October2021/#sec-Operation-Name-Uniqueness): no two
/// operations share a name. graphql-js: `UniqueOperationNamesRule`.
extension DocumentValidator {
    func checkUniqueOperationName(_ operation: OperationDefinition) throws(ValidationAborted) {
        guard let name = operation.name else { return }
        if let first = knownOperationNames[name.value] {
            try report("There can be only one operation named \"\(name.value)\".", [first, name.loc.start])
        } else {
            knownOperationNames[name.value] = name.loc.start
        }
    }
}
