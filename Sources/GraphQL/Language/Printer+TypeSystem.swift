// Printing type-system definitions and extensions (SDL), as graphql-js prints them.

extension PrintWriter {
    /// The description on its own line before a definition (graphql-js: `wrap('', description, '\n')`).
    mutating func description(_ node: StringValue?) {
        guard let node else { return }
        value(.string(node))
        newline()
    }

    mutating func directivesAfterSpace(_ nodes: [Directive]) {
        guard !nodes.isEmpty else { return }
        raw(" ")
        directives(nodes)
    }

    mutating func implements(_ interfaces: [NamedType]) {
        guard !interfaces.isEmpty else { return }
        raw(" implements ")
        list(interfaces, separator: " & ") { $0.raw($1.name.value) }
    }

    mutating func blockAfterSpace<T>(_ items: [T], _ print: (inout PrintWriter, T) -> Void) {
        guard !items.isEmpty else { return }
        raw(" ")
        block(items, print)
    }

    mutating func schemaDefinition(_ node: SchemaDefinition) {
        description(node.description)
        raw("schema")
        directivesAfterSpace(node.directives)
        blockAfterSpace(node.operationTypes) { $0.operationTypeDefinition($1) }
    }

    mutating func schemaExtension(_ node: SchemaExtension) {
        raw("extend schema")
        directivesAfterSpace(node.directives)
        blockAfterSpace(node.operationTypes) { $0.operationTypeDefinition($1) }
    }

    mutating func operationTypeDefinition(_ node: OperationTypeDefinition) {
        raw(node.operation.rawValue)
        raw(": ")
        raw(node.type.name.value)
    }

    mutating func typeDefinition(_ node: TypeDefinition) {
        switch node {
        case .scalar(let scalar):
            description(scalar.description)
            raw("scalar ")
            raw(scalar.name.value)
            directivesAfterSpace(scalar.directives)
        case .object(let object):
            description(object.description)
            raw("type ")
            raw(object.name.value)
            implements(object.interfaces)
            directivesAfterSpace(object.directives)
            blockAfterSpace(object.fields) { $0.fieldDefinition($1) }
        case .interface(let interface):
            description(interface.description)
            raw("interface ")
            raw(interface.name.value)
            implements(interface.interfaces)
            directivesAfterSpace(interface.directives)
            blockAfterSpace(interface.fields) { $0.fieldDefinition($1) }
        case .union(let union):
            description(union.description)
            raw("union ")
            raw(union.name.value)
            directivesAfterSpace(union.directives)
            unionMembers(union.types)
        case .enumType(let enumType):
            description(enumType.description)
            raw("enum ")
            raw(enumType.name.value)
            directivesAfterSpace(enumType.directives)
            blockAfterSpace(enumType.values) { $0.enumValueDefinition($1) }
        case .inputObject(let input):
            description(input.description)
            raw("input ")
            raw(input.name.value)
            directivesAfterSpace(input.directives)
            blockAfterSpace(input.fields) { $0.inputValueDefinition($1) }
        }
    }

    mutating func typeExtension(_ node: TypeExtension) {
        switch node {
        case .scalar(let scalar):
            raw("extend scalar ")
            raw(scalar.name.value)
            directivesAfterSpace(scalar.directives)
        case .object(let object):
            raw("extend type ")
            raw(object.name.value)
            implements(object.interfaces)
            directivesAfterSpace(object.directives)
            blockAfterSpace(object.fields) { $0.fieldDefinition($1) }
        case .interface(let interface):
            raw("extend interface ")
            raw(interface.name.value)
            implements(interface.interfaces)
            directivesAfterSpace(interface.directives)
            blockAfterSpace(interface.fields) { $0.fieldDefinition($1) }
        case .union(let union):
            raw("extend union ")
            raw(union.name.value)
            directivesAfterSpace(union.directives)
            unionMembers(union.types)
        case .enumType(let enumType):
            raw("extend enum ")
            raw(enumType.name.value)
            directivesAfterSpace(enumType.directives)
            blockAfterSpace(enumType.values) { $0.enumValueDefinition($1) }
        case .inputObject(let input):
            raw("extend input ")
            raw(input.name.value)
            directivesAfterSpace(input.directives)
            blockAfterSpace(input.fields) { $0.inputValueDefinition($1) }
        }
    }

    mutating func unionMembers(_ types: [NamedType]) {
        guard !types.isEmpty else { return }
        raw(" = ")
        list(types, separator: " | ") { $0.raw($1.name.value) }
    }

    mutating func fieldDefinition(_ node: FieldDefinition) {
        description(node.description)
        raw(node.name.value)
        argumentDefinitions(node.arguments)
        raw(": ")
        type(node.type)
        directivesAfterSpace(node.directives)
    }

    /// `(a: A, b: B)`, or one per line when any of them spans lines (graphql-js's `hasMultilineItems`).
    mutating func argumentDefinitions(_ arguments: [InputValueDefinition]) {
        guard !arguments.isEmpty else { return }
        let printed = arguments.map { argument -> PrintWriter in
            var writer = PrintWriter()
            writer.inputValueDefinition(argument)
            return writer
        }
        if printed.contains(where: \.containsNewline) {
            indentedLines(printed, open: "(", close: ")")
        } else {
            raw("(")
            for (index, argument) in printed.enumerated() {
                if index > 0 { raw(", ") }
                append(argument)
            }
            raw(")")
        }
    }

    mutating func inputValueDefinition(_ node: InputValueDefinition) {
        description(node.description)
        raw(node.name.value)
        raw(": ")
        type(node.type)
        if let defaultValue = node.defaultValue {
            raw(" = ")
            value(defaultValue)
        }
        directivesAfterSpace(node.directives)
    }

    mutating func enumValueDefinition(_ node: EnumValueDefinition) {
        description(node.description)
        raw(node.name.value)
        directivesAfterSpace(node.directives)
    }

    mutating func directiveDefinition(_ node: DirectiveDefinition) {
        description(node.description)
        raw("directive @")
        raw(node.name.value)
        argumentDefinitions(node.arguments)
        if node.repeatable { raw(" repeatable") }
        raw(" on ")
        list(node.locations, separator: " | ") { $0.raw($1.value) }
    }
}
