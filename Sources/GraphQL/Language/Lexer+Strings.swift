// String and block string tokens: escapes, surrogate pairs, dedent.

extension Lexer {
    /// `"..."`: escapes decoded; an unescaped line terminator or the end of input is an error.
    mutating func readString(from start: Int) throws(GraphQLError) {
        let count = bytes.count
        var position = start + 1
        var chunkStart = position
        var buffer: [UInt8] = []
        var escaped = false
        while position < count {
            let code = bytes[position]
            if code == 0x22 {
                if escaped {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]))
                    stringValue = String(decoding: buffer, as: UTF8.self)
                } else {
                    stringValue = String(decoding: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]), as: UTF8.self)
                }
                setToken(.string, start, position + 1)
                return
            }
            if code == 0x5C {
                if !escaped {
                    escaped = true
                    buffer.reserveCapacity(position - start + 16)
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]))
                let size = try readEscape(at: position, into: &buffer)
                position += size
                chunkStart = position
                continue
            }
            if code == 0x0A || code == 0x0D { break }
            position += 1
        }
        throw syntaxError("Unterminated string.", at: position)
    }

    /// Decodes the escape sequence at `position` (a backslash) into `buffer`; returns its length in bytes.
    private func readEscape(at position: Int, into buffer: inout [UInt8]) throws(GraphQLError) -> Int {
        let next = byte(position + 1)
        let simple: UInt8
        switch next {
        case 0x22: simple = 0x22
        case 0x5C: simple = 0x5C
        case 0x2F: simple = 0x2F
        case 0x62: simple = 0x08
        case 0x66: simple = 0x0C
        case 0x6E: simple = 0x0A
        case 0x72: simple = 0x0D
        case 0x74: simple = 0x09
        case 0x75: // u
            if byte(position + 2) == 0x7B {
                return try readVariableWidthUnicode(at: position, into: &buffer)
            }
            return try readFixedWidthUnicode(at: position, into: &buffer)
        default:
            throw syntaxError("Invalid character escape sequence: \"\(slice(from: position, utf16Units: 2))\".", at: position)
        }
        buffer.append(simple)
        return 2
    }

    /// `\u{1F600}`: 1 to 8 hex digits naming a Unicode scalar value (graphql-js 16 semantics).
    private func readVariableWidthUnicode(at position: Int, into buffer: inout [UInt8]) throws(GraphQLError) -> Int {
        var point: Int32 = 0
        var size = 3
        while size < 12 {
            let code = byte(position + size)
            size += 1
            if code == 0x7D {
                guard size >= 5, let scalar = Lexer.scalar(point) else { break }
                Lexer.appendUTF8(scalar, to: &buffer)
                return size
            }
            point = (point &<< 4) | Lexer.hexValue(code)
            if point < 0 { break }
        }
        throw syntaxError("Invalid Unicode escape sequence: \"\(slice(from: position, utf16Units: size))\".", at: position)
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; lone surrogates are errors.
    private func readFixedWidthUnicode(at position: Int, into buffer: inout [UInt8]) throws(GraphQLError) -> Int {
        let code = read16BitHex(at: position + 2)
        if let scalar = Lexer.scalar(code) {
            Lexer.appendUTF8(scalar, to: &buffer)
            return 6
        }
        if code >= 0xD800, code <= 0xDBFF, byte(position + 6) == 0x5C, byte(position + 7) == 0x75 {
            let trailing = read16BitHex(at: position + 8)
            if trailing >= 0xDC00, trailing <= 0xDFFF,
               let scalar = Unicode.Scalar(UInt32(0x10000 + ((code - 0xD800) << 10) + (trailing - 0xDC00))) {
                Lexer.appendUTF8(scalar, to: &buffer)
                return 12
            }
        }
        throw syntaxError("Invalid Unicode escape sequence: \"\(slice(from: position, utf16Units: 6))\".", at: position)
    }

    /// Four hex digits at `offset`; negative if any is not a hex digit.
    private func read16BitHex(at offset: Int) -> Int32 {
        Lexer.hexValue(byte(offset)) << 12 | Lexer.hexValue(byte(offset + 1)) << 8
            | Lexer.hexValue(byte(offset + 2)) << 4 | Lexer.hexValue(byte(offset + 3))
    }

    private static func hexValue(_ code: UInt8) -> Int32 {
        switch code {
        case 0x30...0x39: Int32(code) - 0x30
        case 0x41...0x46: Int32(code) - 0x37
        case 0x61...0x66: Int32(code) - 0x57
        default: -1
        }
    }

    /// The scalar for `code` if it is a Unicode scalar value (not a surrogate, not negative).
    private static func scalar(_ code: Int32) -> Unicode.Scalar? {
        guard code >= 0 else { return nil }
        return Unicode.Scalar(UInt32(code))
    }

    private static func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            buffer.append(UInt8(value))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | value >> 6))
            buffer.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | value >> 12))
            buffer.append(UInt8(0x80 | (value >> 6) & 0x3F))
            buffer.append(UInt8(0x80 | value & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | value >> 18))
            buffer.append(UInt8(0x80 | (value >> 12) & 0x3F))
            buffer.append(UInt8(0x80 | (value >> 6) & 0x3F))
            buffer.append(UInt8(0x80 | value & 0x3F))
        }
    }

    /// `"""..."""`: raw text except `\"""`, lines split on any line terminator, then dedented.
    mutating func readBlockString(from start: Int) throws(GraphQLError) {
        let count = bytes.count
        var position = start + 3
        var chunkStart = position
        var currentLine: [UInt8] = []
        var lines: [[UInt8]] = []
        while position < count {
            let code = bytes[position]
            if code == 0x22, byte(position + 1) == 0x22, byte(position + 2) == 0x22 {
                currentLine.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]))
                lines.append(currentLine)
                stringValue = BlockString.dedentedValue(lines)
                setToken(.blockString, start, position + 3)
                return
            }
            if code == 0x5C, byte(position + 1) == 0x22, byte(position + 2) == 0x22, byte(position + 3) == 0x22 {
                currentLine.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]))
                chunkStart = position + 1 // keep `"""`, drop the backslash
                position += 4
                continue
            }
            if code == 0x0A || code == 0x0D {
                currentLine.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<position]))
                lines.append(currentLine)
                currentLine.removeAll(keepingCapacity: true)
                position += (code == 0x0D && byte(position + 1) == 0x0A) ? 2 : 1
                chunkStart = position
                continue
            }
            position += 1
        }
        throw syntaxError("Unterminated string.", at: position)
    }
}
