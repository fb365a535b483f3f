public import GraphQL

/// How GraphQL is served over HTTP. Every field has a documented default.
public struct GraphQLHTTPConfiguration: Sendable {
    /// Where GraphQL is served. Default `/graphql`.
    public var path: String
    /// Introspection allowed in full. When `false`, operations selecting
    /// `__schema` are refused (`INTROSPECTION_DISABLED`) while `__type` keeps
    /// working, and "Did you mean" suggestions are removed from errors. Default `true`.
    public var introspection: Bool
    /// Persisted queries: `disabled`, `automatic` (Apollo APQ) or `allow-list`. Default `automatic`.
    public var persistedQueries: PersistedQueryMode
    /// Automatic persisted queries kept. Default 10 000.
    public var persistedQueryCapacity: Int
    /// Bytes of automatic persisted queries kept (text + hash + 128 each). Default 32 MiB.
    public var persistedQueryMaxBytes: Int
    /// Depth, alias, root-field and cost limits. Default `OperationLimits()`.
    public var operationLimits: OperationLimits
    /// Token, depth and size limits of the GraphQL parser. Default `ParserLimits()`.
    public var parserLimits: ParserLimits
    /// Parsed-and-validated documents kept. Default 1000.
    public var documentCacheCapacity: Int
    /// Estimated bytes of the document cache: texts, syntax trees, errors and cached
    /// execution plans (see `DocumentCache`). Default 64 MiB.
    public var documentCacheMaxBytes: Int
    /// The SDL served at `GET /schema.graphql`; `nil` serves the schema as printed by the engine. Default `nil`.
    public var schemaSDL: String?
    /// Subscriptions over Server-Sent Events: heartbeat interval and per-subscriber buffer.
    public var eventStreams = EventStreamConfiguration()

    /// A configuration with the documented defaults, each overridable.
    public init(
        path: String = "/graphql", introspection: Bool = true, persistedQueries: PersistedQueryMode = .automatic,
        persistedQueryCapacity: Int = 10_000, persistedQueryMaxBytes: Int = PersistedQueryStore.defaultMaxBytes,
        operationLimits: OperationLimits = .init(), parserLimits: ParserLimits = .init(), documentCacheCapacity: Int = 1000,
        documentCacheMaxBytes: Int = DocumentCache.defaultMaxBytes, schemaSDL: String? = nil
    ) {
        self.path = path
        self.introspection = introspection
        self.persistedQueries = persistedQueries
        self.persistedQueryCapacity = persistedQueryCapacity
        self.persistedQueryMaxBytes = persistedQueryMaxBytes
        self.operationLimits = operationLimits
        self.parserLimits = parserLimits
        self.documentCacheCapacity = documentCacheCapacity
        self.documentCacheMaxBytes = documentCacheMaxBytes
        self.schemaSDL = schemaSDL
    }
}

/// How subscriptions are streamed (GraphQL over Server-Sent Events).
public struct EventStreamConfiguration: Sendable {
    /// How often an open stream gets a comment line (`:`), so that proxies and the
    /// server's idle timeout keep it open and a client that left is noticed by a
    /// failing write. Keep it below the server's idle timeout. Default 10 s.
    public var heartbeatInterval: Duration = .seconds(10)
    /// Bytes kept for one subscriber that does not read; past this it is dropped
    /// (its connection closed) instead of growing memory. Default 256 KiB.
    public var maxBufferedBytes: Int = 256 << 10

    /// The documented defaults.
    public init(heartbeatInterval: Duration = .seconds(10), maxBufferedBytes: Int = 256 << 10) {
        self.heartbeatInterval = heartbeatInterval
        self.maxBufferedBytes = maxBufferedBytes
    }
}

/// One dependency that `/readyz` asks; `check` returns `nil` when ready, else why not.
public struct ReadinessCheck: Sendable {
    /// Short name shown in the `/readyz` body (e.g. `postgres`).
    public var name: String
    /// `nil` when ready, else a reason fit to show (no secrets).
    public var check: @Sendable () async -> String?

    /// A named check.
    public init(name: String, check: @escaping @Sendable () async -> String?) {
        self.name = name
        self.check = check
    }
}
