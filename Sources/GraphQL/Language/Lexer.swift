// The lexer: reads tokens straight from the document's UTF-8 bytes, one at a
// time as the parser asks, skipping ignored tokens (white space, line
// terminators, commas, comments, the byte-order mark). Error messages and
// positions follow graphql-js 16.

/// Reads tokens from UTF-8 bytes that stay alive for the lexer's lifetime.
///
/// The current token is `kind` over `start..<end`; a string token's decoded
/// value is in `stringValue`. The bytes are valid UTF-8 (they come from a
/// Swift `String`), so every character is a Unicode scalar value.
struct Lexer {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var kind: TokenKind = .sof
    private(set) var start = 0
    private(set) var end = 0
    /// The decoded value of the current `.string` / `.blockString` token.
    var stringValue = ""

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The byte at `index`, or 0 past the end (0 never matches what callers look for).
    @inline(__always)
    func byte(_ index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    /// The current token's text (for names and numbers).
    var tokenText: String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// True when the current token is the name `keyword`.
    func isKeyword(_ keyword: StaticString) -> Bool {
        guard kind == .name, end - start == keyword.utf8CodeUnitCount else { return false }
        let expected = keyword.utf8Start
        for offset in 0..<keyword.utf8CodeUnitCount where bytes[start + offset] != expected[offset] {
            return false
        }
        return true
    }

    /// The current token as error messages describe it: `Name "foo"`, `"{"`, `<EOF>`.
    var tokenDescription: String {
        switch kind {
        case .string, .blockString: "\(kind.errorDescription) \"\(stringValue)\""
        case .name, .int, .float: "\(kind.errorDescription) \"\(tokenText)\""
        default: kind.errorDescription
        }
    }

    /// A syntax error at byte `offset`, worded as graphql-js words them.
    func syntaxError(_ message: String, at offset: Int) -> GraphQLError {
        GraphQLError("Syntax Error: " + message, locations: [Source.location(at: offset, in: bytes)])
    }

    /// Moves to the next token that is not ignored; at the end, stays on `.eof`.
    mutating func advance() throws(GraphQLError) {
        let count = bytes.count
        var position = end
        while position < count {
            let code = bytes[position]
            switch code {
            case 0x09, 0x20, 0x2C, 0x0A, 0x0D:
                position += 1
                continue
            case 0xEF where byte(position + 1) == 0xBB && byte(position + 2) == 0xBF:
                position += 3 // U+FEFF byte-order mark, ignored anywhere
                continue
            case 0x23: // # comment, up to the end of the line
                position += 1
                while position < count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
                continue
            case 0x21: return setToken(.bang, position, position + 1)
            case 0x24: return setToken(.dollar, position, position + 1)
            case 0x26: return setToken(.amp, position, position + 1)
            case 0x28: return setToken(.parenL, position, position + 1)
            case 0x29: return setToken(.parenR, position, position + 1)
            case 0x2E:
                if byte(position + 1) == 0x2E, byte(position + 2) == 0x2E {
                    return setToken(.spread, position, position + 3)
                }
            case 0x3A: return setToken(.colon, position, position + 1)
            case 0x3D: return setToken(.equals, position, position + 1)
            case 0x40: return setToken(.at, position, position + 1)
            case 0x5B: return setToken(.bracketL, position, position + 1)
            case 0x5D: return setToken(.bracketR, position, position + 1)
            case 0x7B: return setToken(.braceL, position, position + 1)
            case 0x7C: return setToken(.pipe, position, position + 1)
            case 0x7D: return setToken(.braceR, position, position + 1)
            case 0x22:
                if byte(position + 1) == 0x22, byte(position + 2) == 0x22 {
                    return try readBlockString(from: position)
                }
                return try readString(from: position)
            case 0x2D, 0x30...0x39:
                return try readNumber(from: position)
            case 0x41...0x5A, 0x61...0x7A, 0x5F:
                return readName(from: position)
            default:
                break
            }
            if code == 0x27 {
                throw syntaxError("Unexpected single quote character ('), did you mean to use a double quote (\")?", at: position)
            }
            throw syntaxError("Unexpected character: \(describeCharacter(at: position)).", at: position)
        }
        setToken(.eof, count, count)
    }

    @inline(__always)
    mutating func setToken(_ kind: TokenKind, _ start: Int, _ end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
    }

    private mutating func readName(from start: Int) {
        var position = start + 1
        let count = bytes.count
        while position < count, Lexer.isNameContinue(bytes[position]) { position += 1 }
        setToken(.name, start, position)
    }

    @inline(__always)
    static func isNameStart(_ code: UInt8) -> Bool {
        (code >= 0x41 && code <= 0x5A) || (code >= 0x61 && code <= 0x7A) || code == 0x5F
    }

    @inline(__always)
    static func isNameContinue(_ code: UInt8) -> Bool {
        isNameStart(code) || (code >= 0x30 && code <= 0x39)
    }

    @inline(__always)
    static func isDigit(_ code: UInt8) -> Bool { code >= 0x30 && code <= 0x39 }

    /// IntValue / FloatValue, exactly as the spec's grammar (and graphql-js) reads them.
    private mutating func readNumber(from start: Int) throws(GraphQLError) {
        var position = start
        var code = bytes[position]
        var isFloat = false
        if code == 0x2D {
            position += 1
            code = byte(position)
        }
        if code == 0x30 {
            position += 1
            code = byte(position)
            if Lexer.isDigit(code) {
                throw syntaxError("Invalid number, unexpected digit after 0: \(describeCharacter(at: position)).", at: position)
            }
        } else {
            position = try readDigits(from: position)
            code = byte(position)
        }
        if code == 0x2E {
            isFloat = true
            position += 1
            position = try readDigits(from: position)
            code = byte(position)
        }
        if code == 0x45 || code == 0x65 {
            isFloat = true
            position += 1
            code = byte(position)
            if code == 0x2B || code == 0x2D {
                position += 1
            }
            position = try readDigits(from: position)
            code = byte(position)
        }
        if code == 0x2E || Lexer.isNameStart(code) {
            throw syntaxError("Invalid number, expected digit but got: \(describeCharacter(at: position)).", at: position)
        }
        setToken(isFloat ? .float : .int, start, position)
    }

    private func readDigits(from start: Int) throws(GraphQLError) -> Int {
        guard Lexer.isDigit(byte(start)) else {
            throw syntaxError("Invalid number, expected digit but got: \(describeCharacter(at: start)).", at: start)
        }
        var position = start + 1
        while Lexer.isDigit(byte(position)) { position += 1 }
        return position
    }

    /// The character at `offset` as graphql-js prints it in errors: `"a"`, `'"'`, `U+00E9`, `<EOF>`.
    func describeCharacter(at offset: Int) -> String {
        guard offset < bytes.count else { return "<EOF>" }
        let scalar = decodeScalar(at: offset).value
        if scalar >= 0x20, scalar <= 0x7E {
            return scalar == 0x22 ? "'\"'" : "\"\(Character(Unicode.Scalar(UInt8(scalar))))\""
        }
        return "U+" + Lexer.hex4(scalar)
    }

    /// Upper-case hexadecimal, at least 4 digits.
    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
    }

