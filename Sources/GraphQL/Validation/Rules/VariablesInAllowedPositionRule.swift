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
        let definitions = operation.variableDefinitions
        // Each definition's type, computed once; the last definition of a name wins, as in graphql-js.
        var types: [GraphQLTypeReference??] = Array(repeating: nil, count: definitions.count)
        // Many definitions: index them (a linear search per usage would be quadratic).
        var positionByName: [String: Int]?
        if definitions.count > 16 {
            var index: [String: Int] = [:]
            for (position, definition) in definitions.enumerated() { index[definition.variable.name.value] = position }
            positionByName = index
        }
        for usage in usages {
            let found: Int? = if let positionByName {
                positionByName[usage.name]
            } else {
                definitions.lastIndex(where: { sameName($0.variable.name.value, usage.name) })
            }
            guard let locationType = usage.type, let position = found else { continue }
            let definition = definitions[position]
            if types[position] == nil { types[position] = .some(typeFromAST(definition.type)) }
            guard let known = types[position], let variableType = known else { continue }
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
