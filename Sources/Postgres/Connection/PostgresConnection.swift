internal import CLibPQ
import Foundation
import Support
import Synchronization

/// One connection to PostgreSQL over libpq, in pipeline mode and non-blocking.
///
/// Any number of tasks may send statements at once: each statement goes out
/// with a sync point of its own (so one failing statement never affects
/// another; `pool.query`'s statements may share one, see `pump`), and results
/// come back in order through the `PostgresEventLoop` thread that watches the
/// connection (`loop`). Statements are prepared once per connection and cached
/// by SQL text and parameter types.
///
/// Usually obtained from `PostgresPool.withConnection`; transactions need the
/// exclusive use that gives.
///
/// `@unchecked Sendable` (for the `PGconn` and `PGcancel` pointers): every use of
/// the `PGconn` is inside `locked.withLock`, and the mutable state lives in
/// `locked`, reachable only under its lock (request ids and the
/// `closedFlag`/`needsFlushFlag` mirrors are `Atomic`s, written under it);
/// `PQcancel` on `cancelHandle` is documented thread-safe; `conn`, `cancelHandle`,
/// `socket`, `configuration` and `loop` are immutable after `init`; `deinit` runs when no thread can reach it.
public final class PostgresConnection: @unchecked Sendable {
    let conn: OpaquePointer
    let cancelHandle: OpaquePointer?
    /// The socket the event loop polls.
    let socket: Int32
    let configuration: PostgresConfiguration
    /// The I/O loop that watches the socket and reads the results.
    let loop: PostgresEventLoop
    /// The server process id (`pg_backend_pid()`).
    public let backendPID: Int32

    /// The connection's mutable state; the lock also serialises every use of `conn`.
    let locked: Locked<ConnectionState>
    /// Request ids (lock-free: taken before the request exists, for its cancellation handler).
    private let lastRequestID = Atomic<UInt64>(0)
    /// Mirrors `state.pipeline.closedError != nil`, read without the lock (set once, under it, by `fail`).
    let closedFlag = Atomic<Bool>(false)
    /// Mirrors `state.needsFlush`, read by the event loop without the lock each time it polls.
    let needsFlushFlag = Atomic<Bool>(false)

    private init(conn: OpaquePointer, configuration: PostgresConfiguration, loop: PostgresEventLoop) {
        self.conn = conn
        self.configuration = configuration
        self.loop = loop
        socket = PQsocket(conn)
        cancelHandle = PQgetCancel(conn)
        backendPID = PQbackendPID(conn)
        locked = Locked(ConnectionState(preparedStatementCacheSize: configuration.preparedStatementCacheSize))
    }

    deinit {
        // Results still held by requests are freed by their owners (`PostgresResultStorage`).
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        PQfinish(conn)
    }

    /// Opens a connection on a thread of its own (libpq's connect is blocking), then
    /// switches it to non-blocking pipeline mode and hands it to the event loop.
    /// Throws `.connectionFailure` with libpq's message.
    public static func connect(configuration: PostgresConfiguration) async throws -> PostgresConnection {
        let executor = PostgresIOExecutor.shared
        let loop = executor.loopForNewConnection()
        do {
            return try await connect(configuration: configuration, loop: loop)
        } catch {
            executor.release(loop)
            throw error
        }
    }

    /// Opens a connection watched by `loop` (already counted there by
    /// `PostgresIOExecutor.loopForNewConnection`; the caller releases it if this throws).
    static func connect(configuration: PostgresConfiguration, loop: PostgresEventLoop) async throws -> PostgresConnection {
        let parameters = try configuration.connectionParameters()
        let outcome: Result<PostgresConnection, PostgresError> = await onDedicatedThread(name: "payql-postgres-connect") {
            let conn = withCStrings(parameters.map(\.0)) { keywords in
                withCStrings(parameters.map(\.1)) { values in
                    PQconnectdbParams(keywords, values, 0)
                }
            }
            guard let conn else { return .failure(PostgresError(.connectionFailure, message: "libpq could not allocate a connection")) }
            guard PQstatus(conn) == CONNECTION_OK else {
                let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
                PQfinish(conn)
                return .failure(PostgresError(.connectionFailure, message: message, sqlState: "08001"))
            }
            PQsetNoticeProcessor(conn, { _, _ in }, nil)
            guard PQsetnonblocking(conn, 1) == 0, PQenterPipelineMode(conn) == 1 else {
                let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
                PQfinish(conn)
                return .failure(PostgresError(.connectionFailure, message: "cannot enter pipeline mode: \(message)"))
            }
            return .success(PostgresConnection(conn: conn, configuration: configuration, loop: loop))
        }
        let connection = try outcome.get()
        loop.register(connection)
        return connection
    }

    /// Whether the connection was closed or lost; a closed connection fails every statement.
    public var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Open, idle outside any transaction, with nothing in flight: safe to hand to someone else.
    var isReusable: Bool {
        locked.withLock { state in
            state.pipeline.isIdle && PQtransactionStatus(conn) == PQTRANS_IDLE
        }
    }

