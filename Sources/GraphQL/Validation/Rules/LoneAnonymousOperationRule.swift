/// Lone Anonymous Operation (spec §5.2.2.1,
/// https://spec.graphql.org/October2021/#sec-Lone-Anonymous-Operation): an
/// anonymous operation must be the document's only operation.
/// graphql-js: `LoneAnonymousOperationRule`.
extension DocumentValidator {
    func checkLoneAnonymousOperation(_ operation: OperationDefinition) throws(ValidationAborted) {
        if operation.name == nil, operationCount > 1 {
            try report("This anonymous operation must be the only defined operation.", [operation.loc.start])
        }
    }
}
