/// All Variable Usages Are Allowed (spec §5.8.5,
/// https://spec.graphql.org/October2021/#sec-All-Variable-Usages-are-Allowed):
/// a variable's type fits every position it is used in (a nullable variable
/// may fill a non-null position only if it or the position has a default).
/// graphql-js: `VariablesInAllowedPositionRule`, reported when the operation is left.
///
/// Also, per the September 2025 spec (OneOf Input Objects), a variable given as
/// the field of a OneOf input object must be non-null; this check and its
/// message are graphql-js 17's (16.9 checked it in ValuesOfCorrectType, within
/// one operation only, without following fragments).
extension DocumentValidator {
    func checkVariablesInAllowedPosition(_ operation: OperationDefinition, usages: ValidationOperationUsages) throws(ValidationAborted) {
        guard !usages.isEmpty, !operation.variableDefinitions.isEmpty else { return }
        // The last definition of a name wins, as in graphql-js.
        var definitions: [String: VariableDefinition] = [:]
        for definition in operation.variableDefinitions { definitions[definition.variable.name.value] = definition }
        var variableTypes: [String: GraphQLTypeReference?] = [:]
        for usage in usages {
            guard let definition = definitions[usage.name], let locationType = usage.type else { continue }
            let variableType: GraphQLTypeReference?
            if let known = variableTypes[usage.name] {
                variableType = known
            } else {
                variableType = typeFromAST(definition.type)
                variableTypes[usage.name] = variableType
            }
            guard let variableType else { continue }
            if !allowedVariableUsage(variableType, definition.defaultValue, locationType, usage.hasLocationDefault) {
                try report(
                    "Variable \"$\(usage.name)\" of type \"\(variableType)\" used in position expecting type \"\(locationType)\".",
                    [definition.loc.start, usage.offset]
                )
            }
            if let oneOf = usage.oneOfType, !variableType.isNonNull {
                try report(
                    "Variable \"$\(usage.name)\" is of type \"\(variableType)\" but must be non-nullable to be used for OneOf Input Object \"\(oneOf)\".",
                    [definition.loc.start, usage.offset]
                )
            }
        }
    }

    private func allowedVariableUsage(
        _ variableType: GraphQLTypeReference,
        _ variableDefault: Value?,
        _ locationType: GraphQLTypeReference,
        _ locationHasDefault: Bool
    ) -> Bool {
        if case .nonNull(let nullableLocation) = locationType, !variableType.isNonNull {
            let hasNonNullVariableDefault: Bool = switch variableDefault {
            case nil, .null?: false
            default: true
            }
            if !hasNonNullVariableDefault && !locationHasDefault { return false }
            return schema.isTypeSubType(variableType, of: nullableLocation)
        }
        return schema.isTypeSubType(variableType, of: locationType)
    }
}
