/// One connection's pipeline as a value: the statements waiting to be sent, the
/// ones in flight, and what each thing libpq hands back means for them. No I/O,
/// no libpq pointer: `PostgresConnection` performs what it decides (under its
/// lock) and feeds it what libpq returns, and `PipelineStateTests` drive it event
/// by event without a server, like `PoolState`.
///
/// Statements are sent in order; consecutive groupable ones share a sync point
/// (a *group*: one implicit transaction), every other statement gets one of its
/// own (`nextSend`). Results come back in the same order: each statement's
/// pieces (its prepare, when it is prepared in the same round trip, then its
/// execution) each end with a NULL from `PQgetResult` (`Received.endOfPiece`),
/// and each group ends with a `PGRES_PIPELINE_SYNC` (`Received.sync`), where
/// its statements complete together (`finishGroup`). After an error, libpq
/// reports the rest of the group as `PGRES_PIPELINE_ABORTED`; the sync point
/// ends the aborted state, and the group is taken apart and replayed (see
/// `finishGroup`).
///
/// Generic over what waits for a statement (`Waiter`: a continuation in the
/// driver, a label in the tests) and over what owns a statement's rows
/// (`Result`: the `PGresult` owner in the driver, so a result dropped here —
/// replaced, replayed, its waiter gone, the connection lost — is freed by its owner).
struct PipelineState<Waiter, Result> {
    /// A statement waiting to be sent or answered.
    struct Request {
        let id: UInt64
        let query: PostgresQuery
        /// Several `;`-separated statements through the simple query protocol (outside pipeline mode).
        let isScript: Bool
        /// May share a sync point with the statements sent next to it (`pool.query`'s
        /// SELECT/INSERT/UPDATE/DELETE/WITH/VALUES/TABLE); false once replayed alone.
        var groupable: Bool
        /// nil once the waiting task gave up (cancelled while others were pipelined behind it).
        var waiter: Waiter?
        /// The statement was prepared in the same round trip: its prepare's result comes first.
        var expectsPrepareResult = false
        /// The statement-cache key to forget if the prepare fails or is skipped.
        var preparedKey: StatementKey?
        var result: Result?
        var error: PostgresError?
        /// The server was asked to cancel it (it was alone on the connection).
        var cancelRequested = false
        /// The sync point follows this statement: the last of its group.
        var endsGroup = false
        /// The piece being read (the prepare, then the execution) has produced a result;
        /// the NULL that follows ends the piece.
        var pieceHasResult = false

        init(id: UInt64, query: PostgresQuery, isScript: Bool = false, groupable: Bool = false, waiter: Waiter?) {
            self.id = id
            self.query = query
            self.isScript = isScript
            self.groupable = groupable
            self.waiter = waiter
        }
    }

    /// How a statement ended, for its waiter.
    enum Outcome {
        /// Its rows (nil: a command, or a script with no result).
        case rows(Result?)
        /// The server's error, or the connection's (boxed: the common cases stay one word to copy).
        indirect case failed(PostgresError)
        /// Its task was cancelled.
        case cancelled
    }

    /// A waiter to resume, once, with its outcome.
    struct Completion {
        let waiter: Waiter
        let outcome: Outcome
    }

    /// The next libpq call `nextSend` asks for.
    enum SendStep {
        /// `PQpipelineSync`: the group sent so far ends here.
        case sync
        /// `PQexitPipelineMode` and `PQsendQuery(sql)`: a script, alone on the connection.
        case script(sql: String)
        /// `query`, sent as the prepared statement `name` (prepared first when `prepare`),
        /// or unnamed (`PQsendQueryParams`) when `name` is nil. Its sync point comes later.
        case statement(PostgresQuery, name: String?, prepare: Bool)
        /// Nothing more may go now; `flush` when something was sent since the last `idle`.
        case idle(flush: Bool)
    }

