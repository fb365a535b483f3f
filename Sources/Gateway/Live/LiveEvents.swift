public import Foundation
public import GraphQLHTTP
import JSON
public import Postgres
import Support

/// Subscription events for the whole instance, from PostgreSQL `NOTIFY` on the
/// `payql_events` channel (payload `<Type>:<uuid>`: `Order`, `UpiCollect`,
/// `BillPayment`; `ClientSession:<uuid>` when a session is revoked, `ApiKey:<uuid>`
/// when an API key is), so a change
/// committed by any instance reaches the subscribers of every instance.
///
/// One dedicated listening connection per instance (`PostgresListener`); after it
/// reconnects (a database restart) every open subscription is re-read once, since
/// notifications sent meanwhile are lost, and the sessions behind them are checked
/// again. Also enforces the limit of open subscriptions per credential (an API key,
/// or a client session), ends a session's subscriptions when it expires or is
/// revoked, and a key's when it is revoked.
///
/// `start()` before serving, `shutdown()` after the HTTP server stopped.
public final class LiveEvents: SubscriptionBroker {
    /// The channel every instance listens on.
    public static let channel = "payql_events"

    /// Open subscriptions a credential (API key or client session) may hold.
    public let maxPerCredential: Int
    private let pool: PostgresPool
    private let registry = Locked(LiveRegistry())
    private let listener = Locked<PostgresListener?>(nil)
    private let sweeper = Locked<Task<Void, Never>?>(nil)
    private let log: @Sendable (String) -> Void

    /// Events for subscriptions served through `pool`'s database.
    ///   - maxPerCredential: open subscriptions per API key or client session (default 100).
    ///   - log: one line per listener state change (connected, lost, reconnected).
    public init(pool: PostgresPool, maxPerCredential: Int = 100, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.pool = pool
        self.maxPerCredential = max(1, maxPerCredential)
        self.log = log
    }

    /// Starts listening (on a thread of its own) and the once-a-second expiry sweep.
    public func start() throws {
        let made = try PostgresListener(configuration: pool.configuration.connection, channels: [Self.channel]) { [weak self] event in
            self?.handle(event)
        }
        listener.withLock { $0 = made }
        made.start()
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                self?.endExpiredSessions(now: Int64(Date().timeIntervalSince1970))
            }
        }
        sweeper.withLock { $0 = task }
    }

    /// Stops listening and sweeping.
    public func shutdown() async {
        sweeper.withLock { $0 }?.cancel()
        if let listener = listener.withLock({ $0 }) { await listener.shutdown() }
    }

    /// Open subscriptions known to the broker.
    public var openCount: Int { registry.withLock { $0.count } }

    // MARK: SubscriptionBroker

    public func admit(_ subscription: LiveSubscription) throws(GraphQLHTTPError) {
        guard let context = subscription.context as? GatewayRequestContext else {
            throw GraphQLHTTPError(status: 500, code: "INTERNAL", message: "No request context.")
        }
        let principal = context.principal
        let owner = principal.session.map { "session:\($0.id.uuidString)" } ?? "key:\(principal.apiKeyID.uuidString)"
        let admitted = registry.withLock { registry in
            registry.admit(subscription.id, owner: owner, key: principal.session == nil ? principal.apiKeyID : nil, session: principal.session?.id,
                           expiresAt: principal.session?.expiresAtUnix, subscription: subscription, limit: maxPerCredential)
        }
        guard admitted else {
            throw GraphQLHTTPError(
                status: 429, code: "RATE_LIMITED",
                message: "Too many open subscriptions for this \(principal.session == nil ? "API key" : "client session") (at most \(maxPerCredential)); close one first.",
                extensions: ["limit": .int(Int64(maxPerCredential))])
        }
    }

    public func watch(_ topic: String, for subscription: LiveSubscription) {
        registry.withLock { $0.watch(topic, id: subscription.id) }
    }

    public func remove(_ subscription: LiveSubscription) {
        registry.withLock { $0.remove(subscription.id) }
    }

    // MARK: Events

    private func handle(_ event: PostgresListener.Event) {
        switch event {
        case .notification(_, let payload):
            if payload.hasPrefix("ClientSession:") {
                guard let id = UUID(uuidString: String(payload.dropFirst("ClientSession:".count))) else { return }
                let ended = registry.withLock { $0.subscriptions(ofSession: id) }
                for subscription in ended { subscription.end(error: Self.sessionEnded) }
                return
            }
            if payload.hasPrefix("ApiKey:") {
                guard let id = UUID(uuidString: String(payload.dropFirst("ApiKey:".count))) else { return }
                let ended = registry.withLock { $0.subscriptions(ofKey: id) }
                for subscription in ended { subscription.end(error: Self.keyRevoked) }
                return
            }
            let targets = registry.withLock { $0.subscriptions(watching: payload) }
            for subscription in targets { subscription.changed() }
        case .connected(let reconnected):
            log(reconnected ? "listening for live events again (re-reading open subscriptions)" : "listening for live events")
            guard reconnected else { return }
            let all = registry.withLock { $0.all }
            for subscription in all { subscription.changed() }
            Task { await self.endRevokedCredentials() }
        case .disconnected(let reason, let retryIn):
            log("live events connection lost (\(reason)); retrying in \(retryIn)")
        }
    }

    /// The error a session's subscriptions end with.
    static let sessionEnded = GraphQLHTTPError(
        status: 401, code: "UNAUTHENTICATED", message: "The client session expired or was revoked; subscribe again with a new one.")

    /// The error a revoked key's subscriptions end with.
    static let keyRevoked = GraphQLHTTPError(
        status: 401, code: "UNAUTHENTICATED", message: "The API key was revoked; subscribe again with a working one.")

    private func endExpiredSessions(now: Int64) {
        let expired = registry.withLock { $0.expired(now: now) }
        for subscription in expired { subscription.end(error: Self.sessionEnded) }
    }

    /// After a reconnect: revocations notified while the listener was away were missed.
    private func endRevokedCredentials() async {
        let (sessions, keys) = registry.withLock { ($0.sessionIDs, $0.keyIDs) }
        if !sessions.isEmpty, let rows = try? await pool.query("""
            SELECT id::text FROM client_sessions
            WHERE id = ANY(\(sessions.map { $0.uuidString })::uuid[]) AND (revoked_at IS NOT NULL OR expires_at <= now())
            """), let revoked = try? rows.decode(String.self) {
            for id in revoked.compactMap(UUID.init(uuidString:)) {
                let ended = registry.withLock { $0.subscriptions(ofSession: id) }
                for subscription in ended { subscription.end(error: Self.sessionEnded) }
            }
        }
        if !keys.isEmpty, let rows = try? await pool.query("""
            SELECT id::text FROM api_keys WHERE id = ANY(\(keys.map { $0.uuidString })::uuid[]) AND revoked_at IS NOT NULL
            """), let revoked = try? rows.decode(String.self) {
            for id in revoked.compactMap(UUID.init(uuidString:)) {
                let ended = registry.withLock { $0.subscriptions(ofKey: id) }
                for subscription in ended { subscription.end(error: Self.keyRevoked) }
            }
        }
    }
}

