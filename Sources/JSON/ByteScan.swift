/// Word-at-a-time tests on eight bytes (SWAR): whether any byte of a word needs
/// the slow, byte-by-byte path of the parser or the writer. Each test may only
/// say "yes" for a word that truly holds such a byte; which byte is left to the
/// byte loop.
enum ByteScan {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether a byte of `word` is zero.
    @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    /// Whether a byte of `word` is `"`, `\` or a control character (below 0x20):
    /// the bytes a JSON string cannot hold as they are.
    @inline(__always)
    static func hasStringSpecial(_ word: UInt64) -> Bool {
        // A byte below 0x20 borrows when 0x20 is subtracted and had its high bit clear.
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return control != 0 || hasZeroByte(quote) || hasZeroByte(backslash)
    }

    /// Whether a byte of `word` is not ASCII.
    @inline(__always)
    static func hasNonASCII(_ word: UInt64) -> Bool { word & highs != 0 }

    /// Loads eight bytes at `offset` (no alignment needed).
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        // Callers check offset + 8 <= bytes.count, so the buffer has a base address; checked all the same
        // (one predictable branch: a wrong caller stops with a message instead of reading at address `offset`).
        guard let base = bytes.baseAddress else { preconditionFailure("word(_:at:) on an empty buffer") }
        return UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
    }

    /// Whether `byte` cannot appear unescaped in a JSON string.
    @inline(__always)
    static func isStringSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }
}