    /// What `PQgetResult` returned, classified by the driver (which owns the `PGresult`).
    enum Received {
        /// NULL: the end of one piece (a prepare, or an execution); in a script, the end of the script.
        case endOfPiece
        /// `PGRES_PIPELINE_SYNC`: the head group's sync point.
        case sync
        /// `PGRES_PIPELINE_ABORTED`: skipped, because an earlier statement of its group failed.
        case aborted
        /// `PGRES_FATAL_ERROR`, with the server's fields (boxed: the common cases stay one word to copy).
        indirect case error(PostgresError)
        /// `PGRES_COMMAND_OK`, `PGRES_TUPLES_OK` or `PGRES_EMPTY_QUERY`, with its owner.
        case rows(Result)
        /// `PGRES_COPY_*`: the protocol PayQL does not speak.
        case copy
        /// Any other status (notices, single-row mode: never asked for); ignored.
        case other
    }

    /// What the driver does after feeding one `Received`.
    enum ReadStep {
        /// Read the next result.
        case next
        /// Stop reading: two NULLs in a row, nothing more is complete.
        case stop
        /// The script's results are complete: re-enter pipeline mode, then call `finishScript`.
        case scriptEnded
        /// The connection cannot go on: close it with this error.
        case fail(PostgresError)
    }

    /// What to do for a task that was cancelled while its statement waited.
    enum CancelStep {
        /// Nothing (the statement already completed).
        case none
        /// Resume its waiter now (with `.cancelled`).
        case complete(Completion)
        /// Ask the server to cancel it (`PQcancel`), then call `cancelDelivered`.
        case askServer
    }

    /// The most statements sharing one sync point.
    static var maxGroupSize: Int { 16 }

    /// The most statements prepared (and cached) on the connection; beyond it they run unnamed.
    let preparedStatementCacheSize: Int

    /// Statements not yet sent, in order.
    private(set) var pending: [Request] = []
    /// Statements sent, in order, until their group's sync point completes them.
    private(set) var inflight: [Request] = []
    /// SQL + parameter types → prepared statement name.
    private(set) var statements: [StatementKey: String] = [:]
    private var statementCounter = 0
    /// The connection is out of pipeline mode running a script.
    private(set) var scriptRunning = false
    /// The statement the server is being asked to cancel; nothing is sent until the request was delivered.
    private(set) var cancellingID: UInt64?
    /// The cancelled statement's completion, held until the cancel request was delivered
    /// (so a late cancel can never hit the statement after it).
    private var heldCompletion: Completion?
    /// Why the connection closed; every statement fails with it from then on.
    private(set) var closedError: PostgresError?
    /// Index in `inflight` of the statement whose results are being read; the ones
    /// before it have run and wait for their group's sync point.
    private var cursor = 0
    /// An error the server raised for the head group as a whole (at its commit).
    private var groupError: PostgresError?
    /// Statements sent since the last sync point (only while `nextSend` is being called).
    private var unsynced = 0
    /// The last statement sent may share its sync point with the next.
    private var groupOpen = false
    /// Something was sent since the last `.idle`.
    private var sentSinceIdle = false
    /// NULLs read in a row since `beginReading`.
    private var consecutiveNulls = 0
    /// What went out and what was replayed (tests and measurements read them).
    private(set) var counters = PipelineCounters()

    init(preparedStatementCacheSize: Int) {
        self.preparedStatementCacheSize = preparedStatementCacheSize
    }

    /// Open, with nothing queued, in flight or being cancelled.
    var isIdle: Bool { closedError == nil && inflight.isEmpty && pending.isEmpty && cancellingID == nil }

    /// Statements sent whose results have not all arrived.
    var isAwaitingResults: Bool { !inflight.isEmpty }

    /// Statements queued or in flight.
    var count: Int { inflight.count + pending.count }

    // MARK: - Sending

