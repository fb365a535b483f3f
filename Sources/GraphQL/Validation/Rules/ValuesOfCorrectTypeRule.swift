import JSON

/// Values of Correct Type (spec §5.6.1,
/// https://spec.graphql.org/October2021/#sec-Values-of-Correct-Type), Input
/// Object Field Names (§5.6.2) and Input Object Required Fields (§5.6.4).
/// graphql-js: `ValuesOfCorrectTypeRule`, with the built-in scalars' and enums'
/// own messages (their `parseLiteral` errors).
///
/// OneOf Input Objects (spec September 2025): an object literal of a `@oneOf`
/// type gives exactly one field, and not `null` (graphql-js 16.9's messages).
/// Variables in OneOf fields are checked by VariablesInAllowedPosition.
extension DocumentValidator {
    /// A scalar or enum literal at a position expecting `locationType`.
    func checkLeafValue(_ value: Value, locationType: GraphQLTypeReference?) throws(ValidationAborted) {
        guard let locationType else { return }
        guard let found = catalog.namedType(of: locationType), found.isLeaf else {
            try report("Expected value of type \"\(locationType)\", found \(Printer.print(value)).", [value.loc.start])
            return
        }
        if let message = literalError(value, type: found.named, locationType: locationType) {
            try report(message, [value.loc.start])
        }
    }

    func checkNullValue(_ null: NullValue, type: GraphQLTypeReference?) throws(ValidationAborted) {
        guard let type, type.isNonNull else { return }
        try report("Expected value of type \"\(type)\", found null.", [null.loc.start])
    }

    /// A list literal; returns whether its items are still checked.
    func checkListValue(_ value: Value, positionType: GraphQLTypeReference?, itemType: GraphQLTypeReference?) throws(ValidationAborted) -> Bool {
        if positionType?.isList ?? false { return true }
        try checkLeafValue(value, locationType: itemType)
        return false
    }

    /// An object literal; returns whether its fields are still checked.
    func checkObjectValue(
        _ object: ObjectValue,
        value: Value,
        locationType: GraphQLTypeReference?,
        inputObject: GraphQLInputObjectType?
    ) throws(ValidationAborted) -> Bool {
        guard let inputObject else {
            try checkLeafValue(value, locationType: locationType)
            return false
        }
        for field in inputObject.fields where field.isRequired {
            guard !object.fields.contains(where: { $0.name.value == field.name }) else { continue }
            try report(
                "Field \"\(inputObject.name).\(field.name)\" of required type \"\(field.type)\" was not provided.",
                [object.loc.start]
            )
        }
        if inputObject.isOneOf {
            try checkOneOfLiteral(object, type: inputObject)
        }
        return true
    }

    func checkObjectFieldDefined(
        _ field: ObjectField,
        definition: GraphQLInputValueDefinition?,
        inputObject: GraphQLInputObjectType?
    ) throws(ValidationAborted) {
        guard definition == nil, let inputObject else { return }
        let suggestions = GraphQLSuggestions.list(field.name.value, inputObject.fields.map(\.name))
        try report(
            "Field \"\(field.name.value)\" is not defined by type \"\(inputObject.name)\".\(GraphQLSuggestions.didYouMean(suggestions))",
            [field.loc.start]
        )
    }

    private func checkOneOfLiteral(_ object: ObjectValue, type: GraphQLInputObjectType) throws(ValidationAborted) {
        // Distinct names; for a repeated name the last value counts (a JS Map).
        var names: [String] = []
        var values: [String: Value] = [:]
        for field in object.fields {
            if values[field.name.value] == nil { names.append(field.name.value) }
            values[field.name.value] = field.value
        }
        if names.count != 1 {
            try report("OneOf Input Object \"\(type.name)\" must specify exactly one key.", [object.loc.start])
            return
        }
        if case .null? = values[names[0]] {
            try report("Field \"\(type.name).\(names[0])\" must be non-null.", [object.loc.start])
        }
    }

    /// The error a scalar's or enum's literal parsing gives, worded as graphql-js's built-ins.
    private func literalError(_ value: Value, type: GraphQLNamedType, locationType: GraphQLTypeReference) -> String? {
        switch type {
        case .enum(let enumType):
            let text = Printer.print(value)
            guard case .enumValue(let enumValue) = value else {
                return "Enum \"\(enumType.name)\" cannot represent non-enum value: \(text)." + enumSuggestion(enumType, text)
            }
            if enumType.value(named: enumValue.value) == nil {
                return "Value \"\(text)\" does not exist in \"\(enumType.name)\" enum." + enumSuggestion(enumType, text)
            }
            return nil
        case .scalar(let scalar):
            return scalarLiteralError(value, scalar: scalar, locationType: locationType)
        default:
            return nil
        }
    }

    private func enumSuggestion(_ type: GraphQLEnumType, _ text: String) -> String {
        GraphQLSuggestions.didYouMean("the enum value", GraphQLSuggestions.list(text, type.values.map(\.name)))
    }

    private func scalarLiteralError(_ value: Value, scalar: GraphQLScalarType, locationType: GraphQLTypeReference) -> String? {
        guard scalar.isSpecified else {
            if let number = ValueCoercion.firstUnrepresentableNumber(in: value) {
                return "Expected value of type \"\(locationType)\", found \(Printer.print(value)); "
                    + "\(scalar.name) cannot represent a number outside the range of a double: \(number)"
            }
            // A custom scalar parses the literal (as JSON) with its own hook.
            do {
                _ = try scalar.parseInputValue(Self.untypedJSON(value))
                return nil
            } catch {
                return "Expected value of type \"\(locationType)\", found \(Printer.print(value)); \(error.message)"
            }
        }
        switch scalar.name {
        case "Int":
            guard case .int(let int) = value else { return "Int cannot represent non-integer value: \(Printer.print(value))" }
            if Int32(int.value) == nil { return "Int cannot represent non 32-bit signed integer value: \(int.value)" }
            return nil
        case "Float":
            switch value {
            case .int, .float:
                // Unlike graphql-js (which reads 1e400 as Infinity), a literal beyond a double's range is refused.
                if let number = ValueCoercion.firstUnrepresentableNumber(in: value) {
                    return "Float cannot represent non numeric value: \(number)"
                }
                return nil
            default: return "Float cannot represent non numeric value: \(Printer.print(value))"
            }
        case "String":
            if case .string = value { return nil }
            return "String cannot represent a non string value: \(Printer.print(value))"
        case "Boolean":
            if case .boolean = value { return nil }
            return "Boolean cannot represent a non boolean value: \(Printer.print(value))"
        case "ID":
            switch value {
            case .string, .int: return nil
            default: return "ID cannot represent a non-string and non-integer value: \(Printer.print(value))"
            }
        default:
            return nil
        }
    }

    /// graphql-js `valueFromASTUntyped` without variables (a variable reads as null).
    static func untypedJSON(_ value: Value) -> JSONValue {
        switch value {
        case .variable, .null: return .null
        case .int(let int): return Int64(int.value).map(JSONValue.int) ?? .double(Double(int.value) ?? 0)
        case .float(let float): return .double(Double(float.value) ?? 0)
        case .string(let string): return .string(string.value)
        case .boolean(let boolean): return .bool(boolean.value)
        case .enumValue(let enumValue): return .string(enumValue.value)
        case .list(let list): return .array(list.values.map(untypedJSON))
        case .object(let object):
            var result = JSONObject(capacity: object.fields.count)
            for field in object.fields { result[field.name.value] = untypedJSON(field.value) }
            return .object(result)
        }
    }
}
