// Block strings: the dedent applied when reading and the form used when printing
// (graphql-js 16's `dedentBlockStringLines` and `printBlockString`).

enum BlockString {
    /// Space or horizontal tab.
    @inline(__always)
    static func isWhiteSpace(_ code: UInt8) -> Bool { code == 0x20 || code == 0x09 }

    /// The value of a block string from its raw lines: the common indentation
    /// of all lines but the first removed, then leading and trailing blank lines
    /// dropped, joined with `\n`.
    static func dedentedValue(_ lines: [[UInt8]]) -> String {
        var commonIndent = Int.max
        var firstNonEmpty: Int?
        var lastNonEmpty = -1
        for (index, line) in lines.enumerated() {
            var indent = 0
            while indent < line.count, isWhiteSpace(line[indent]) { indent += 1 }
            if indent == line.count { continue }
            if firstNonEmpty == nil { firstNonEmpty = index }
            lastNonEmpty = index
            if index != 0, indent < commonIndent { commonIndent = indent }
        }
        guard let first = firstNonEmpty else { return "" }
        var result: [UInt8] = []
        for index in first...lastNonEmpty {
            if index != first { result.append(0x0A) }
            let line = lines[index]
            if index == 0 {
                result.append(contentsOf: line)
            } else {
                // Only white space is cut: a line shorter than the indent is blank.
                result.append(contentsOf: line.dropFirst(min(commonIndent, line.count)))
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `value` printed as a block string, exactly as graphql-js prints it.
    static func print(_ value: String) -> String {
        let escaped = value.contains("\"\"\"") ? replacingTripleQuotes(value) : value
        let lines = splitLines(escaped)
        let isSingleLine = lines.count == 1
        let forceLeadingNewLine = lines.count > 1
            && lines.dropFirst().allSatisfy { $0.isEmpty || isWhiteSpace($0[$0.startIndex]) }
        let hasTrailingTripleQuotes = escaped.hasSuffix("\\\"\"\"")
        let hasTrailingQuote = value.hasSuffix("\"") && !hasTrailingTripleQuotes
        let hasTrailingSlash = value.hasSuffix("\\")
        let forceTrailingNewline = hasTrailingQuote || hasTrailingSlash
        let printAsMultipleLines = !isSingleLine || value.utf16.count > 70 || forceTrailingNewline
            || forceLeadingNewLine || hasTrailingTripleQuotes
        var result = "\"\"\""
        let skipLeadingNewLine = isSingleLine && value.utf8.first.map(isWhiteSpace) == true
        if (printAsMultipleLines && !skipLeadingNewLine) || forceLeadingNewLine {
            result += "\n"
        }
        result += escaped
        if printAsMultipleLines || forceTrailingNewline {
            result += "\n"
        }
        return result + "\"\"\""
    }

    /// `"""` → `\"""` everywhere (left to right, non-overlapping, as JS `replace(/"""/g)`).
    private static func replacingTripleQuotes(_ value: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(value.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x22, index + 2 < bytes.count, bytes[index + 1] == 0x22, bytes[index + 2] == 0x22 {
                out.append(contentsOf: [0x5C, 0x22, 0x22, 0x22])
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lines of `value` split on `\r\n`, `\n` or `\r`, as UTF-8 slices.
    private static func splitLines(_ value: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(value.utf8)
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let code = bytes[index]
            if code == 0x0A || code == 0x0D {
                lines.append(bytes[lineStart..<index])
                index += (code == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A) ? 2 : 1
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.count])
        return lines
    }
}
