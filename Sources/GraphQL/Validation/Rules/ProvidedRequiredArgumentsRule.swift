/// Required Arguments (spec §5.4.2.1,
/// https://spec.graphql.org/October2021/#sec-Required-Arguments): non-null
/// arguments without a default are given. graphql-js:
/// `ProvidedRequiredArgumentsRule`, reported when the field or directive is left.
extension DocumentValidator {
    func checkProvidedFieldArguments(_ field: Field, definition: ValidationField?) throws(ValidationAborted) {
        guard let definition, definition.hasRequiredArguments else { return }
        for argument in definition.arguments where argument.isRequired {
            guard !field.arguments.contains(where: { $0.name.value == argument.name }) else { continue }
            try report(
                "Field \"\(definition.name)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.",
                [field.loc.start]
            )
        }
    }

    func checkProvidedDirectiveArguments(_ directive: Directive) throws(ValidationAborted) {
        let name = directive.name.value
        var required: [(name: String, type: String)] = []
        if let definition = documentDirectives[name] {
            for argument in definition.arguments {
                if case .nonNull = argument.type, argument.defaultValue == nil {
                    required.append((argument.name.value, Printer.print(argument.type)))
                }
            }
        } else if let definition = schema.directive(named: name) {
            for argument in definition.arguments where argument.isRequired {
                required.append((argument.name, argument.type.description))
            }
        }
        for argument in required where !directive.arguments.contains(where: { $0.name.value == argument.name }) {
            try report(
                "Directive \"@\(name)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.",
                [directive.loc.start]
            )
        }
    }
}