/// Who watches what: a plain value behind `LiveEvents`' lock.
struct LiveRegistry {
    private struct Entry {
        let subscription: LiveSubscription
        let owner: String
        /// The API key holding it (nil for a client session's).
        let key: UUID?
        let session: UUID?
        let expiresAt: Int64?
        var topics: [String] = []
    }

    private var entries: [UInt64: Entry] = [:]
    private var byTopic: [String: Set<UInt64>] = [:]
    private var perOwner: [String: Int] = [:]

    var count: Int { entries.count }
    var all: [LiveSubscription] { entries.values.map(\.subscription) }
    var sessionIDs: [UUID] { Array(Set(entries.values.compactMap(\.session))) }
    var keyIDs: [UUID] { Array(Set(entries.values.compactMap(\.key))) }

    /// Records a subscription unless its owner already holds `limit`.
    mutating func admit(_ id: UInt64, owner: String, key: UUID?, session: UUID?, expiresAt: Int64?, subscription: LiveSubscription,
                        limit: Int) -> Bool {
        guard perOwner[owner, default: 0] < limit else { return false }
        perOwner[owner, default: 0] += 1
        entries[id] = Entry(subscription: subscription, owner: owner, key: key, session: session, expiresAt: expiresAt)
        return true
    }

    mutating func watch(_ topic: String, id: UInt64) {
        guard entries[id] != nil else { return }
        entries[id]?.topics.append(topic)
        byTopic[topic, default: []].insert(id)
    }

    mutating func remove(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        for topic in entry.topics {
            byTopic[topic]?.remove(id)
            if byTopic[topic]?.isEmpty == true { byTopic[topic] = nil }
        }
        perOwner[entry.owner, default: 1] -= 1
        if perOwner[entry.owner] == 0 { perOwner[entry.owner] = nil }
    }

    func subscriptions(watching topic: String) -> [LiveSubscription] {
        (byTopic[topic] ?? []).compactMap { entries[$0]?.subscription }
    }

    func subscriptions(ofSession session: UUID) -> [LiveSubscription] {
        entries.values.filter { $0.session == session }.map(\.subscription)
    }

    func subscriptions(ofKey key: UUID) -> [LiveSubscription] {
        entries.values.filter { $0.key == key }.map(\.subscription)
    }

    func expired(now: Int64) -> [LiveSubscription] {
        entries.values.filter { entry in entry.expiresAt.map { $0 <= now } ?? false }.map(\.subscription)
    }
}
