internal import CMicroHTTPD
import Support
import Synchronization

/// State of one request, from its request line to its completion.
///
/// Created (retained) in libmicrohttpd's URI callback and released in its
/// completion callback. Thread-safety, which is why this is `@unchecked Sendable`:
/// libmicrohttpd serves a connection on exactly one pool thread, so every `var`
/// below is read and written only by that thread; the handler task and the
/// deadline sweeper touch only `outcome`, which is behind its lock, and the
/// immutable `let`s.
final class RequestContext: @unchecked Sendable {
    /// Where the request is in its life.
    enum Phase { case headers, body, waiting, done }

    /// What the asynchronous side has decided, shared between threads.
    enum Outcome {
        /// Not handed to a task (still reading, or answered on the fast path).
        case idle
        /// The handler's task started on the server thread and has not suspended yet.
        case running
        /// The connection is suspended while the task works; holds the task so a deadline can cancel it.
        case suspended(Task<Void, Never>)
        /// The response to queue (at once if the handler finished while `.running`, else once resumed).
        case ready(HTTPResponse)
    }

    let connection: OpaquePointer
    let rawURI: String
    let started: ContinuousClock.Instant
    /// The state shared with the handler's task, behind its lock. Made only for a
    /// request handed to a task (`startTask()`, on the connection's thread, before
    /// the task exists); a request answered on the fast path never pays for a lock.
    /// Written once, then only read: the task sees it through its own creation, the
    /// deadline sweeper through the `pending` table's lock, completion on this thread.
    private var outcome: Locked<Outcome>?

    var phase = Phase.headers
    var method = ""
    var path = ""
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var bodyTooLarge = false
    var requestID = ""
    var remoteAddress = ""
    var status = 0
    var endLabel: String? = nil
    /// The connection's slot (its head deadline), when libmicrohttpd gave one.
    var slot: ConnectionSlot?
    /// Counted in `ServerCore.answering` (handed to the handler or given a response).
    var answered = false
    var logFields: [(name: String, value: String)] = []
    /// The response is a stream (registered in `ServerCore.streams` by the connection's slot id).
    var streaming = false

    /// Whether `handle(_:)` was started for this request (only then can it be
    /// suspended or listed as pending; completion skips both locks otherwise).
    var handedToTask: Bool { outcome != nil }

    /// Marks the request as handed to a task and makes its shared state, `.running`.
    func startTask() -> Locked<Outcome> {
        let shared = Locked<Outcome>(.running)
        outcome = shared
        return shared
    }

    init(connection: OpaquePointer, rawURI: String) {
        self.connection = connection
        self.rawURI = rawURI
        self.started = .now
    }

    /// Stores the handler's response. Returns the task to cancel when the connection
    /// was suspended and this call must resume it; `nil` otherwise (answered while
    /// still running on the server thread, or already answered by someone else).
    func settle(with response: HTTPResponse) -> Settlement {
        outcome?.withLock { state in
            switch state {
            case .running:
                state = .ready(response)
                return .stored
            case .suspended(let task):
                state = .ready(response)
                return .storedResume(task)
            case .idle, .ready:
                return .refused
            }
        } ?? .refused
    }

    /// What `settle` did with a response.
    enum Settlement {
        /// Stored; the server thread queues it (the handler finished without suspending).
        case stored
        /// Stored; the connection was suspended and must be resumed.
        case storedResume(Task<Void, Never>)
        /// Not taken: the request was already answered (deadline, shutdown, teardown).
        case refused
    }

    /// Like `settle`, but only for a suspended request (deadline, shutdown, teardown).
    func settleIfSuspended(with response: HTTPResponse) -> Task<Void, Never>? {
        outcome?.withLock { state in
            guard case .suspended(let task) = state else { return nil }
            state = .ready(response)
            return task
        }
    }

    /// Takes the response stored by `settle`, leaving `.idle`.
    func takeResponse() -> HTTPResponse? {
        outcome?.withLock { state in
            guard case .ready(let response) = state else { return nil }
            state = .idle
            return response
        }
    }
}
