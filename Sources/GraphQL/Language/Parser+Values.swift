// Values, type references and descriptions.

extension DocumentParser {
    /// A value literal; in a constant context (default values, const directives) variables are errors.
    mutating func parseValueLiteral(isConst: Bool) throws(GraphQLError) -> Value {
        let start = lexer.start
        switch lexer.kind {
        case .bracketL:
            try enterNesting()
            try advance()
            var values: [Value] = []
            while !(try expectOptional(.bracketR)) {
                values.append(try parseValueLiteral(isConst: isConst))
            }
            leaveNesting()
            return .list(ListValue(values: values, loc: location(from: start)))
        case .braceL:
            try enterNesting()
            try advance()
            var fields: [ObjectField] = []
            while !(try expectOptional(.braceR)) {
                let fieldStart = lexer.start
                let name = try parseName()
                try expect(.colon)
                let value = try parseValueLiteral(isConst: isConst)
                fields.append(ObjectField(name: name, value: value, loc: location(from: fieldStart)))
            }
            leaveNesting()
            return .object(ObjectValue(fields: fields, loc: location(from: start)))
        case .int:
            let text = lexer.tokenText
            try advance()
            return .int(IntValue(value: text, loc: location(from: start)))
        case .float:
            let text = lexer.tokenText
            try advance()
            return .float(FloatValue(value: text, loc: location(from: start)))
        case .string, .blockString:
            return .string(try parseStringLiteral())
        case .name:
            let value: Value
            if lexer.isKeyword("true") {
                value = .boolean(BooleanValue(value: true, loc: Location(start: start, end: lexer.end)))
            } else if lexer.isKeyword("false") {
                value = .boolean(BooleanValue(value: false, loc: Location(start: start, end: lexer.end)))
            } else if lexer.isKeyword("null") {
                value = .null(NullValue(loc: Location(start: start, end: lexer.end)))
            } else {
                value = .enumValue(EnumValue(value: lexer.tokenText, loc: Location(start: start, end: lexer.end)))
            }
            try advance()
            return value
        case .dollar:
            if isConst {
                let dollar = lexer
                try advance()
                if lexer.kind == .name {
                    throw lexer.syntaxError("Unexpected variable \"$\(lexer.tokenText)\" in constant value.", at: start)
                }
                throw dollar.syntaxError("Unexpected \(dollar.tokenDescription).", at: start)
            }
            return .variable(try parseVariable())
        default:
            throw unexpected()
        }
    }

    mutating func parseStringLiteral() throws(GraphQLError) -> StringValue {
        let value = StringValue(value: lexer.stringValue, block: lexer.kind == .blockString,
                                loc: Location(start: lexer.start, end: lexer.end))
        try advance()
        return value
    }

    /// `Name`, `[Type]`, `Type!`.
    mutating func parseTypeReference() throws(GraphQLError) -> TypeReference {
        let start = lexer.start
        let type: TypeReference
        if peek(.bracketL) {
            try enterNesting()
            try advance()
            let inner = try parseTypeReference()
            try expect(.bracketR)
            leaveNesting()
            type = .list(ListType(type: inner, loc: location(from: start)))
        } else {
            type = .named(try parseNamedType())
        }
        if try expectOptional(.bang) {
            return .nonNull(NonNullType(type: type, loc: location(from: start)))
        }
        return type
    }

    mutating func parseNamedType() throws(GraphQLError) -> NamedType {
        let name = try parseName()
        return NamedType(name: name, loc: name.loc)
    }

    func peekDescription() -> Bool { lexer.kind == .string || lexer.kind == .blockString }

    mutating func parseDescription() throws(GraphQLError) -> StringValue? {
        peekDescription() ? try parseStringLiteral() : nil
    }
}
