/// Bounds on what the parser accepts, enforced while parsing so hostile
/// documents are rejected before any validation or execution sees them.
///
/// Defaults suit client requests. A schema file loaded by the server may
/// need `.sdl` (larger size and token count, same nesting bound).
public struct ParserLimits: Sendable, Hashable {
    /// Largest accepted document, in UTF-8 bytes. Default 1 MiB.
    public var maxBytes: Int
    /// Most tokens (punctuators, names, values; not comments) in a document. Default 15,000.
    public var maxTokens: Int
    /// Deepest nesting of selection sets, list/object values and list types
    /// (each counts one level). Default 128. Bounds the parser's recursion,
    /// and so that of every later pass over the tree.
    public var maxDepth: Int

    public init(maxBytes: Int = 1 << 20, maxTokens: Int = 15_000, maxDepth: Int = 128) {
        self.maxBytes = maxBytes
        self.maxTokens = maxTokens
        self.maxDepth = maxDepth
    }

    /// For trusted schema files: 16 MiB, 4,000,000 tokens, depth 128.
    public static let sdl = ParserLimits(maxBytes: 16 << 20, maxTokens: 4_000_000, maxDepth: 128)
}
