extension StringProtocol where UTF8View: BidirectionalCollection {
    /// The text without leading and trailing spaces and horizontal tabs (HTTP's
    /// optional whitespace, RFC 9110 §5.6.3); other whitespace is kept.
    public func trimmingSpaces() -> String { String(trimmedOfSpaces()) }

    /// Like ``trimmingSpaces()`` without copying: a slice of the text. Scans UTF-8
    /// bytes (spaces and tabs are ASCII), not characters: it sits on the request path.
    public func trimmedOfSpaces() -> SubSequence {
        let bytes = utf8
        let isText: (UInt8) -> Bool = { $0 != 0x20 && $0 != 0x09 }
        guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else {
            return self[endIndex...]
        }
        return self[first..<bytes.index(after: last)]
    }
}
