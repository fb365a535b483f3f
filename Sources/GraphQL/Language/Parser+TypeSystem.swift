// Type-system definitions and extensions (SDL).

extension DocumentParser {
    mutating func parseSchemaDefinition() throws(GraphQLError) -> SchemaDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("schema")
        let directives = try parseDirectives(isConst: true)
        try expect(.braceL)
        var operationTypes: [OperationTypeDefinition] = []
        repeat {
            operationTypes.append(try parseOperationTypeDefinition())
        } while !(try expectOptional(.braceR))
        return SchemaDefinition(description: description, directives: directives, operationTypes: operationTypes,
                                loc: location(from: start))
    }

    mutating func parseOperationTypeDefinition() throws(GraphQLError) -> OperationTypeDefinition {
        let start = lexer.start
        let operation = try parseOperationType()
        try expect(.colon)
        let type = try parseNamedType()
        return OperationTypeDefinition(operation: operation, type: type, loc: location(from: start))
    }

    mutating func parseScalarTypeDefinition() throws(GraphQLError) -> ScalarTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("scalar")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        return ScalarTypeDefinition(description: description, name: name, directives: directives, loc: location(from: start))
    }

    mutating func parseObjectTypeDefinition() throws(GraphQLError) -> ObjectTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("type")
        let name = try parseName()
        let interfaces = try parseImplementsInterfaces()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseFieldsDefinition()
        return ObjectTypeDefinition(description: description, name: name, interfaces: interfaces,
                                    directives: directives, fields: fields, loc: location(from: start))
    }

    mutating func parseImplementsInterfaces() throws(GraphQLError) -> [NamedType] {
        guard try expectOptionalKeyword("implements") else { return [] }
        return try parseDelimited(.amp)
    }

    /// `A & B & C` or `A | B` (a leading delimiter is allowed).
    mutating func parseDelimited(_ delimiter: TokenKind) throws(GraphQLError) -> [NamedType] {
        _ = try expectOptional(delimiter)
        var types: [NamedType] = []
        repeat {
            types.append(try parseNamedType())
        } while try expectOptional(delimiter)
        return types
    }

    mutating func parseFieldsDefinition() throws(GraphQLError) -> [FieldDefinition] {
        guard try expectOptional(.braceL) else { return [] }
        var fields: [FieldDefinition] = []
        repeat {
            let start = lexer.start
            let description = try parseDescription()
            let name = try parseName()
            let arguments = try parseArgumentDefinitions()
            try expect(.colon)
            let type = try parseTypeReference()
            let directives = try parseDirectives(isConst: true)
            fields.append(FieldDefinition(description: description, name: name, arguments: arguments, type: type,
                                          directives: directives, loc: location(from: start)))
        } while !(try expectOptional(.braceR))
        return fields
    }

    mutating func parseArgumentDefinitions() throws(GraphQLError) -> [InputValueDefinition] {
        guard try expectOptional(.parenL) else { return [] }
        var arguments: [InputValueDefinition] = []
        repeat {
            arguments.append(try parseInputValueDefinition())
        } while !(try expectOptional(.parenR))
        return arguments
    }

    mutating func parseInputValueDefinition() throws(GraphQLError) -> InputValueDefinition {
        let start = lexer.start
        let description = try parseDescription()
        let name = try parseName()
        try expect(.colon)
        let type = try parseTypeReference()
        let defaultValue = try expectOptional(.equals) ? try parseValueLiteral(isConst: true) : nil
        let directives = try parseDirectives(isConst: true)
        return InputValueDefinition(description: description, name: name, type: type, defaultValue: defaultValue,
                                    directives: directives, loc: location(from: start))
    }

    mutating func parseInterfaceTypeDefinition() throws(GraphQLError) -> InterfaceTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("interface")
        let name = try parseName()
        let interfaces = try parseImplementsInterfaces()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseFieldsDefinition()
        return InterfaceTypeDefinition(description: description, name: name, interfaces: interfaces,
                                       directives: directives, fields: fields, loc: location(from: start))
    }

    mutating func parseUnionTypeDefinition() throws(GraphQLError) -> UnionTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("union")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let types = try expectOptional(.equals) ? try parseDelimited(.pipe) : []
        return UnionTypeDefinition(description: description, name: name, directives: directives, types: types,
                                   loc: location(from: start))
    }

    mutating func parseEnumTypeDefinition() throws(GraphQLError) -> EnumTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("enum")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let values = try parseEnumValuesDefinition()
        return EnumTypeDefinition(description: description, name: name, directives: directives, values: values,
                                  loc: location(from: start))
    }

    mutating func parseEnumValuesDefinition() throws(GraphQLError) -> [EnumValueDefinition] {
        guard try expectOptional(.braceL) else { return [] }
        var values: [EnumValueDefinition] = []
        repeat {
            let start = lexer.start
            let description = try parseDescription()
            if tokenValueIs("true") || tokenValueIs("false") || tokenValueIs("null") {
                throw lexer.syntaxError("\(lexer.tokenDescription) is reserved and cannot be used for an enum value.", at: lexer.start)
            }
            let name = try parseName()
            let directives = try parseDirectives(isConst: true)
            values.append(EnumValueDefinition(description: description, name: name, directives: directives,
                                              loc: location(from: start)))
        } while !(try expectOptional(.braceR))
        return values
    }

    mutating func parseInputObjectTypeDefinition() throws(GraphQLError) -> InputObjectTypeDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("input")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseInputFieldsDefinition()
        return InputObjectTypeDefinition(description: description, name: name, directives: directives, fields: fields,
                                         loc: location(from: start))
    }

    mutating func parseInputFieldsDefinition() throws(GraphQLError) -> [InputValueDefinition] {
        guard try expectOptional(.braceL) else { return [] }
        var fields: [InputValueDefinition] = []
        repeat {
            fields.append(try parseInputValueDefinition())
        } while !(try expectOptional(.braceR))
        return fields
    }

    mutating func parseDirectiveDefinition() throws(GraphQLError) -> DirectiveDefinition {
        let start = lexer.start
        let description = try parseDescription()
        try expectKeyword("directive")
        try expect(.at)
        let name = try parseName()
        let arguments = try parseArgumentDefinitions()
        let repeatable = try expectOptionalKeyword("repeatable")
        try expectKeyword("on")
        _ = try expectOptional(.pipe)
        var locations: [Name] = []
        repeat {
            let locationToken = lexer
            let location = try parseName()
            guard DirectiveLocationName.all.contains(location.value) else {
                throw locationToken.syntaxError("Unexpected \(locationToken.tokenDescription).", at: locationToken.start)
            }
            locations.append(location)
        } while try expectOptional(.pipe)
        return DirectiveDefinition(description: description, name: name, arguments: arguments, repeatable: repeatable,
                                   locations: locations, loc: location(from: start))
    }

    // MARK: Extensions

    mutating func parseTypeSystemExtension() throws(GraphQLError) -> Definition {
        var keywordToken = lexer
        try keywordToken.advance()
        if keywordToken.kind == .name {
            if keywordToken.isKeyword("schema") { return .schemaExtension(try parseSchemaExtension()) }
            if keywordToken.isKeyword("scalar") { return .typeExtension(.scalar(try parseScalarTypeExtension())) }
            if keywordToken.isKeyword("type") { return .typeExtension(.object(try parseObjectTypeExtension())) }
            if keywordToken.isKeyword("interface") { return .typeExtension(.interface(try parseInterfaceTypeExtension())) }
            if keywordToken.isKeyword("union") { return .typeExtension(.union(try parseUnionTypeExtension())) }
            if keywordToken.isKeyword("enum") { return .typeExtension(.enumType(try parseEnumTypeExtension())) }
            if keywordToken.isKeyword("input") { return .typeExtension(.inputObject(try parseInputObjectTypeExtension())) }
        }
        throw keywordToken.syntaxError("Unexpected \(keywordToken.tokenDescription).", at: keywordToken.start)
    }

    mutating func parseSchemaExtension() throws(GraphQLError) -> SchemaExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("schema")
        let directives = try parseDirectives(isConst: true)
        var operationTypes: [OperationTypeDefinition] = []
        if try expectOptional(.braceL) {
            repeat {
                operationTypes.append(try parseOperationTypeDefinition())
            } while !(try expectOptional(.braceR))
        }
        if directives.isEmpty, operationTypes.isEmpty { throw unexpected() }
        return SchemaExtension(directives: directives, operationTypes: operationTypes, loc: location(from: start))
    }

    mutating func parseScalarTypeExtension() throws(GraphQLError) -> ScalarTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("scalar")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        if directives.isEmpty { throw unexpected() }
        return ScalarTypeExtension(name: name, directives: directives, loc: location(from: start))
    }

    mutating func parseObjectTypeExtension() throws(GraphQLError) -> ObjectTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("type")
        let name = try parseName()
        let interfaces = try parseImplementsInterfaces()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseFieldsDefinition()
        if interfaces.isEmpty, directives.isEmpty, fields.isEmpty { throw unexpected() }
        return ObjectTypeExtension(name: name, interfaces: interfaces, directives: directives, fields: fields,
                                   loc: location(from: start))
    }

    mutating func parseInterfaceTypeExtension() throws(GraphQLError) -> InterfaceTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("interface")
        let name = try parseName()
        let interfaces = try parseImplementsInterfaces()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseFieldsDefinition()
        if interfaces.isEmpty, directives.isEmpty, fields.isEmpty { throw unexpected() }
        return InterfaceTypeExtension(name: name, interfaces: interfaces, directives: directives, fields: fields,
                                      loc: location(from: start))
    }

    mutating func parseUnionTypeExtension() throws(GraphQLError) -> UnionTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("union")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let types = try expectOptional(.equals) ? try parseDelimited(.pipe) : []
        if directives.isEmpty, types.isEmpty { throw unexpected() }
        return UnionTypeExtension(name: name, directives: directives, types: types, loc: location(from: start))
    }

    mutating func parseEnumTypeExtension() throws(GraphQLError) -> EnumTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("enum")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let values = try parseEnumValuesDefinition()
        if directives.isEmpty, values.isEmpty { throw unexpected() }
        return EnumTypeExtension(name: name, directives: directives, values: values, loc: location(from: start))
    }

    mutating func parseInputObjectTypeExtension() throws(GraphQLError) -> InputObjectTypeExtension {
        let start = lexer.start
        try expectKeyword("extend")
        try expectKeyword("input")
        let name = try parseName()
        let directives = try parseDirectives(isConst: true)
        let fields = try parseInputFieldsDefinition()
        if directives.isEmpty, fields.isEmpty { throw unexpected() }
        return InputObjectTypeExtension(name: name, directives: directives, fields: fields, loc: location(from: start))
    }
}
