public import JSON

// Input coercion (spec §6.1.2 "Coercing Variable Values", §6.4.1 "Coercing Field
// Arguments", §3.10 "Input Coercion"), worded as graphql-js words its errors.

extension GraphQLScalarType {
    /// Coerces a literal (graphql-js `parseLiteral`). Built-ins accept only their literal
    /// kinds; a custom scalar gets the literal as JSON (variables substituted) in `parseValue`.
    public func parseLiteral(_ value: Value, variables: JSONObject? = nil) throws(ScalarCoercionError) -> JSONValue {
        guard let builtin else {
            if let number = ValueCoercion.firstUnrepresentableNumber(in: value) {
                throw ScalarCoercionError("\(name) cannot represent a number outside the range of a double: \(number)")
            }
            guard let json = ValueCoercion.untypedJSON(value, variables: variables) else {
                throw ScalarCoercionError("\(name) cannot represent an unset variable.")
            }
            return try parseInputValue(json)
        }
        switch builtin {
        case .int:
            guard case .int(let literal) = value else {
                throw ScalarCoercionError("Int cannot represent non-integer value: \(ValueCoercion.print(value))")
            }
            guard let number = Int32(literal.value) else {
                throw ScalarCoercionError("Int cannot represent non 32-bit signed integer value: \(literal.value)")
            }
            return .int(Int64(number))
        case .float:
            switch value {
            case .int(let literal):
                if let number = Int64(literal.value) { return .int(number) }
                // A literal with 309 or more digits reads as infinity, which JSON cannot carry.
                guard let number = Double(literal.value), number.isFinite else {
                    throw ScalarCoercionError("Float cannot represent non numeric value: \(literal.value)")
                }
                return .double(number)
            case .float(let literal):
                guard let number = Double(literal.value), number.isFinite else {
                    throw ScalarCoercionError("Float cannot represent non numeric value: \(literal.value)")
                }
                return .double(number)
            default:
                throw ScalarCoercionError("Float cannot represent non numeric value: \(ValueCoercion.print(value))")
            }
        case .string:
            guard case .string(let literal) = value else {
                throw ScalarCoercionError("String cannot represent a non string value: \(ValueCoercion.print(value))")
            }
            return .string(literal.value)
        case .boolean:
            guard case .boolean(let literal) = value else {
                throw ScalarCoercionError("Boolean cannot represent a non boolean value: \(ValueCoercion.print(value))")
            }
            return .bool(literal.value)
        case .id:
            switch value {
            case .string(let literal): return .string(literal.value)
            case .int(let literal): return .string(literal.value)
            default:
                throw ScalarCoercionError("ID cannot represent a non-string and non-integer value: \(ValueCoercion.print(value))")
            }
        }
    }
}

extension GraphQLEnumType {
    /// Coerces an enum literal (graphql-js `GraphQLEnumType.parseLiteral`).
    public func parseLiteral(_ value: Value) throws(ScalarCoercionError) -> JSONValue {
        guard case .enumValue(let literal) = value else {
            let text = ValueCoercion.print(value)
            throw ScalarCoercionError("Enum \"\(name)\" cannot represent non-enum value: \(text)." + didYouMean(text))
        }
        guard self.value(named: literal.value) != nil else {
            throw ScalarCoercionError("Value \"\(literal.value)\" does not exist in \"\(name)\" enum." + didYouMean(literal.value))
        }
        return .string(literal.value)
    }

    /// Coerces an input JSON value (graphql-js `GraphQLEnumType.parseValue`).
    public func parseInputValue(_ value: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        guard case .string(let text) = value else {
            let shown = inspectValue(value)
            throw ScalarCoercionError("Enum \"\(name)\" cannot represent non-string value: \(shown)." + didYouMean(shown))
        }
        guard self.value(named: text) != nil else {
            throw ScalarCoercionError("Value \"\(text)\" does not exist in \"\(name)\" enum." + didYouMean(text))
        }
        return value
    }

    /// Serialises a resolver's value: the name of one of the enum's values.
    public func serializeValue(_ value: any Sendable) throws(ScalarCoercionError) -> JSONValue {
        let text: String?
        switch value {
        case let string as String: text = string
        case let json as JSONValue:
            if case .string(let string) = json { text = string } else { text = nil }
        case let raw as any RawRepresentable:
            text = raw.rawValue as? String
        default: text = nil
        }
        guard let text, self.value(named: text) != nil else {
            throw ScalarCoercionError("Enum \"\(name)\" cannot represent value: \(inspectResolved(value, jsonValue(fromResolved: value)))")
        }
        return .string(text)
    }

    /// ``serializeValue(_:)`` for a JSON value.
    @inline(__always)
    func serializeJSON(_ json: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        if case .string(let text) = json, hasValue(text) { return json }
        return try serializeValue(json)
    }

