// The parser: recursive descent over the lexer's tokens, one grammar for
// executable documents and the type-system definition language (as graphql-js
// `parse`). Nesting is bounded by `ParserLimits.maxDepth`, so hostile input
// cannot exhaust the stack; size and token count are bounded too.

/// Entry points of the GraphQL parser.
public enum Parser {
    /// Parses a document (operations, fragments, type-system definitions and extensions).
    ///
    /// - Throws: `GraphQLError` with a graphql-js-worded message
    ///   (`Syntax Error: Expected Name, found "}".`) and the error's line:column,
    ///   or when `limits` are exceeded.
    public static func parse(_ source: String, limits: ParserLimits = .init()) throws(GraphQLError) -> Document {
        try parse(Source(body: source), limits: limits)
    }

    /// Parses a document from a named `Source`.
    public static func parse(_ source: Source, limits: ParserLimits = .init()) throws(GraphQLError) -> Document {
        try withParser(source, limits: limits) { (parser: inout DocumentParser) throws(GraphQLError) in
            try parser.parseDocument()
        }
    }

    /// Parses a single value literal (variables allowed), e.g. `{a: [1, $b]}`.
    public static func parseValue(_ source: String, limits: ParserLimits = .init()) throws(GraphQLError) -> Value {
        try withParser(Source(body: source), limits: limits) { (parser: inout DocumentParser) throws(GraphQLError) in
            try parser.expect(.sof)
            let value = try parser.parseValueLiteral(isConst: false)
            try parser.expect(.eof)
            return value
        }
    }

    /// Parses a single type reference, e.g. `[String!]!`.
    public static func parseType(_ source: String, limits: ParserLimits = .init()) throws(GraphQLError) -> TypeReference {
        try withParser(Source(body: source), limits: limits) { (parser: inout DocumentParser) throws(GraphQLError) in
            try parser.expect(.sof)
            let type = try parser.parseTypeReference()
            try parser.expect(.eof)
            return type
        }
    }

    /// Runs `body` with a parser over `source`'s contiguous UTF-8, after the size check.
    private static func withParser<T>(
        _ source: Source, limits: ParserLimits,
        _ body: (inout DocumentParser) throws(GraphQLError) -> T
    ) throws(GraphQLError) -> T {
        var text = source.body
        // Locations are 32-bit offsets: nothing larger is accepted, whatever the limits.
        let maxBytes = min(limits.maxBytes, Int(UInt32.max))
        if text.utf8.count > maxBytes {
            throw GraphQLError("Syntax Error: Document is larger than \(maxBytes) bytes.",
                               locations: [source.location(at: maxBytes)])
        }
        text.makeContiguousUTF8()
        let result: Result<T, GraphQLError>? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var parser = DocumentParser(bytes: bytes, source: source, limits: limits)
            do throws(GraphQLError) {
                return .success(try body(&parser))
            } catch {
                return .failure(error)
            }
        }
        guard let result else {
            // Unreachable after makeContiguousUTF8(); reported rather than trapped.
            throw GraphQLError("Syntax Error: Document text is not contiguous UTF-8.")
        }
        return try result.get()
    }
}

/// Parser state over one document's bytes (valid only inside `Parser.withParser`).
struct DocumentParser {
    var lexer: Lexer
    let source: Source
    let limits: ParserLimits
    private var tokenCount = 0
    private var depth = 0
    /// End of the last consumed token: the end of the node being built.
    private(set) var lastEnd = 0

    init(bytes: UnsafeBufferPointer<UInt8>, source: Source, limits: ParserLimits) {
        self.lexer = Lexer(bytes: bytes)
        self.source = source
        self.limits = limits
    }

    // MARK: Token helpers

    /// Consumes the current token and reads the next one, counting tokens against the limit.
    mutating func advance() throws(GraphQLError) {
        lastEnd = lexer.end
        try lexer.advance()
        if lexer.kind != .eof {
            tokenCount += 1
            if tokenCount > limits.maxTokens {
                throw lexer.syntaxError("Document contains more than \(limits.maxTokens) tokens. Parsing aborted.", at: lexer.start)
            }
        }
    }

    @inline(__always)
    func peek(_ kind: TokenKind) -> Bool { lexer.kind == kind }

    mutating func expect(_ kind: TokenKind) throws(GraphQLError) {
        guard lexer.kind == kind else {
            throw lexer.syntaxError("Expected \(kind.errorDescription), found \(lexer.tokenDescription).", at: lexer.start)
        }
        try advance()
    }

    mutating func expectOptional(_ kind: TokenKind) throws(GraphQLError) -> Bool {
        guard lexer.kind == kind else { return false }
        try advance()
        return true
    }

    mutating func expectKeyword(_ keyword: StaticString) throws(GraphQLError) {
        guard lexer.isKeyword(keyword) else {
            throw lexer.syntaxError("Expected \"\(keyword)\", found \(lexer.tokenDescription).", at: lexer.start)
        }
        try advance()
    }

