// Source text and the line:column of a byte offset in it.

/// The text of a GraphQL document, kept with the parsed tree so that any
/// node's `Location` can be turned into a line and column for an error.
public struct Source: Sendable, Hashable {
    /// The document's text.
    public var body: String
    /// A label for diagnostics (a file name, or "GraphQL request").
    public var name: String

    public init(body: String, name: String = "GraphQL request") {
        self.body = body
        self.name = name
    }

    /// The 1-based line and column of the byte at `offset` of `body`'s UTF-8.
    ///
    /// Lines end at `\n`, `\r\n` or `\r`; columns count UTF-16 code units, as
    /// graphql-js counts them (a character outside the BMP counts 2). An
    /// offset past the end is clamped to the end. Cost: O(offset).
    public func location(at offset: Int) -> SourceLocation {
        var utf8 = body.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ Source.location(at: offset, in: $0) }) {
            return result
        }
        var copy = body
        copy.makeContiguousUTF8()
        utf8 = copy.utf8
        return utf8.withContiguousStorageIfAvailable { Source.location(at: offset, in: $0) }
            ?? SourceLocation(line: 1, column: 1)
    }

    /// Locations of several offsets (e.g. of one error's nodes).
    public func locations(at offsets: [Int]) -> [SourceLocation] {
        offsets.map { location(at: $0) }
    }

    /// Line and UTF-16 column of `offset` in `bytes` (shared with the parser's errors).
    static func location(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourceLocation {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                lineStart = index + 1
            } else if byte == 0x0D {
                // `\r\n` is one line break.
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var column = 1
        var position = lineStart
        while position < end {
            let byte = bytes[position]
            if byte & 0xC0 != 0x80 {
                // A lead byte: a 4-byte sequence is a surrogate pair in UTF-16.
                column += byte >= 0xF0 ? 2 : 1
            }
            position += 1
        }
        return SourceLocation(line: line, column: column)
    }
}

/// A 1-based line and column, as in a GraphQL response's `locations`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    /// Counted in UTF-16 code units, as graphql-js counts.
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}