    /// Whether `name` is one of the values (a linear scan beats hashing for small enums).
    @inline(__always)
    func hasValue(_ name: String) -> Bool {
        if values.count <= 12 {
            for value in values where value.name == name { return true }
            return false
        }
        return valueIndex[name] != nil
    }

    private func didYouMean(_ unknown: String) -> String {
        InputSuggestions.didYouMean(InputSuggestions.list(unknown, options: values.map(\.name)))
    }
}

/// Input coercion helpers shared by execution, the SDL builder and validation.
public enum ValueCoercion {
    /// The text of the first number literal in `value` (searched through lists and
    /// objects) that a `Double` cannot hold (`1e400`, 400 digits), or `nil`.
    ///
    /// Such a literal would read as infinity, which has no JSON form: scalars refuse it.
    static func firstUnrepresentableNumber(in value: Value) -> String? {
        switch value {
        case .int(let literal):
            if Int64(literal.value) != nil { return nil }
            return Double(literal.value).map(\.isFinite) == true ? nil : literal.value
        case .float(let literal):
            return Double(literal.value).map(\.isFinite) == true ? nil : literal.value
        case .list(let list):
            for item in list.values { if let found = firstUnrepresentableNumber(in: item) { return found } }
            return nil
        case .object(let object):
            for field in object.fields { if let found = firstUnrepresentableNumber(in: field.value) { return found } }
            return nil
        case .variable, .null, .boolean, .string, .enumValue:
            return nil
        }
    }

    /// A literal as JSON without a type (graphql-js `valueFromASTUntyped`); `nil` for an unset variable.
    public static func untypedJSON(_ value: Value, variables: JSONObject?) -> JSONValue? {
        switch value {
        case .variable(let variable): return variables?[variable.name.value]
        case .null: return .null
        case .boolean(let literal): return .bool(literal.value)
        case .string(let literal): return .string(literal.value)
        case .enumValue(let literal): return .string(literal.value)
        case .int(let literal):
            if let number = Int64(literal.value) { return .int(number) }
            return .double(Double(literal.value) ?? 0)
        case .float(let literal): return .double(Double(literal.value) ?? 0)
        case .list(let list):
            return .array(list.values.map { untypedJSON($0, variables: variables) ?? .null })
        case .object(let object):
            var result = JSONObject(capacity: object.fields.count)
            for field in object.fields {
                if let fieldValue = untypedJSON(field.value, variables: variables) { result[field.name.value] = fieldValue }
            }
            return .object(result)
        }
    }

    /// Coerces a literal to `type` (graphql-js `valueFromAST`); `nil` when invalid.
    public static func coerceLiteral(
        _ value: Value,
        to type: GraphQLTypeReference,
        in schema: GraphQLSchema,
        variables: JSONObject?
    ) -> JSONValue? {
        if case .variable(let variable) = value {
            guard let variableValue = variables?[variable.name.value] else { return nil }
            if variableValue == .null, type.isNonNull { return nil }
            return variableValue
        }
        switch type {
        case .nonNull(let inner):
            if case .null = value { return nil }
            return coerceLiteral(value, to: inner, in: schema, variables: variables)
        case .list(let itemType):
            if case .null = value { return .null }
            if case .list(let list) = value {
                var items: [JSONValue] = []
                items.reserveCapacity(list.values.count)
                for item in list.values {
                    if isMissingVariable(item, variables) {
                        if itemType.isNonNull { return nil }
                        items.append(.null)
                    } else {
                        guard let coerced = coerceLiteral(item, to: itemType, in: schema, variables: variables) else { return nil }
                        items.append(coerced)
                    }
                }
                return .array(items)
            }
            guard let single = coerceLiteral(value, to: itemType, in: schema, variables: variables) else { return nil }
            return .array([single])
        case .named(let name):
            if case .null = value { return .null }
            switch schema.type(named: name) {
            case .inputObject(let input)?:
                guard case .object(let object) = value else { return nil }
                var result = JSONObject(capacity: input.fields.count)
                for field in input.fields {
                    let node = object.fields.first { $0.name.value == field.name }
                    guard let node, !isMissingVariable(node.value, variables) else {
                        if let defaultValue = field.defaultValue {
                            result.append(field.name, defaultValue)
                        } else if field.type.isNonNull {
                            return nil
                        }
                        continue
                    }
                    guard let coerced = coerceLiteral(node.value, to: field.type, in: schema, variables: variables) else { return nil }
                    result.append(field.name, coerced)
                }
                if input.isOneOf {
                    guard result.count == 1, result.values.first != .null else { return nil }
                }
                return .object(result)
            case .scalar(let scalar)?:
                return try? scalar.parseLiteral(value, variables: variables)
            case .enum(let enumType)?:
                return try? enumType.parseLiteral(value)
            default:
                return nil
            }
        }
    }