    /// Queues `request`, to go out at the next `nextSend`. On a closed connection it is
    /// not queued: its completion (the connection's error) is returned instead.
    mutating func enqueue(_ request: consuming Request) -> Completion? {
        if let closedError {
            return request.waiter.map { Completion(waiter: $0, outcome: .failed(closedError)) }
        }
        pending.append(request)
        return nil
    }

    /// The next call to make on libpq; call again after making it, until `.idle`.
    ///
    /// Consecutive groupable statements share one sync point, up to `maxGroupSize`;
    /// a statement that must be prepared opens a new group (so no neighbour's failure
    /// can undo its prepare), any other statement gets a sync point of its own, and a
    /// script waits until nothing else is in flight. Nothing goes out while a script
    /// runs, a cancel request is on its way, or after the connection closed.
    mutating func nextSend() -> SendStep {
        // The head request is read in place (`pending[0]`), never copied: this runs per statement.
        if closedError == nil, cancellingID == nil, !pending.isEmpty {
            if pending[0].isScript {
                if unsynced > 0 { return closeGroup() }
                if inflight.isEmpty, !scriptRunning {
                    scriptRunning = true
                    let sql = pending[0].query.sql
                    inflight.append(pending.removeFirst())
                    sentSinceIdle = true
                    return .script(sql: sql)
                }
            } else if !scriptRunning {
                let query = pending[0].query
                let key = StatementKey(sql: query.sql, parameters: query.bindings.parameters)
                let cached = statements[key]
                let mustPrepare = cached == nil && statements.count < preparedStatementCacheSize
                if unsynced > 0, !groupOpen || !pending[0].groupable || mustPrepare || unsynced >= Self.maxGroupSize {
                    return closeGroup()
                }
                // Moved, never copied, from one queue to the other (perf: copies of a request
                // go through its value witnesses), then marked in place.
                inflight.append(pending.removeFirst())
                let last = inflight.count - 1
                var name = cached
                if mustPrepare {
                    statementCounter += 1
                    let newName = "payql_\(statementCounter)"
                    statements[key] = newName
                    inflight[last].expectsPrepareResult = true
                    inflight[last].preparedKey = key
                    name = newName
                }
                groupOpen = inflight[last].groupable
                counters.statements += 1
                unsynced += 1
                sentSinceIdle = true
                return .statement(query, name: name, prepare: mustPrepare)
            }
        }
        if unsynced > 0 { return closeGroup() }
        defer { sentSinceIdle = false }
        return .idle(flush: sentSinceIdle)
    }

    private mutating func closeGroup() -> SendStep {
        unsynced = 0
        groupOpen = false
        inflight[inflight.count - 1].endsGroup = true
        counters.syncs += 1
        return .sync
    }

    // MARK: - Reading

    /// Call before each batch of `receive`s (each time input was consumed).
    mutating func beginReading() {
        consecutiveNulls = 0
    }

    /// Feeds one thing `PQgetResult` returned; completions go to `completions`.
    /// Call only while `isAwaitingResults`.
    mutating func receive(_ received: Received, into completions: inout [Completion]) -> ReadStep {
        guard !inflight.isEmpty else { return .stop }
        if scriptRunning { return receiveInScript(received) }
        if case .endOfPiece = received {
            // The end of one piece (a prepare, or a statement's execution) inside the pipeline.
            consecutiveNulls += 1
            if cursor < inflight.count, inflight[cursor].pieceHasResult {
                inflight[cursor].pieceHasResult = false
                if inflight[cursor].expectsPrepareResult {
                    inflight[cursor].expectsPrepareResult = false
                } else {
                    cursor += 1
                }
            } else if consecutiveNulls > 1 {
                return .stop
            }
            return .next
        }
        consecutiveNulls = 0
        if case .sync = received {
            finishGroup(into: &completions)
            return .next
        }
        guard cursor < inflight.count, cursor <= (inflight.firstIndex { $0.endsGroup } ?? 0) else {
            // Past the head group's last statement: raised at its commit (a deferred constraint).
            if case .error(let error) = received, groupError == nil { groupError = error }
            return .next
        }
        inflight[cursor].pieceHasResult = true
        switch received {
        case .aborted:
            // Skipped after an earlier error in its group; a skipped prepare never happened.
            forgetPrepareIfPending(cursor)
            if inflight[cursor].error == nil { inflight[cursor].error = Self.skipped }
        case .error(let error):
            forgetPrepareIfPending(cursor)
            if inflight[cursor].error == nil { inflight[cursor].error = error }
        case .rows(let result):
            // A prepare's result carries nothing; it is dropped (and freed) here.
            if !inflight[cursor].expectsPrepareResult { inflight[cursor].result = result }
        case .copy:
            return .fail(Self.copyRefused)
        case .endOfPiece, .sync, .other:
            break
        }
        return .next
    }

