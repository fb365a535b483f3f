/// Variables Are Input Types (spec §5.8.2,
/// https://spec.graphql.org/October2021/#sec-Variables-Are-Input-Types): a
/// variable's type is a scalar, enum or input object (possibly wrapped).
/// graphql-js: `VariablesAreInputTypesRule`.
extension DocumentValidator {
    func checkVariableIsInputType(_ definition: VariableDefinition, type: GraphQLTypeReference?) throws(ValidationAborted) {
        guard let type, !(catalog.namedType(of: type)?.isInput ?? false) else { return }
        try report(
            "Variable \"$\(definition.variable.name.value)\" cannot be non-input type \"\(Printer.print(definition.type))\".",
            [definition.type.loc.start]
        )
    }
}
