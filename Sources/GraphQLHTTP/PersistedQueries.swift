import Crypto
import JSON
import Support

/// How the server treats persisted queries.
public enum PersistedQueryMode: String, Sendable, CaseIterable {
    /// `extensions.persistedQuery` is refused with `PERSISTED_QUERY_NOT_SUPPORTED`.
    case disabled
    /// Apollo's automatic persisted queries: a hash alone runs the stored
    /// document; hash plus query stores it (after checking the hash).
    case automatic
    /// Trusted documents: only documents registered at start run, whether
    /// sent by hash or in full. Everything else gets `OPERATION_NOT_ALLOWLISTED`.
    case allowList = "allow-list"
}

/// Documents by the lowercase hex SHA-256 of their exact text.
///
/// Automatic entries are bounded twice, by `capacity` entries and by `maxBytes`
/// of text (each entry counts its text, its hash and ``entryOverhead``); the
/// oldest automatic entries are dropped first. An automatic entry is stored only
/// once its text has parsed, validated and passed the operation limits (the
/// handler calls ``store(_:)`` then), so garbage sent with a matching hash costs
/// nothing after its request. Registered (allow-listed) documents are never dropped.
public final class PersistedQueryStore: Sendable {
    /// The mode requests are resolved under.
    public let mode: PersistedQueryMode
    /// Most automatic entries kept.
    public let capacity: Int
    /// Most bytes of automatic entries kept (text + hash + ``entryOverhead`` each).
    public let maxBytes: Int
    private let state: Locked<State>

    /// Bytes each automatic entry is counted for beyond its text and hash (dictionary
    /// slot, order slot, string headers).
    public static let entryOverhead = 128
    /// Default byte bound of automatic entries: 32 MiB.
    public static let defaultMaxBytes = 32 << 20

    private struct State {
        var registered: [String: String] = [:]
        var registeredBytes = 0
        var automatic: [String: String] = [:]
        var automaticBytes = 0
        /// Automatic hashes, oldest first from `head` (entries before it are dropped).
        var order: [String] = []
        var head = 0
    }

    /// A store in `mode` holding at most `capacity` automatic entries and `maxBytes` of them.
    public init(mode: PersistedQueryMode, capacity: Int = 10_000, maxBytes: Int = PersistedQueryStore.defaultMaxBytes) {
        self.mode = mode
        self.capacity = max(1, capacity)
        self.maxBytes = max(0, maxBytes)
        self.state = Locked(State())
    }

    /// The hash under which `document` is known.
    public static func hash(_ document: String) -> String { Encoding.hex(Crypto.sha256(document)) }

    /// Bytes an entry for `document` is counted for.
    static func cost(_ document: String) -> Int { document.utf8.count + 64 + entryOverhead }

    /// Registers a trusted document; returns its hash.
    @discardableResult
    public func register(_ document: String) -> String {
        let hash = Self.hash(document)
        state.withLock { state in
            if state.registered.updateValue(document, forKey: hash) == nil { state.registeredBytes += Self.cost(document) }
        }
        return hash
    }

    /// Number of registered and automatic documents.
    public var count: (registered: Int, automatic: Int) {
        state.withLock { ($0.registered.count, $0.automatic.count) }
    }

    /// Bytes counted for registered and automatic documents (automatic at most ``maxBytes``).
    public var bytes: (registered: Int, automatic: Int) {
        state.withLock { ($0.registeredBytes, $0.automaticBytes) }
    }

    /// The document for `hash`, if known.
    public func document(forHash hash: String) -> String? {
        state.withLock { $0.registered[hash] ?? $0.automatic[hash] }
    }

    private func isRegistered(_ hash: String) -> Bool { state.withLock { $0.registered[hash] != nil } }

