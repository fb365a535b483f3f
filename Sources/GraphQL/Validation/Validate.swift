// Validation of executable documents (spec §5 "Validation").

/// Validates an executable document against `schema` with every rule of the
/// specification's Validation section, and returns the errors found (none for
/// a valid document).
///
/// The rules are graphql-js 16's `specifiedRules`, plus Operation Type
/// Existence and the OneOf checks of the September 2025 specification, plus
/// graphql-js's recommended `MaxIntrospectionDepthRule` (see
/// `docs/graphql-validation.md`). Messages and locations are worded as
/// graphql-js words them, and errors come out in graphql-js's order: document
/// order, and at one node the order of `specifiedRules`.
///
/// The document is walked once for all rules. After `maxErrors` errors the
/// walk stops and a last error says so ("Too many validation errors, error
/// limit reached. Validation aborted."), which bounds the work a hostile
/// document can cause.
///
/// - Parameters:
///   - schema: the schema the document's operations would run against.
///   - document: a parsed document (normally executable definitions only).
///   - maxErrors: how many errors to report at most before giving up.
/// - Returns: the errors, each with its message and locations.
public func validate(schema: GraphQLSchema, document: Document, maxErrors: Int = 100) -> [GraphQLError] {
    let validator = DocumentValidator(schema: schema, document: document, maxErrors: max(0, maxErrors))
    return validator.run()
}

/// The names of the rules `validate` applies, in the order their errors are
/// reported when several rules fire at one node.
public let specifiedValidationRuleNames: [String] = [
    "ExecutableDefinitionsRule",
    "UniqueOperationNamesRule",
    "LoneAnonymousOperationRule",
    "KnownOperationTypesRule",
    "SingleFieldSubscriptionsRule",
    "KnownTypeNamesRule",
    "FragmentsOnCompositeTypesRule",
    "VariablesAreInputTypesRule",
    "ScalarLeafsRule",
    "FieldsOnCorrectTypeRule",
    "UniqueFragmentNamesRule",
    "KnownFragmentNamesRule",
    "NoUnusedFragmentsRule",
    "PossibleFragmentSpreadsRule",
    "NoFragmentCyclesRule",
    "UniqueVariableNamesRule",
    "NoUndefinedVariablesRule",
    "NoUnusedVariablesRule",
    "KnownDirectivesRule",
    "UniqueDirectivesPerLocationRule",
    "KnownArgumentNamesRule",
    "UniqueArgumentNamesRule",
    "ValuesOfCorrectTypeRule",
    "ProvidedRequiredArgumentsRule",
    "VariablesInAllowedPositionRule",
    "OverlappingFieldsCanBeMergedRule",
    "UniqueInputFieldNamesRule",
    "MaxIntrospectionDepthRule",
]