    static func isMissingVariable(_ value: Value, _ variables: JSONObject?) -> Bool {
        guard case .variable(let variable) = value else { return false }
        return variables?[variable.name.value] == nil
    }

    /// One problem found while coercing an input value.
    struct InputProblem {
        var path: [PathElement]
        var value: JSONValue
        var message: String
    }

    /// Coerces an external input value (a variable's JSON) to `type` (graphql-js
    /// `coerceInputValue`), reporting every problem with its path inside the value.
    static func coerceInput(
        _ value: JSONValue?,
        to type: GraphQLTypeReference,
        in schema: GraphQLSchema,
        path: [PathElement],
        problems: inout [InputProblem]
    ) -> JSONValue {
        switch type {
        case .nonNull(let inner):
            if let value, value != .null {
                return coerceInput(value, to: inner, in: schema, path: path, problems: &problems)
            }
            problems.append(InputProblem(path: path, value: value ?? .null, message: "Expected non-nullable type \"\(type)\" not to be null."))
            return .null
        case .list(let itemType):
            guard let value, value != .null else { return .null }
            if case .array(let items) = value {
                var coerced: [JSONValue] = []
                coerced.reserveCapacity(items.count)
                for (index, item) in items.enumerated() {
                    coerced.append(coerceInput(item, to: itemType, in: schema, path: path + [.index(index)], problems: &problems))
                }
                return .array(coerced)
            }
            return .array([coerceInput(value, to: itemType, in: schema, path: path, problems: &problems)])
        case .named(let name):
            guard let value, value != .null else { return .null }
            switch schema.type(named: name) {
            case .inputObject(let input)?:
                guard case .object(let object) = value else {
                    problems.append(InputProblem(path: path, value: value, message: "Expected type \"\(name)\" to be an object."))
                    return .null
                }
                var result = JSONObject(capacity: input.fields.count)
                for field in input.fields {
                    guard let fieldValue = object[field.name] else {
                        if let defaultValue = field.defaultValue {
                            result.append(field.name, defaultValue)
                        } else if field.type.isNonNull {
                            problems.append(InputProblem(path: path, value: value, message: "Field \"\(field.name)\" of required type \"\(field.type)\" was not provided."))
                        }
                        continue
                    }
                    result.append(field.name, coerceInput(fieldValue, to: field.type, in: schema, path: path + [.key(field.name)], problems: &problems))
                }
                for key in object.keys where input.field(named: key) == nil {
                    let hint = InputSuggestions.didYouMean(InputSuggestions.list(key, options: input.fields.map(\.name)))
                    problems.append(InputProblem(path: path, value: value, message: "Field \"\(key)\" is not defined by type \"\(name)\".\(hint)"))
                }
                if input.isOneOf {
                    if result.count != 1 {
                        problems.append(InputProblem(path: path, value: value, message: "Exactly one key must be specified for OneOf type \"\(name)\"."))
                    } else if let key = result.keys.first, result.values.first == .null {
                        problems.append(InputProblem(path: path + [.key(key)], value: .null, message: "Field \"\(key)\" must be non-null."))
                    }
                }
                return .object(result)
            case .scalar(let scalar)?:
                do {
                    return try scalar.parseInputValue(value)
                } catch {
                    let message = scalar.isSpecified ? error.message : "Expected type \"\(name)\". \(error.message)"
                    problems.append(InputProblem(path: path, value: value, message: message))
                    return .null
                }
            case .enum(let enumType)?:
                do {
                    return try enumType.parseInputValue(value)
                } catch {
                    problems.append(InputProblem(path: path, value: value, message: error.message))
                    return .null
                }
            default:
                problems.append(InputProblem(path: path, value: value, message: "Expected type \"\(name)\"."))
                return .null
            }
        }
    }

    /// A value literal in graphql-js `print` form (`{a: [1, 2]}`).
    public static func print(_ value: Value) -> String {
        switch value {
        case .variable(let variable): return "$" + variable.name.value
        case .int(let literal): return literal.value
        case .float(let literal): return literal.value
        case .string(let literal): return printGraphQLString(literal.value)
        case .boolean(let literal): return literal.value ? "true" : "false"
        case .null: return "null"
        case .enumValue(let literal): return literal.value
        case .list(let list): return "[" + list.values.map(print).joined(separator: ", ") + "]"
        case .object(let object):
            return "{" + object.fields.map { $0.name.value + ": " + print($0.value) }.joined(separator: ", ") + "}"
        }
    }

    /// The schema type a syntax type reference names (graphql-js `typeFromAST` without the look-up).
    public static func typeReference(_ node: TypeReference) -> GraphQLTypeReference {
        switch node {
        case .named(let named): return .named(named.name.value)
        case .list(let list): return .list(typeReference(list.type))
        case .nonNull(let nonNull): return .nonNull(typeReference(nonNull.type))
        }
    }
}
