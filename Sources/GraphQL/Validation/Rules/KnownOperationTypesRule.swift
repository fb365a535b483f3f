/// Operation Type Existence (spec September 2025 §5.2.1.1,
/// https://spec.graphql.org/September2025/#sec-Operation-Type-Existence): the
/// schema must have a root type for the operation's type.
///
/// graphql-js 16 has no such rule: it accepts `mutation { ... }` on a schema
/// without a mutation type at validation and fails at execution ("Schema is
/// not configured to execute mutation operation."). PayQL follows the spec and
/// reports it here, with graphql-js 17's `KnownOperationTypesRule` message,
/// right after LoneAnonymousOperation (see docs/graphql-validation.md).
extension DocumentValidator {
    func checkKnownOperationType(_ operation: OperationDefinition, rootType: ValidationType?) throws(ValidationAborted) {
        if rootType == nil {
            try report("The \(operation.operation.rawValue) operation is not supported by the schema.", [operation.loc.start])
        }
    }
}