    /// The script's results are complete and the connection is back in pipeline mode.
    mutating func finishScript(into completions: inout [Completion]) {
        guard scriptRunning, !inflight.isEmpty else { return }
        scriptRunning = false
        complete(index: 0, into: &completions)
    }

    private mutating func receiveInScript(_ received: Received) -> ReadStep {
        switch received {
        case .endOfPiece:
            return .scriptEnded
        case .error(let error):
            if inflight[0].error == nil { inflight[0].error = error }
        case .rows(let result):
            // Each statement of the script returns a result; the last one's rows are kept.
            inflight[0].result = result
        case .copy:
            return .fail(Self.copyRefused)
        case .sync, .aborted, .other:
            break
        }
        return .next
    }

    private mutating func forgetPrepareIfPending(_ index: Int) {
        if inflight[index].expectsPrepareResult, let key = inflight[index].preparedKey { statements[key] = nil }
    }

    /// The head group's sync point arrived: its statements are done.
    ///
    /// A group that ran without error committed as a whole: every statement gets its
    /// rows. A group with an error was rolled back as a whole, so a statement that
    /// ran before the error, or was skipped after it, goes back to the front of the
    /// queue and is replayed with a sync point of its own. The error is reported
    /// only if its statement came first in the group (it then ran exactly as it
    /// would have alone); otherwise that statement is replayed too, so every
    /// outcome a task sees is either a committed group's or a lone statement's.
    /// A statement alone in its group fails with its error (or, skipped, with `skipped`).
    private mutating func finishGroup(into completions: inout [Completion]) {
        guard !inflight.isEmpty else { return }
        let end = inflight.firstIndex { $0.endsGroup } ?? 0
        let groupError = self.groupError
        self.groupError = nil
        cursor = max(0, cursor - (end + 1))
        let failed = groupError != nil || inflight[...end].contains { $0.error != nil }
        guard failed, end > 0 else {
            if let groupError, inflight[0].error == nil { inflight[0].error = groupError }
            for _ in 0...end { complete(index: 0, into: &completions) }
            return
        }
        var replays: [Request] = []
        for position in 0...end {
            let reportable = position == 0 && groupError == nil && inflight[0].error != nil
            if reportable || inflight[0].waiter == nil {
                complete(index: 0, into: &completions)
                continue
            }
            let done = inflight.removeFirst()
            var replay = Request(id: done.id, query: done.query, isScript: done.isScript, groupable: false, waiter: done.waiter)
            replay.cancelRequested = done.cancelRequested
            replays.append(replay)
        }
        counters.replays += replays.count
        pending.insert(contentsOf: replays, at: 0)
    }

    /// Removes the finished request at `index` and completes its waiter (or holds the
    /// completion while a cancel request for it is on its way).
    private mutating func complete(index: Int, into completions: inout [Completion]) {
        let request = inflight.remove(at: index)
        // Nobody waits any more: its result is dropped (and freed) with it.
        guard let waiter = request.waiter else { return }
        let outcome: Outcome
        if var error = request.error {
            if request.cancelRequested, error.code == .queryCanceled {
                outcome = .cancelled
            } else {
                error.query = request.query.description
                outcome = .failed(error)
            }
        } else {
            outcome = .rows(request.result)
        }
        let completion = Completion(waiter: waiter, outcome: outcome)
        if request.cancelRequested, cancellingID == request.id {
            heldCompletion = completion
        } else {
            completions.append(completion)
        }
    }

