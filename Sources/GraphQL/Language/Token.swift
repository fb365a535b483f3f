// Token kinds and how syntax errors describe them (graphql-js's wording).

/// The kind of a lexical token. Comments are skipped by the lexer and never reach the parser.
enum TokenKind: UInt8, Sendable {
    case sof, eof
    case bang, dollar, amp, parenL, parenR, spread, colon, equals, at, bracketL, bracketR, braceL, pipe, braceR
    case name, int, float, string, blockString

    /// The kind as named in error messages: punctuators quoted, others by kind name.
    var errorDescription: String {
        switch self {
        case .sof: "<SOF>"
        case .eof: "<EOF>"
        case .bang: "\"!\""
        case .dollar: "\"$\""
        case .amp: "\"&\""
        case .parenL: "\"(\""
        case .parenR: "\")\""
        case .spread: "\"...\""
        case .colon: "\":\""
        case .equals: "\"=\""
        case .at: "\"@\""
        case .bracketL: "\"[\""
        case .bracketR: "\"]\""
        case .braceL: "\"{\""
        case .pipe: "\"|\""
        case .braceR: "\"}\""
        case .name: "Name"
        case .int: "Int"
        case .float: "Float"
        case .string: "String"
        case .blockString: "BlockString"
        }
    }

    /// Tokens that carry a value printed after their kind in error messages.
    var hasValue: Bool {
        switch self {
        case .name, .int, .float, .string, .blockString: true
        default: false
        }
    }
}

/// The spec's directive locations, for checking `directive @x on ...`.
enum DirectiveLocationName {
    static let all: Set<String> = [
        "QUERY", "MUTATION", "SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION", "FRAGMENT_SPREAD",
        "INLINE_FRAGMENT", "VARIABLE_DEFINITION", "SCHEMA", "SCALAR", "OBJECT", "FIELD_DEFINITION",
        "ARGUMENT_DEFINITION", "INTERFACE", "UNION", "ENUM", "ENUM_VALUE", "INPUT_OBJECT",
        "INPUT_FIELD_DEFINITION",
    ]
}
