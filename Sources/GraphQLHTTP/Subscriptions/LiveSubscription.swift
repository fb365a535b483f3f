import HTTPServer
import JSON
import Support
import Synchronization

/// Where a subscription's events come from: implemented by the application (the
/// Gateway listens to PostgreSQL `NOTIFY`), used by `GraphQLHTTPHandler` for every
/// subscription served over Server-Sent Events.
///
/// A subscription's operation is executed once when it starts and again after each
/// event on a topic its root resolver asked to watch (`LiveSubscription.watch`),
/// so every result is read fresh with the operation's own selection set and the
/// caller's own permissions. The broker only says *when*.
public protocol SubscriptionBroker: Sendable {
    /// Admits a new subscription of the caller in `subscription.context`, before its
    /// first execution; throwing refuses it with that error's status (e.g. 429 when
    /// the caller already has too many open).
    func admit(_ subscription: LiveSubscription) throws(GraphQLHTTPError)
    /// From now on, calls `subscription.changed()` after each event on `topic`.
    /// Called by resolvers (through `LiveSubscription.watch`) before they read.
    func watch(_ topic: String, for subscription: LiveSubscription)
    /// Forgets an ended subscription (its stream closed); called once per admitted one.
    func remove(_ subscription: LiveSubscription)
}

/// One open subscription served over Server-Sent Events: what its root resolver
/// receives as `source`, and what the broker signals.
///
/// Holds no task or thread while it waits: an event starts one execution (several
/// events during a running execution coalesce into one more), and its result is
/// written to the connection's bounded stream.
public final class LiveSubscription: Sendable {
    /// Unique in the process.
    public let id: UInt64
    /// The caller's resolver context (the broker reads who is calling from it).
    public let context: any Sendable
    /// The root fields the operation selects.
    public let rootFields: [String]
    let stream: HTTPResponseStream
    private let state = Locked<State>(State())
    private let runner: @Sendable (LiveSubscription) async -> Void
    private let watcher: Locked<(@Sendable (String, LiveSubscription) -> Void)?>

    private struct State {
        var topics: [String] = []
        /// An execution is running (the first one from the start), or about to.
        var running = true
        var rerun = false
        var completeRequested = false
        var ended = false
        /// Results written so far.
        var results = 0
    }

    private static let counter = Atomic<UInt64>(0)

    init(context: any Sendable, rootFields: [String], stream: HTTPResponseStream,
         runner: @escaping @Sendable (LiveSubscription) async -> Void) {
        self.id = Self.counter.add(1, ordering: .relaxed).newValue
        self.context = context
        self.rootFields = rootFields
        self.stream = stream
        self.runner = runner
        self.watcher = Locked(nil)
    }

    /// For resolvers: re-run this subscription after every event on `topic` (e.g.
    /// `Order:<uuid>`). Call it before reading the object, so that no change made
    /// meanwhile is missed.
    public func watch(_ topic: String) {
        let isNew = state.withLock { state -> Bool in
            guard !state.ended, !state.topics.contains(topic) else { return false }
            state.topics.append(topic)
            return true
        }
        guard isNew, let watcher = watcher.withLock({ $0 }) else { return }
        watcher(topic, self)
    }

    /// For resolvers: the object reached a final state; end the stream (`complete`)
    /// after this result.
    public func completeAfterThisResult() {
        state.withLock { $0.completeRequested = true }
    }

    /// The topics watched so far.
    public var topics: [String] { state.withLock { $0.topics } }

    /// For the broker: something the subscription watches changed; execute it again.
    public func changed() {
        let start = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            if state.running {
                state.rerun = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        Task { await self.runUntilSettled() }
    }

    /// For the broker: end the subscription now, with a last `next` carrying `error`
    /// (e.g. the session expired) when given, then `complete`.
    public func end(error: GraphQLHTTPError?) {
        guard markEnded() else { return }
        if let error { stream.write(EventStreamFormat.next(EventStreamFormat.errorsBody([error.errorJSON]))) }
        stream.write(EventStreamFormat.complete)
        stream.finish()
    }

    /// Whether the subscription has ended (completed, closed or dropped).
    public var isEnded: Bool { state.withLock { $0.ended } }

    // MARK: Handler side

    func setWatcher(_ handler: @escaping @Sendable (String, LiveSubscription) -> Void) {
        watcher.withLock { $0 = handler }
    }

    /// Marks the subscription ended; false if it already was.
    func markEnded() -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.ended = true
            return true
        }
    }

    /// Counts a result written; true for the first one.
    func countResult() -> Bool {
        state.withLock { state in
            state.results += 1
            return state.results == 1
        }
    }

    /// Takes the "complete after this result" request.
    func takeCompleteRequest() -> Bool {
        state.withLock { state in
            defer { state.completeRequested = false }
            return state.completeRequested
        }
    }

    /// Runs the first execution (in the caller's task); events that arrive meanwhile
    /// start one more execution afterwards, in a task of its own.
    func runFirst() async {
        await runner(self)
        if settleAfterRun() { Task { await self.runUntilSettled() } }
    }

    private func runUntilSettled() async {
        repeat {
            await runner(self)
        } while settleAfterRun()
    }

    /// After an execution: whether another one is due (an event arrived meanwhile).
    private func settleAfterRun() -> Bool {
        state.withLock { state -> Bool in
            if state.rerun, !state.ended {
                state.rerun = false
                return true
            }
            state.running = false
            state.rerun = false
            return false
        }
    }
}

/// The bytes of the GraphQL-over-SSE events (distinct connections mode).
enum EventStreamFormat {
    /// `event: next` with one execution result (compact JSON: never a line break inside).
    static func next(_ json: [UInt8]) -> [UInt8] {
        var bytes = Array("event: next\ndata: ".utf8)
        bytes.reserveCapacity(bytes.count + json.count + 2)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }

    /// `event: complete`: the operation is over.
    static let complete: [UInt8] = Array("event: complete\ndata:\n\n".utf8)

    /// A comment line: keeps proxies and the server's idle timeout from closing a quiet
    /// stream, and lets a write find a client that left. Ignored by every SSE reader.
    static let heartbeat: [UInt8] = Array(":\n\n".utf8)

    /// `{"errors":[...]}`.
    static func errorsBody(_ errors: [JSONValue]) -> [UInt8] {
        JSONWriter.write(["errors": .array(errors)])
    }
}