    // MARK: - Cancellation and loss

    /// The task waiting for `id` was cancelled. `canAskServer`: the connection can
    /// send a cancel request (it has a `PGcancel`).
    ///
    /// Not yet sent: it is dropped and completes now. Alone in flight: the server is
    /// asked to cancel it, and it completes when its result has arrived *and* the
    /// request was delivered (`cancelDelivered`), so the cancel can never hit a later
    /// statement. With others pipelined behind it (a cancel request could hit one of
    /// them): it completes now; the statement finishes on the server (bounded by
    /// statement_timeout) and its result is dropped.
    mutating func cancel(id: UInt64, canAskServer: Bool) -> CancelStep {
        if let index = pending.firstIndex(where: { $0.id == id }) {
            let request = pending.remove(at: index)
            return request.waiter.map { .complete(Completion(waiter: $0, outcome: .cancelled)) } ?? .none
        }
        guard let index = inflight.firstIndex(where: { $0.id == id }) else { return .none }
        if inflight.count == 1, pending.isEmpty, cancellingID == nil, canAskServer {
            cancellingID = id
            inflight[index].cancelRequested = true
            return .askServer
        }
        guard let waiter = inflight[index].waiter else { return .none }
        inflight[index].waiter = nil
        return .complete(Completion(waiter: waiter, outcome: .cancelled))
    }

    /// The cancel request asked for by `.askServer` was delivered (or could not be):
    /// sending resumes; returns the cancelled statement's completion if it already arrived.
    mutating func cancelDelivered() -> Completion? {
        cancellingID = nil
        defer { heldCompletion = nil }
        return heldCompletion
    }

    /// The connection closed or was lost: every statement queued or in flight fails with
    /// `error`, exactly once, and so does every statement queued later. Returns nil if it
    /// was already closed (nothing to complete again).
    mutating func fail(_ error: PostgresError) -> [Completion]? {
        guard closedError == nil else { return nil }
        closedError = error
        var completions: [Completion] = []
        for request in inflight + pending {
            if let waiter = request.waiter { completions.append(Completion(waiter: waiter, outcome: .failed(error))) }
        }
        if let heldCompletion { completions.append(heldCompletion) }
        heldCompletion = nil
        inflight.removeAll()
        pending.removeAll()
        cursor = 0
        groupError = nil
        unsynced = 0
        groupOpen = false
        sentSinceIdle = false
        return completions
    }

    // MARK: - Errors

    /// A statement skipped after an earlier statement under the same sync point failed,
    /// when it cannot be replayed (normally it is).
    static var skipped: PostgresError {
        PostgresError(.server, message: "not run: an earlier statement under the same sync point failed")
    }

    static var copyRefused: PostgresError {
        PostgresError(.protocolViolation, message: "COPY is not supported")
    }
}

/// What identifies a prepared statement: its text and its parameters' types.
/// Keeps the query's parameter descriptions (no new array per lookup) but
/// compares and hashes only their types.
struct StatementKey: Hashable {
    let sql: String
    let parameters: [PostgresBindings.Parameter]

    static func == (left: StatementKey, right: StatementKey) -> Bool {
        left.sql == right.sql && left.parameters.count == right.parameters.count
            && zip(left.parameters, right.parameters).allSatisfy { $0.oid == $1.oid }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(sql)
        hasher.combine(parameters.count)
        for parameter in parameters { hasher.combine(parameter.oid) }
    }
}

/// Statements and sync points sent on one connection, and statements replayed alone
/// after their group failed.
struct PipelineCounters: Equatable {
    var statements = 0
    var syncs = 0
    var replays = 0
}
