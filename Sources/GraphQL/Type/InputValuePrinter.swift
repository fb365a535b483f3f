public import JSON

extension GraphQLSchema {
    /// The GraphQL literal of an internal input value of type `type`, as graphql-js
    /// prints `astFromValue(value, type)`; `nil` when the value has no literal
    /// (introspection then reports `defaultValue: null`).
    public func printInputValue(_ value: JSONValue, type: GraphQLTypeReference) -> String? {
        switch type {
        case .nonNull(let inner):
            if value == .null { return nil }
            return printInputValue(value, type: inner)
        case .list(let item):
            if value == .null { return "null" }
            if case .array(let items) = value {
                return "[" + items.compactMap { printInputValue($0, type: item) }.joined(separator: ", ") + "]"
            }
            return printInputValue(value, type: item)
        case .named(let name):
            if value == .null { return "null" }
            switch typeMap[name] {
            case .inputObject(let input)?:
                guard case .object(let object) = value else { return nil }
                var parts: [String] = []
                for field in input.fields {
                    guard let fieldValue = object[field.name],
                          let printed = printInputValue(fieldValue, type: field.type) else { continue }
                    parts.append(field.name + ": " + printed)
                }
                return "{" + parts.joined(separator: ", ") + "}"
            case .enum?:
                guard case .string(let text) = value else { return nil }
                return text
            case .scalar(let scalar)?:
                guard let serialized = try? scalar.serializeValue(value) else { return nil }
                return printSerializedLiteral(serialized, isID: scalar.builtin == .id)
            default:
                return nil
            }
        }
    }
}

/// A serialised leaf value as a literal (graphql-js `astFromValue` + `print`).
func printSerializedLiteral(_ value: JSONValue, isID: Bool) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .int(let number): return String(number)
    case .double(let number): return formatNumberLikeJS(number)
    case .string(let text):
        if isID, isIntegerLiteralText(text) { return text }
        return printGraphQLString(text)
    case .array(let items):
        return "[" + items.map { printSerializedLiteral($0, isID: false) }.joined(separator: ", ") + "]"
    case .object(let object):
        return "{" + object.members.map { $0.0 + ": " + printSerializedLiteral($0.1, isID: false) }.joined(separator: ", ") + "}"
    }
}

/// `^-?(?:0|[1-9][0-9]*)$`
func isIntegerLiteralText(_ text: String) -> Bool {
    var bytes = Substring(text).utf8[...]
    if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
    guard let first = bytes.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return false }
    if first == UInt8(ascii: "0") { return bytes.count == 1 }
    return bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}

/// A string literal as graphql-js `printString` writes it.
func printGraphQLString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x08: out += "\\b"
        case 0x09: out += "\\t"
        case 0x0A: out += "\\n"
        case 0x0C: out += "\\f"
        case 0x0D: out += "\\r"
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x00...0x1F, 0x7F...0x9F: out += "\\u" + hexDigits4(scalar.value).uppercased()
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
