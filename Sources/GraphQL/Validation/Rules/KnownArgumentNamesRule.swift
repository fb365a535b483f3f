/// Argument Names (spec §5.4.1,
/// https://spec.graphql.org/October2021/#sec-Argument-Names): every argument is
/// defined by its field or directive. graphql-js: `KnownArgumentNamesRule`
/// (arguments of unknown fields and directives are left to other rules).
extension DocumentValidator {
    func checkKnownFieldArgument(
        _ argument: Argument,
        definition: GraphQLInputValueDefinition?,
        fieldDefinition: ValidationField?,
        parentType: ValidationType?
    ) throws(ValidationAborted) {
        guard definition == nil, let fieldDefinition, let parentType else { return }
        let name = argument.name.value
        let suggestions = GraphQLSuggestions.list(name, fieldDefinition.arguments.map(\.name))
        try report(
            "Unknown argument \"\(name)\" on field \"\(parentType.name).\(fieldDefinition.name)\".\(GraphQLSuggestions.didYouMean(suggestions))",
            [argument.loc.start]
        )
    }

    func checkKnownDirectiveArguments(_ directive: Directive) throws(ValidationAborted) {
        guard !directive.arguments.isEmpty else { return }
        let name = directive.name.value
        let known: [String]
        if let definition = documentDirectives[name] {
            known = definition.arguments.map(\.name.value)
        } else if let definition = schema.directive(named: name) {
            known = definition.arguments.map(\.name)
        } else {
            return
        }
        for argument in directive.arguments where !known.contains(argument.name.value) {
            let suggestions = GraphQLSuggestions.list(argument.name.value, known)
            try report(
                "Unknown argument \"\(argument.name.value)\" on directive \"@\(name)\".\(GraphQLSuggestions.didYouMean(suggestions))",
                [argument.loc.start]
            )
        }
    }
}