    /// The scalar starting at `offset` (a lead byte of valid UTF-8) and its length in bytes.
    func decodeScalar(at offset: Int) -> (value: UInt32, length: Int) {
        let lead = UInt32(bytes[offset])
        func continuation(_ index: Int) -> UInt32 { UInt32(byte(offset + index) & 0x3F) }
        switch lead {
        case 0..<0x80: return (lead, 1)
        case 0xC0..<0xE0: return ((lead & 0x1F) << 6 | continuation(1), 2)
        case 0xE0..<0xF0: return ((lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2), 3)
        case 0xF0...: return ((lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3), 4)
        default: return (lead, 1) // a stray continuation byte: cannot happen in valid UTF-8
        }
    }

    /// The text from `offset` spanning `units` UTF-16 code units, for error messages.
    ///
    /// graphql-js slices UTF-16: when the last unit is the first half of a
    /// surrogate pair, its message holds a lone surrogate, which becomes U+FFFD
    /// once written as UTF-8; that is what this returns in that case.
    func slice(from offset: Int, utf16Units units: Int) -> String {
        var position = offset
        var counted = 0
        var cutPair = false
        while counted < units, position < bytes.count {
            let (value, length) = decodeScalar(at: position)
            if value > 0xFFFF, counted + 2 > units {
                cutPair = true
                break
            }
            counted += value > 0xFFFF ? 2 : 1
            position += length
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<min(position, bytes.count)]), as: UTF8.self)
        return cutPair ? text + "\u{FFFD}" : text
    }
}