    /// Stores an automatic entry the request offered (``PersistedQueryResolution/offered``),
    /// to be called once its text parsed, validated and passed the limits. A text that
    /// alone exceeds ``maxBytes`` is not stored.
    public func store(_ offered: PersistedQueryResolution.Offer) {
        guard mode == .automatic else { return }
        let cost = Self.cost(offered.text)
        guard cost <= maxBytes else { return }
        state.withLock { state in
            guard state.registered[offered.hash] == nil, state.automatic[offered.hash] == nil else { return }
            while state.head < state.order.count,
                  state.automatic.count >= capacity || state.automaticBytes + cost > maxBytes {
                let evicted = state.order[state.head]
                state.head += 1
                if let text = state.automatic.removeValue(forKey: evicted) { state.automaticBytes -= Self.cost(text) }
            }
            if state.head > 64, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.order.append(offered.hash)
            state.automatic[offered.hash] = offered.text
            state.automaticBytes += cost
        }
    }

    /// The document text a request asks to run, or the error to answer with.
    /// `requestError` errors are GraphQL request errors (status by media type);
    /// the others are HTTP-level (always 400).
    public func resolve(_ parameters: GraphQLRequestParameters) throws(PersistedQueryFailure) -> PersistedQueryResolution {
        guard let persisted = parameters.extensions["persistedQuery"], !persisted.isNull else {
            guard let query = parameters.query else {
                throw .http(GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "Missing the \"query\" parameter."))
            }
            if mode == .allowList, !isRegistered(Self.hash(query)) { throw .request(Self.notAllowed) }
            return PersistedQueryResolution(text: query)
        }
        guard mode != .disabled else {
            throw .request(GraphQLHTTPError(status: 400, code: "PERSISTED_QUERY_NOT_SUPPORTED", message: "PersistedQueryNotSupported"))
        }
        guard case .object(let object) = persisted, object["version"] == .int(1),
              case .string(let hash)? = object["sha256Hash"], Self.isHash(hash) else {
            throw .http(GraphQLHTTPError(
                status: 400, code: "BAD_REQUEST",
                message: "extensions.persistedQuery must be {\"version\": 1, \"sha256Hash\": <64 lowercase hex digits>}."
            ))
        }
        if let query = parameters.query {
            guard Self.hash(query) == hash else {
                throw .http(GraphQLHTTPError(status: 400, code: "PERSISTED_QUERY_HASH_MISMATCH", message: "provided sha does not match query"))
            }
            switch mode {
            case .allowList: if !isRegistered(hash) { throw .request(Self.notAllowed) }
            case .automatic: return PersistedQueryResolution(text: query, offered: .init(hash: hash, text: query))
            case .disabled: break
            }
            return PersistedQueryResolution(text: query)
        }
        if let document = document(forHash: hash) { return PersistedQueryResolution(text: document) }
        if mode == .allowList { throw .request(Self.notAllowed) }
        throw .request(GraphQLHTTPError(status: 400, code: "PERSISTED_QUERY_NOT_FOUND", message: "PersistedQueryNotFound"))
    }

    private static let notAllowed = GraphQLHTTPError(
        status: 400, code: "OPERATION_NOT_ALLOWLISTED",
        message: "Only registered (persisted) operations may run on this server."
    )

    private static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// The document a request runs, and the automatic entry it offers to store.
public struct PersistedQueryResolution: Sendable {
    /// A hash and the text it was checked against, to store once the text proved valid.
    public struct Offer: Sendable {
        /// The lowercase hex SHA-256 of `text`.
        public let hash: String
        /// The document text.
        public let text: String

        /// An offer; `hash` must be the hash of `text` (``PersistedQueryStore/resolve(_:)`` checked it).
        package init(hash: String, text: String) {
            self.hash = hash
            self.text = text
        }
    }

    /// The document text to run.
    public var text: String
    /// Set when the request sent both a hash and its text in automatic mode:
    /// pass it to ``PersistedQueryStore/store(_:)`` after the document validated.
    public var offered: Offer?

    init(text: String, offered: Offer? = nil) {
        self.text = text
        self.offered = offered
    }
}

/// Why `PersistedQueryStore.resolve` refused a request.
public enum PersistedQueryFailure: Error, Sendable {
    /// A GraphQL request error: 200 under `application/json`, 400 under `graphql-response+json`.
    case request(GraphQLHTTPError)
    /// An HTTP-level error: always its own status.
    case http(GraphQLHTTPError)
}