    /// Statements sent and not yet answered.
    var inflightCount: Int { locked.withLock { state in state.pipeline.count } }

    /// Whether statements were sent and their results have not all arrived.
    var isAwaitingResults: Bool { locked.withLock { state in state.pipeline.isAwaitingResults } }

    /// Called once, on the thread that noticed, when the connection closes or is lost.
    func setCloseHandler(_ handler: @escaping @Sendable (PostgresConnection) -> Void) {
        locked.withLock { state in state.closeHandler = handler }
    }

    /// Runs one statement and returns its rows (none for commands).
    ///
    /// Throws `PostgresError` (with SQLSTATE) when the server rejects it, `.invalidInput`
    /// before sending a value PostgreSQL cannot hold, `.connectionFailure` if the
    /// connection is lost, `CancellationError` if the task is cancelled (the server
    /// is asked to cancel the statement when it is the only one in flight).
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await submit(query, isScript: false, groupable: false)
    }

    /// Runs one autocommit statement for `PostgresPool.query`: a SELECT, INSERT,
    /// UPDATE, DELETE, WITH, VALUES or TABLE statement may share a sync point with
    /// its neighbours (see `pump`); a group that fails is replayed statement by statement.
    /// `gather`: other statements are in flight in the pool, so tasks resumed together
    /// are likely to send together (see `submit`).
    nonisolated(nonsending) func pipelinedQuery(_ query: PostgresQuery, gather: Bool = false) async throws -> PostgresRows {
        try await submit(query, isScript: false, groupable: startsGroupableStatement(query.sql), gather: gather)
    }

    /// Runs SQL through the simple query protocol: several `;`-separated statements,
    /// no parameters (migrations use it). Returns the last statement's rows.
    public func simpleQuery(_ query: PostgresQuery) async throws -> PostgresRows {
        guard query.bindings.count == 0 else {
            throw PostgresError(.invalidInput, message: "the simple query protocol takes no parameters", query: query.description)
        }
        return try await submit(query, isScript: true, groupable: false)
    }

    /// Closes the connection: statements still waiting fail with `.connectionFailure`.
    public func close() {
        let actions = locked.withLock { state in fail(&state, PostgresError(.connectionFailure, message: "connection closed")) }
        perform(actions)
    }

    nonisolated(nonsending) private func submit(_ query: PostgresQuery, isScript: Bool, groupable: Bool, gather: Bool = false) async throws -> PostgresRows {
        if let invalid = query.bindings.invalidValue {
            throw PostgresError(.invalidInput, message: invalid, query: query.description)
        }
        guard query.bindings.count <= 65535 else {
            throw PostgresError(.invalidInput, message: "more than 65535 parameters", query: query.description)
        }
        try Task.checkCancellation()
        // Gathering, for tasks on other executors than the I/O thread (which gathers its own
        // tasks' statements per turn): the first task to send on this connection *leads*. It
        // yields once, so that the tasks resumed with it (already queued on its executor) run
        // and queue their statements, then sends them all, its own last, under one sync point.
        // Until it does, the others' statements wait for it; any other path that pumps sends
        // them too.
        // The I/O loop this task runs on, if any (not necessarily the one watching this connection).
        let currentLoop = groupable ? PostgresIOExecutor.shared.currentLoop : nil
        let leads = gather && groupable && currentLoop == nil && locked.withLock { state in
            guard !state.gathering else { return false }
            state.gathering = true
            return true
        }
        if leads { await Task.yield() }
        let id = lastRequestID.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<PostgresRows, any Error>) in
                var deferToLoop: PostgresEventLoop?
                let actions: ConnectionActions = locked.withLock { state in
                    if leads { state.gathering = false }
                    if let closed = state.pipeline.closedError {
                        var actions = ConnectionActions()
                        actions.completions.append(.init(waiter: continuation, outcome: .failed(closed)))
                        return actions
                    }
                    if Task.isCancelled {
                        var actions = leads ? pump(&state) : ConnectionActions()
                        actions.completions.append(.init(waiter: continuation, outcome: .cancelled))
                        return actions
                    }
                    if let refused = state.pipeline.enqueue(.init(id: id, query: query, isScript: isScript, groupable: groupable, waiter: continuation)) {
                        var actions = ConnectionActions()
                        actions.completions.append(refused)
                        return actions
                    }
                    if groupable, let currentLoop {
                        // A task on an I/O thread: its statement leaves with the others this turn
                        // resumes, after they all ran (`PostgresEventLoop.sendDeferred`). Already
                        // queued on a loop, it leaves at the end of that loop's turn (running now).
                        if !state.sendDeferred {
                            state.sendDeferred = true
                            deferToLoop = currentLoop
                        }
                        return ConnectionActions()
                    }
                    if groupable, state.gathering {
                        // The leading task sends this statement with its own.
                        return ConnectionActions()
                    }
                    return pump(&state)
                }
                deferToLoop?.deferSend(self)
                perform(actions)
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Work decided under the lock and performed after it is released.
    struct ConnectionActions {
        var completions: [ConnectionState.Pipeline.Completion] = []
        var wakeLoop = false
        var closed: (PostgresError, (@Sendable (PostgresConnection) -> Void)?)?
        var sendCancel = false
    }

    /// Resumes a statement's task with its outcome.
    static func resume(_ completion: ConnectionState.Pipeline.Completion) {
        switch completion.outcome {
        case .rows(let storage): completion.waiter.resume(returning: PostgresRows(storage: storage))
        case .failed(let error): completion.waiter.resume(throwing: error)
        case .cancelled: completion.waiter.resume(throwing: CancellationError())
        }
    }

    func perform(_ actions: ConnectionActions) {
        if actions.wakeLoop { loop.wake() }
        if let (_, handler) = actions.closed {
            loop.unregister(self)
            handler?(self)
        }
        if actions.sendCancel {
            Thread { [self] in
                var buffer = [CChar](repeating: 0, count: 256)
                if let cancelHandle { _ = PQcancel(cancelHandle, &buffer, Int32(buffer.count)) }
                let (held, actions) = locked.withLock { state in
                    (state.pipeline.cancelDelivered(), pump(&state))
                }
                if let held { Self.resume(held) }
                perform(actions)
            }.start()
        }
        for completion in actions.completions { Self.resume(completion) }
    }

    /// A task waiting for `id` was cancelled.
    private func cancel(_ id: UInt64) {
        let actions: ConnectionActions = locked.withLock { state in
            // What a cancel does to a queued or running statement: `PipelineState.cancel`.
            var actions = ConnectionActions()
            switch state.pipeline.cancel(id: id, canAskServer: cancelHandle != nil) {
            case .none: break
            case .complete(let completion): actions.completions.append(completion)
            case .askServer: actions.sendCancel = true
            }
            return actions
        }
        perform(actions)
    }

    /// Sends the statements that tasks on the I/O thread queued this turn. On the loop thread.
    func sendDeferred() {
        let actions = locked.withLock { state in
            state.sendDeferred = false
            return pump(&state)
        }
        perform(actions)
    }

    /// What this connection sent and replayed so far.
    var pipelineCounters: PipelineCounters { locked.withLock { state in state.pipeline.counters } }

    /// Whether the loop should wait for the socket to become writable.
    var wantsWrite: Bool { needsFlushFlag.load(ordering: .acquiring) && !closedFlag.load(ordering: .acquiring) }

    /// Called by the event loop when the socket is ready.
    func handleIO(readable: Bool, writable: Bool) {
        let actions: ConnectionActions = locked.withLock { state in
            guard state.pipeline.closedError == nil else { return ConnectionActions() }
            if writable || state.needsFlush {
                let flushed = PQflush(conn)
                if flushed < 0 { return fail(&state, connectionError()) }
                state.needsFlush = flushed == 1
                needsFlushFlag.store(state.needsFlush, ordering: .releasing)
            }
            var actions = ConnectionActions()
            if readable {
                if PQconsumeInput(conn) == 0 { return fail(&state, connectionError()) }
                actions = readResults(&state)
                if actions.closed != nil { return actions }
                if PQstatus(conn) == CONNECTION_BAD { return merge(actions, fail(&state, connectionError())) }
            }
            return merge(actions, pump(&state))
        }
        perform(actions)
    }

    func merge(_ first: ConnectionActions, _ second: ConnectionActions) -> ConnectionActions {
        var merged = first
        merged.completions += second.completions
        merged.wakeLoop = merged.wakeLoop || second.wakeLoop
        merged.sendCancel = merged.sendCancel || second.sendCancel
        if merged.closed == nil { merged.closed = second.closed }
        return merged
    }

    /// libpq's current error as a connection failure.
    func connectionError() -> PostgresError {
        let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
        return PostgresError(.connectionFailure, message: message.isEmpty ? "connection lost" : message, sqlState: "08006")
    }

    /// Marks the connection closed and fails everything waiting on it. Under the connection's lock (`state` is `locked`'s value).
    func fail(_ state: inout ConnectionState, _ error: PostgresError) -> ConnectionActions {
        var actions = ConnectionActions()
        // Every statement queued or in flight fails, once: `PipelineState.fail`.
        guard let completions = state.pipeline.fail(error) else { return actions }
        closedFlag.store(true, ordering: .releasing)
        actions.completions = completions
        actions.closed = (error, state.closeHandler)
        state.closeHandler = nil
        return actions
    }
}

/// Runs `work` on a new thread and returns its result without blocking the caller's thread.
func onDedicatedThread<T: Sendable>(name: String, _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = name
        thread.start()
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { buffer in
        // Never empty (the terminating nil was just appended), so it has a base address; checked all the same.
        guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array has storage") }
        return body(base)
    }
}
