/// Bounds that keep a hostile document from costing more than a normal one.
public struct JSONLimits: Sendable, Equatable {
    /// Deepest nesting of arrays and objects accepted (default 512). Real
    /// GraphQL variables nest a few levels; the bound keeps recursion shallow.
    public var maxDepth: Int
    /// Largest document accepted, in bytes (default 16 MiB). Servers should
    /// enforce their own, smaller body limit before parsing.
    public var maxBytes: Int

    /// Limits with the documented defaults, each overridable.
    public init(maxDepth: Int = 512, maxBytes: Int = 16 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
    }
}

/// Why a document is not acceptable JSON, and where (byte offset).
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A small, stable classification of the failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case syntax, invalidUTF8, tooDeep, tooLarge, invalidEscape, invalidNumber
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// Unexpected byte, truncated input or trailing garbage.
        public static let syntax = Code(.syntax)
        /// A string is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// Nesting exceeds `JSONLimits.maxDepth`.
        public static let tooDeep = Code(.tooDeep)
        /// The document exceeds `JSONLimits.maxBytes`.
        public static let tooLarge = Code(.tooLarge)
        /// A bad `\` escape or a lone UTF-16 surrogate.
        public static let invalidEscape = Code(.invalidEscape)
        /// A number that does not follow RFC 8259's grammar.
        public static let invalidNumber = Code(.invalidNumber)
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Byte offset in the input where it went wrong.
    public let offset: Int
    /// A human-readable explanation (never echoes the input).
    public let message: String

    /// Makes an error; used by the parser.
    public init(code: Code, offset: Int, message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset)" }
}

/// An RFC 8259 parser over UTF-8 bytes, standard library only.
///
/// Integers that fit `Int64` stay exact (`.int`); every other number is a
/// `Double`. Object members keep their order; a repeated name keeps its
/// first position and takes the last value (as JavaScript's `JSON.parse`).
/// Malformed, over-deep or oversized input throws `JSONError`; it never traps.
public enum JSONParser {
    /// Parses one JSON document (surrounding whitespace allowed).
    public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = .init()) throws(JSONError) -> JSONValue {
        if bytes.count > limits.maxBytes {
            throw JSONError(code: .tooLarge, offset: limits.maxBytes, message: "document larger than \(limits.maxBytes) bytes")
        }
        let contiguous: Result<JSONValue, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
            var reader = Reader(buffer, maxDepth: limits.maxDepth)
            return Result { () throws(JSONError) in try reader.parseDocument() }
        }
        if let contiguous { return try contiguous.get() }
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONError) in
            var reader = Reader(buffer, maxDepth: limits.maxDepth)
            return try reader.parseDocument()
        }
    }

    /// Parses one JSON document held in a string.
    public static func parse(_ text: String, limits: JSONLimits = .init()) throws(JSONError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONError> = text.withUTF8 { buffer in
            Result { () throws(JSONError) in try parse(buffer, limits: limits) }
        }
        return try result.get()
    }
}

extension Result where Failure == JSONError {
    fileprivate init(catching body: () throws(JSONError) -> Success) {
        do { self = .success(try body()) } catch { self = .failure(error) }
    }
}

