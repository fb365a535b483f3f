/// Prints a schema as SDL exactly as graphql-js 16's `printSchema` does: the
/// schema definition when root names are not the defaults (or there is a
/// description), the non-specified directives, then every type except the
/// specified scalars and the introspection types, in definition order.
public func printSchema(_ schema: GraphQLSchema) -> String {
    var parts: [String] = []
    if let definition = SchemaPrinter.schemaDefinition(schema) { parts.append(definition) }
    for directive in schema.directives where !directive.isSpecified || directive.name == "oneOf" && !SchemaPrinter.printsOneOfAsSpecified {
        parts.append(SchemaPrinter.directive(directive, schema))
    }
    for type in schema.types {
        if type.name.hasPrefix("__") { continue }
        if case .scalar(let scalar) = type, scalar.isSpecified { continue }
        parts.append(SchemaPrinter.type(type, schema))
    }
    return parts.joined(separator: "\n\n")
}

enum SchemaPrinter {
    /// graphql-js 16.6 does not know `@oneOf`; printing it as specified (omitted) matches
    /// graphql-js 16.9+, whose `printSchema` leaves it out like the other built-ins.
    static let printsOneOfAsSpecified = true

    static func schemaDefinition(_ schema: GraphQLSchema) -> String? {
        let commonNames = (schema.queryTypeName ?? "Query") == "Query"
            && (schema.mutationTypeName ?? "Mutation") == "Mutation"
            && (schema.subscriptionTypeName ?? "Subscription") == "Subscription"
        if schema.description == nil, commonNames { return nil }
        var lines: [String] = []
        if let name = schema.queryTypeName { lines.append("  query: " + name) }
        if let name = schema.mutationTypeName { lines.append("  mutation: " + name) }
        if let name = schema.subscriptionTypeName { lines.append("  subscription: " + name) }
        return description(schema.description) + "schema {\n" + lines.joined(separator: "\n") + "\n}"
    }

    static func directive(_ directive: GraphQLDirective, _ schema: GraphQLSchema) -> String {
        description(directive.description) + "directive @" + directive.name + arguments(directive.arguments, schema)
            + (directive.isRepeatable ? " repeatable" : "") + " on " + directive.locations.map(\.rawValue).joined(separator: " | ")
    }

    static func type(_ type: GraphQLNamedType, _ schema: GraphQLSchema) -> String {
        switch type {
        case .scalar(let scalar):
            var text = description(scalar.description) + "scalar " + scalar.name
            if let url = scalar.specifiedByURL { text += " @specifiedBy(url: " + printGraphQLString(url) + ")" }
            return text
        case .object(let object):
            return description(object.description) + "type " + object.name + implements(object.interfaces) + fields(object.fields, schema)
        case .interface(let interface):
            return description(interface.description) + "interface " + interface.name + implements(interface.interfaces) + fields(interface.fields, schema)
        case .union(let union):
            let members = union.members.isEmpty ? "" : " = " + union.members.joined(separator: " | ")
            return description(union.description) + "union " + union.name + members
        case .enum(let enumType):
            let values = enumType.values.enumerated().map { index, value in
                description(value.description, indentation: "  ", firstInBlock: index == 0) + "  " + value.name + deprecated(value.deprecationReason)
            }
            return description(enumType.description) + "enum " + enumType.name + block(values)
        case .inputObject(let input):
            let fields = input.fields.enumerated().map { index, field in
                description(field.description, indentation: "  ", firstInBlock: index == 0) + "  " + inputValue(field, schema)
            }
            return description(input.description) + "input " + input.name + (input.isOneOf && !printsOneOfAsSpecified ? " @oneOf" : "") + block(fields)
        }
    }

    static func implements(_ interfaces: [String]) -> String {
        interfaces.isEmpty ? "" : " implements " + interfaces.joined(separator: " & ")
    }

    static func fields(_ fields: [GraphQLFieldDefinition], _ schema: GraphQLSchema) -> String {
        block(fields.enumerated().map { index, field in
            description(field.description, indentation: "  ", firstInBlock: index == 0) + "  " + field.name
                + arguments(field.arguments, schema, indentation: "  ") + ": " + field.type.description + deprecated(field.deprecationReason)
        })
    }

    static func block(_ items: [String]) -> String {
        items.isEmpty ? "" : " {\n" + items.joined(separator: "\n") + "\n}"
    }

    static func arguments(_ arguments: [GraphQLInputValueDefinition], _ schema: GraphQLSchema, indentation: String = "") -> String {
        if arguments.isEmpty { return "" }
        if arguments.allSatisfy({ ($0.description ?? "").isEmpty }) {
            return "(" + arguments.map { inputValue($0, schema) }.joined(separator: ", ") + ")"
        }
        let lines = arguments.enumerated().map { index, argument in
            description(argument.description, indentation: "  " + indentation, firstInBlock: index == 0) + "  " + indentation + inputValue(argument, schema)
        }
        return "(\n" + lines.joined(separator: "\n") + "\n" + indentation + ")"
    }

    static func inputValue(_ value: GraphQLInputValueDefinition, _ schema: GraphQLSchema) -> String {
        var text = value.name + ": " + value.type.description
        if let defaultValue = value.defaultValue, let literal = schema.printInputValue(defaultValue, type: value.type) {
            text += " = " + literal
        }
        return text + deprecated(value.deprecationReason)
    }

    static func deprecated(_ reason: String?) -> String {
        guard let reason else { return "" }
        if reason == GraphQLDirective.defaultDeprecationReason { return " @deprecated" }
        return " @deprecated(reason: " + printGraphQLString(reason) + ")"
    }

    static func description(_ text: String?, indentation: String = "", firstInBlock: Bool = true) -> String {
        guard let text else { return "" }
        let literal = isPrintableAsBlockString(text) ? BlockString.print(text) : printGraphQLString(text)
        let prefix = !indentation.isEmpty && !firstInBlock ? "\n" + indentation : indentation
        var indented = ""
        for character in literal {
            indented.append(character)
            if character == "\n" { indented += indentation }
        }
        return prefix + indented + "\n"
    }

    /// graphql-js `isPrintableAsBlockString`.
    static func isPrintableAsBlockString(_ value: String) -> Bool {
        if value.isEmpty { return true }
        var isEmptyLine = true, hasIndent = false, hasCommonIndent = true, seenNonEmptyLine = false
        for unit in value.utf16 {
            switch unit {
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x0D:
                return false
            case 0x0A:
                if isEmptyLine, !seenNonEmptyLine { return false }
                seenNonEmptyLine = true
                isEmptyLine = true
                hasIndent = false
            case 0x09, 0x20:
                hasIndent = hasIndent || isEmptyLine
            default:
                hasCommonIndent = hasCommonIndent && hasIndent
                isEmptyLine = false
            }
        }
        if isEmptyLine { return false }
        if hasCommonIndent, seenNonEmptyLine { return false }
        return true
    }
}
