import Crypto
import JSON
import Synchronization

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
/// Automatic entries are bounded by `capacity` (the oldest automatic entry is
/// dropped first); registered (allow-listed) documents are never dropped.
public final class PersistedQueryStore: Sendable {
    /// The mode requests are resolved under.
    public let mode: PersistedQueryMode
    /// Most automatic entries kept.
    public let capacity: Int
    private let state: Mutex<State>

    private struct State {
        var registered: [String: String] = [:]
        var automatic: [String: String] = [:]
        var order: [String] = []
        var head = 0
    }

    /// A store in `mode` holding at most `capacity` automatic entries.
    public init(mode: PersistedQueryMode, capacity: Int = 10_000) {
        self.mode = mode
        self.capacity = max(1, capacity)
        self.state = Mutex(State())
    }

    /// The hash under which `document` is known.
    public static func hash(_ document: String) -> String { Encoding.hex(Crypto.sha256(document)) }

    /// Registers a trusted document; returns its hash.
    @discardableResult
    public func register(_ document: String) -> String {
        let hash = Self.hash(document)
        state.withLock { $0.registered[hash] = document }
        return hash
    }

    /// Number of registered and automatic documents.
    public var count: (registered: Int, automatic: Int) {
        state.withLock { ($0.registered.count, $0.automatic.count) }
    }

    /// The document for `hash`, if known.
    public func document(forHash hash: String) -> String? {
        state.withLock { $0.registered[hash] ?? $0.automatic[hash] }
    }

    private func isRegistered(_ hash: String) -> Bool { state.withLock { $0.registered[hash] != nil } }

    private func storeAutomatic(_ hash: String, _ document: String) {
        state.withLock { state in
            guard state.registered[hash] == nil, state.automatic[hash] == nil else { return }
            if state.automatic.count >= capacity, !state.order.isEmpty {
                let evicted = state.order[state.head]
                state.automatic[evicted] = nil
                state.order[state.head] = hash
                state.head = (state.head + 1) % state.order.count
            } else {
                state.order.append(hash)
            }
            state.automatic[hash] = document
        }
    }

    /// The document text a request asks to run, or the error to answer with.
    /// `requestError` errors are GraphQL request errors (status by media type);
    /// the others are HTTP-level (always 400).
    public func resolve(_ parameters: GraphQLRequestParameters) throws(PersistedQueryFailure) -> String {
        guard let persisted = parameters.extensions["persistedQuery"], !persisted.isNull else {
            guard let query = parameters.query else {
                throw .http(GraphQLHTTPError(status: 400, code: "BAD_REQUEST", message: "Missing the \"query\" parameter."))
            }
            if mode == .allowList, !isRegistered(Self.hash(query)) { throw .request(Self.notAllowed) }
            return query
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
            case .automatic: storeAutomatic(hash, query)
            case .disabled: break
            }
            return query
        }
        if let document = document(forHash: hash) { return document }
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

/// Why `PersistedQueryStore.resolve` refused a request.
public enum PersistedQueryFailure: Error, Sendable {
    /// A GraphQL request error: 200 under `application/json`, 400 under `graphql-response+json`.
    case request(GraphQLHTTPError)
    /// An HTTP-level error: always its own status.
    case http(GraphQLHTTPError)
}