    mutating func expectOptionalKeyword(_ keyword: StaticString) throws(GraphQLError) -> Bool {
        guard lexer.isKeyword(keyword) else { return false }
        try advance()
        return true
    }

    /// `Unexpected <token>.` at the current token.
    func unexpected() -> GraphQLError {
        lexer.syntaxError("Unexpected \(lexer.tokenDescription).", at: lexer.start)
    }

    /// True when the current token's value (of any kind, as graphql-js's `token.value`) is `text`.
    func tokenValueIs(_ text: StaticString) -> Bool {
        switch lexer.kind {
        case .name, .int, .float:
            let length = text.utf8CodeUnitCount
            guard lexer.end - lexer.start == length else { return false }
            for offset in 0..<length where lexer.bytes[lexer.start + offset] != text.utf8Start[offset] { return false }
            return true
        case .string, .blockString:
            return lexer.stringValue == text.description
        default:
            return false
        }
    }

    @inline(__always)
    func location(from start: Int) -> Location { Location(start: start, end: lastEnd) }

    /// Enters one level of nesting at the current token, failing past `maxDepth`.
    mutating func enterNesting() throws(GraphQLError) {
        depth += 1
        if depth > limits.maxDepth {
            throw lexer.syntaxError("Document is nested deeper than \(limits.maxDepth) levels.", at: lexer.start)
        }
    }

    mutating func leaveNesting() { depth -= 1 }

    // MARK: Document

    mutating func parseDocument() throws(GraphQLError) -> Document {
        try expect(.sof)
        var definitions: [Definition] = []
        definitions.reserveCapacity(4)
        repeat {
            definitions.append(try parseDefinition())
        } while !(try expectOptional(.eof))
        return Document(definitions: definitions, loc: Location(start: 0, end: lastEnd), source: source, tokenCount: tokenCount)
    }

    @inline(__always)
    mutating func parseName() throws(GraphQLError) -> Name {
        guard lexer.kind == .name else {
            throw lexer.syntaxError("Expected Name, found \(lexer.tokenDescription).", at: lexer.start)
        }
        let name = Name(value: lexer.tokenText, loc: Location(start: lexer.start, end: lexer.end))
        try advance()
        return name
    }

    mutating func parseDefinition() throws(GraphQLError) -> Definition {
        if peek(.braceL) { return .operation(try parseOperationDefinition()) }
        let hasDescription = peekDescription()
        var keywordToken = lexer
        if hasDescription { try keywordToken.advance() }
        if keywordToken.kind == .name {
            if keywordToken.isKeyword("schema") { return .schema(try parseSchemaDefinition()) }
            if keywordToken.isKeyword("scalar") { return .type(.scalar(try parseScalarTypeDefinition())) }
            if keywordToken.isKeyword("type") { return .type(.object(try parseObjectTypeDefinition())) }
            if keywordToken.isKeyword("interface") { return .type(.interface(try parseInterfaceTypeDefinition())) }
            if keywordToken.isKeyword("union") { return .type(.union(try parseUnionTypeDefinition())) }
            if keywordToken.isKeyword("enum") { return .type(.enumType(try parseEnumTypeDefinition())) }
            if keywordToken.isKeyword("input") { return .type(.inputObject(try parseInputObjectTypeDefinition())) }
            if keywordToken.isKeyword("directive") { return .directive(try parseDirectiveDefinition()) }
            if hasDescription {
                throw lexer.syntaxError("Unexpected description, descriptions are supported only on type definitions.", at: lexer.start)
            }
            if keywordToken.isKeyword("query") || keywordToken.isKeyword("mutation") || keywordToken.isKeyword("subscription") {
                return .operation(try parseOperationDefinition())
            }
            if keywordToken.isKeyword("fragment") { return .fragment(try parseFragmentDefinition()) }
            if keywordToken.isKeyword("extend") { return try parseTypeSystemExtension() }
        }
        throw keywordToken.syntaxError("Unexpected \(keywordToken.tokenDescription).", at: keywordToken.start)
    }

    // MARK: Operations and fragments

    mutating func parseOperationDefinition() throws(GraphQLError) -> OperationDefinition {
        let start = lexer.start
        if peek(.braceL) {
            let selectionSet = try parseSelectionSet()
            return OperationDefinition(operation: .query, name: nil, variableDefinitions: [], directives: [],
                                       selectionSet: selectionSet, loc: location(from: start))
        }
        let operation = try parseOperationType()
        let name = peek(.name) ? try parseName() : nil
        let variableDefinitions = try parseVariableDefinitions()
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return OperationDefinition(operation: operation, name: name, variableDefinitions: variableDefinitions,
                                   directives: directives, selectionSet: selectionSet, loc: location(from: start))
    }