/// The recursive-descent reader; `position` only moves forward.
private struct Reader: ~Copyable {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0
    var depth = 0
    /// Reused for strings with escapes, to avoid one allocation per string.
    var scratch = ByteSink(capacity: 0)

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position != bytes.count { throw error(.syntax, "unexpected data after the JSON value") }
        return value
    }

    func error(_ code: JSONError.Code, _ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(code: code, offset: offset ?? position, message: message)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard position < bytes.count else { throw error(.syntax, "unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(.syntax, "unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error(.syntax, "unexpected end of input") }
        let start = literal.utf8Start
        for index in 0..<count where bytes[position + index] != start[index] {
            throw error(.syntax, "invalid literal", at: position + index)
        }
        position += count
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw error(.tooDeep, "nesting deeper than \(maxDepth)") }
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw error(.syntax, "unterminated array") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") { break }
            throw error(.syntax, "expected ',' or ']' in array", at: position - 1)
        }
        depth -= 1
        return .array(elements)
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        position += 1
        var object = JSONObject()
        // Past a few members, a hash index keeps duplicate detection linear.
        var index: [String: Int]? = nil
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error(.syntax, "expected a member name string")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error(.syntax, "expected ':' after member name")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            object.insertParsed(key, value, index: &index)
            skipWhitespace()
            guard position < bytes.count else { throw error(.syntax, "unterminated object") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { break }
            throw error(.syntax, "expected ',' or '}' in object", at: position - 1)
        }
        depth -= 1
        return .object(object)
    }

    /// Reads a string starting at its opening quote. Plain runs are skipped eight
    /// bytes at a time and copied in one piece; only escapes go byte by byte.
    mutating func parseString() throws(JSONError) -> String {
        let start = position + 1
        var cursor = start
        var runStart = start
        var escaped = false
        // The OR of every raw byte: its high bit says whether any is non-ASCII.
        var seen: UInt64 = 0
        while true {
            // Skip plain bytes: whole words first, then one at a time.
            while cursor + 8 <= bytes.count {
                let word = ByteScan.word(bytes, at: cursor)
                if ByteScan.hasStringSpecial(word) { break }
                seen |= word
                cursor += 8
            }
            while cursor < bytes.count, !ByteScan.isStringSpecial(bytes[cursor]) {
                seen |= UInt64(bytes[cursor])
                cursor += 1
            }
            guard cursor < bytes.count else { throw error(.syntax, "unterminated string", at: start - 1) }
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") {
                position = cursor + 1
                let ascii = !ByteScan.hasNonASCII(seen)
                if !escaped { return try makeString(UnsafeBufferPointer(rebasing: bytes[start..<cursor]), ascii: ascii, at: start) }
                scratch.append(UnsafeBufferPointer(rebasing: bytes[runStart..<cursor]))
                return try makeString(scratch.bytes, ascii: ascii, at: start)
            }
            if byte != UInt8(ascii: "\\") { throw error(.syntax, "control character in string", at: cursor) }
            if !escaped {
                escaped = true
                scratch.removeAll()
            }
            scratch.append(UnsafeBufferPointer(rebasing: bytes[runStart..<cursor]))
            cursor += 1
            guard cursor < bytes.count else { throw error(.syntax, "unterminated string", at: start - 1) }
            let escape = bytes[cursor]
            cursor += 1
            switch escape {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = cursor - 2
                var scalar = try readHex4(at: &cursor)
                if scalar >= 0xD800, scalar <= 0xDBFF {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "\\"), bytes[cursor + 1] == UInt8(ascii: "u") else {
                        throw error(.invalidEscape, "unpaired UTF-16 surrogate", at: escapeStart)
                    }
                    cursor += 2
                    let low = try readHex4(at: &cursor)
                    guard low >= 0xDC00, low <= 0xDFFF else {
                        throw error(.invalidEscape, "unpaired UTF-16 surrogate", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00, scalar <= 0xDFFF {
                    throw error(.invalidEscape, "unpaired UTF-16 surrogate", at: escapeStart)
                }
                appendUTF8(scalar)
            default:
                throw error(.invalidEscape, "invalid escape sequence", at: cursor - 2)
            }
            runStart = cursor
        }
    }

    /// The string of `buffer`. `ascii` says the raw input bytes were all ASCII
    /// (bytes decoded from `\u` escapes are valid UTF-8 by construction); anything
    /// else is checked to be UTF-8.
    func makeString(_ buffer: UnsafeBufferPointer<UInt8>, ascii: Bool, at offset: Int) throws(JSONError) -> String {
        if ascii { return String(decoding: buffer, as: UTF8.self) }
        guard let string = String(validating: buffer, as: UTF8.self) else {
            throw error(.invalidUTF8, "string is not valid UTF-8", at: offset)
        }
        return string
    }

    func readHex4(at cursor: inout Int) throws(JSONError) -> UInt32 {
        guard bytes.count - cursor >= 4 else { throw error(.invalidEscape, "truncated \\u escape", at: cursor) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[cursor]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape, "invalid hex digit in \\u escape", at: cursor)
            }
            value = value << 4 | UInt32(digit)
            cursor += 1
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = position
        var cursor = position
        var negative = false
        if bytes[cursor] == UInt8(ascii: "-") {
            negative = true
            cursor += 1
        }
        guard cursor < bytes.count, isDigit(bytes[cursor]) else { throw error(.invalidNumber, "expected a digit", at: cursor) }
        // Accumulate negatively so that Int64.min is representable.
        var magnitude: Int64 = 0
        var overflow = false
        if bytes[cursor] == UInt8(ascii: "0") {
            cursor += 1
            if cursor < bytes.count, isDigit(bytes[cursor]) {
                throw error(.invalidNumber, "leading zeros are not allowed", at: start)
            }
        } else {
            while cursor < bytes.count, isDigit(bytes[cursor]) {
                let digit = Int64(bytes[cursor] - UInt8(ascii: "0"))
                if !overflow {
                    let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times.subtractingReportingOverflow(digit)
                    if o1 || o2 { overflow = true } else { magnitude = next }
                }
                cursor += 1
            }
        }
        var isInteger = true
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ".") {
            isInteger = false
            cursor += 1
            guard cursor < bytes.count, isDigit(bytes[cursor]) else { throw error(.invalidNumber, "expected a digit after '.'", at: cursor) }
            while cursor < bytes.count, isDigit(bytes[cursor]) { cursor += 1 }
        }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "e") || bytes[cursor] == UInt8(ascii: "E") {
            isInteger = false
            cursor += 1
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") { cursor += 1 }
            guard cursor < bytes.count, isDigit(bytes[cursor]) else { throw error(.invalidNumber, "expected a digit in the exponent", at: cursor) }
            while cursor < bytes.count, isDigit(bytes[cursor]) { cursor += 1 }
        }
        position = cursor
        if isInteger, !overflow {
            if negative { return .int(magnitude) }
            if magnitude != Int64.min { return .int(-magnitude) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cursor]), as: UTF8.self)
        // 1e400 would read as infinity, which JSON cannot carry back out: refuse it.
        guard let double = Double(text), double.isFinite else { throw error(.invalidNumber, "number out of range", at: start) }
        return .double(double)
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}

extension JSONObject {
    /// Inserts a parsed member: a repeated name keeps its first position and takes the new value.
    fileprivate mutating func insertParsed(_ key: String, _ value: JSONValue, index: inout [String: Int]?) {
        if index != nil {
            if let existing = index?[key] {
                replaceValue(at: existing, with: value)
            } else {
                index?[key] = count
                append(key, value)
            }
            return
        }
        if let existing = self.index(forKey: key) {
            replaceValue(at: existing, with: value)
            return
        }
        append(key, value)
        if count >= 16 {
            var map: [String: Int] = [:]
            map.reserveCapacity(count * 4)
            for (offset, name) in keys.enumerated() { map[name] = offset }
            index = map
        }
    }
}