    mutating func parseOperationType() throws(GraphQLError) -> OperationType {
        guard lexer.kind == .name else {
            throw lexer.syntaxError("Expected Name, found \(lexer.tokenDescription).", at: lexer.start)
        }
        let token = lexer
        // Like graphql-js, consume the name first: a lexical error after it is reported before "Unexpected".
        try advance()
        if token.isKeyword("query") { return .query }
        if token.isKeyword("mutation") { return .mutation }
        if token.isKeyword("subscription") { return .subscription }
        throw token.syntaxError("Unexpected \(token.tokenDescription).", at: token.start)
    }

    mutating func parseVariableDefinitions() throws(GraphQLError) -> [VariableDefinition] {
        guard try expectOptional(.parenL) else { return [] }
        var definitions: [VariableDefinition] = []
        definitions.reserveCapacity(4)
        repeat {
            let start = lexer.start
            let variable = try parseVariable()
            try expect(.colon)
            let type = try parseTypeReference()
            let defaultValue = try expectOptional(.equals) ? try parseValueLiteral(isConst: true) : nil
            let directives = try parseDirectives(isConst: true)
            definitions.append(VariableDefinition(variable: variable, type: type, defaultValue: defaultValue,
                                                  directives: directives, loc: location(from: start)))
        } while !(try expectOptional(.parenR))
        return definitions
    }

    mutating func parseVariable() throws(GraphQLError) -> Variable {
        let start = lexer.start
        try expect(.dollar)
        let name = try parseName()
        return Variable(name: name, loc: location(from: start))
    }

    mutating func parseSelectionSet() throws(GraphQLError) -> SelectionSet {
        let start = lexer.start
        try enterNesting()
        try expect(.braceL)
        var selections: [Selection] = []
        // Most selection sets hold a handful of fields: skip the 1-2-4 growth steps.
        selections.reserveCapacity(8)
        repeat {
            if peek(.spread) {
                selections.append(try parseFragment())
            } else {
                selections.append(try parseFieldSelection())
            }
        } while !(try expectOptional(.braceR))
        leaveNesting()
        return SelectionSet(selections: selections, loc: location(from: start))
    }

    /// A field, built straight into its `Selection` (avoids a copy of the large struct).
    mutating func parseFieldSelection() throws(GraphQLError) -> Selection {
        let start = lexer.start
        let nameOrAlias = try parseName()
        let alias: Name?
        let name: Name
        if try expectOptional(.colon) {
            alias = nameOrAlias
            name = try parseName()
        } else {
            alias = nil
            name = nameOrAlias
        }
        let arguments = try parseArguments(isConst: false)
        let directives = try parseDirectives(isConst: false)
        let selectionSet = peek(.braceL) ? try parseSelectionSet() : nil
        return .field(Field(alias: alias, name: name, arguments: arguments, directives: directives,
                            selectionSet: selectionSet, loc: location(from: start)))
    }

    mutating func parseArguments(isConst: Bool) throws(GraphQLError) -> [Argument] {
        guard try expectOptional(.parenL) else { return [] }
        var arguments: [Argument] = []
        arguments.reserveCapacity(2)
        repeat {
            let start = lexer.start
            let name = try parseName()
            try expect(.colon)
            let value = try parseValueLiteral(isConst: isConst)
            arguments.append(Argument(name: name, value: value, loc: location(from: start)))
        } while !(try expectOptional(.parenR))
        return arguments
    }

    mutating func parseFragment() throws(GraphQLError) -> Selection {
        let start = lexer.start
        try expect(.spread)
        let hasTypeCondition = try expectOptionalKeyword("on")
        if !hasTypeCondition, peek(.name) {
            let name = try parseFragmentName()
            let directives = try parseDirectives(isConst: false)
            return .fragmentSpread(FragmentSpread(name: name, directives: directives, loc: location(from: start)))
        }
        let typeCondition = hasTypeCondition ? try parseNamedType() : nil
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return .inlineFragment(InlineFragment(typeCondition: typeCondition, directives: directives,
                                              selectionSet: selectionSet, loc: location(from: start)))
    }

    mutating func parseFragmentDefinition() throws(GraphQLError) -> FragmentDefinition {
        let start = lexer.start
        try expectKeyword("fragment")
        let name = try parseFragmentName()
        try expectKeyword("on")
        let typeCondition = try parseNamedType()
        let directives = try parseDirectives(isConst: false)
        let selectionSet = try parseSelectionSet()
        return FragmentDefinition(name: name, typeCondition: typeCondition, directives: directives,
                                  selectionSet: selectionSet, loc: location(from: start))
    }

    /// A fragment's name: any name but `on`.
    mutating func parseFragmentName() throws(GraphQLError) -> Name {
        if tokenValueIs("on") { throw unexpected() }
        return try parseName()
    }

    mutating func parseDirectives(isConst: Bool) throws(GraphQLError) -> [Directive] {
        guard peek(.at) else { return [] }
        var directives: [Directive] = []
        while peek(.at) {
            let start = lexer.start
            try advance()
            let name = try parseName()
            let arguments = try parseArguments(isConst: isConst)
            directives.append(Directive(name: name, arguments: arguments, loc: location(from: start)))
        }
        return directives
    }
}
