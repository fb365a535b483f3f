internal import CLibPQ
import Synchronization

/// A statement waiting to be sent or answered.
struct PendingRequest {
    let id: UInt64
    let query: PostgresQuery
    let isScript: Bool
    /// nil once the waiting task gave up (cancelled while others were pipelined behind it).
    var continuation: UnsafeContinuation<PostgresRows, any Error>?
    /// The statement was prepared in the same batch: its Parse result comes first.
    var expectsPrepareResult = false
    /// The statement-cache key to forget if the prepare fails.
    var preparedKey: StatementKey?
    var result: OpaquePointer?
    var error: PostgresError?
    var cancelRequested = false
    /// May share a sync point with the statements sent next to it (`pool.query`'s
    /// SELECT/INSERT/UPDATE/DELETE/WITH/VALUES/TABLE); false once replayed alone.
    var groupable = false
    /// The sync point follows this statement: the last of its group.
    var endsGroup = false
    /// The piece being read (the prepare, then the execution) has produced a result;
    /// the NULL that follows ends the piece.
    var pieceHasResult = false
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

/// A connection's mutable state; only touched under the connection's lock.
struct ConnectionState {
    var pending: [PendingRequest] = []
    var inflight: [PendingRequest] = []
    /// SQL + parameter types → prepared statement name.
    var statements: [StatementKey: String] = [:]
    var statementCounter = 0
    var needsFlush = false
    var scriptRunning = false
    var cancellingID: UInt64?
    var heldCompletion: PostgresConnection.Completion?
    var closedError: PostgresError?
    var closeHandler: (@Sendable (PostgresConnection) -> Void)?
    /// Index in `inflight` of the statement whose results are being read; the ones
    /// before it have run and wait for their group's sync point.
    var cursor = 0
    /// An error the server raised for the head group as a whole (at its commit).
    var groupError: PostgresError?
    /// Statements queued by tasks on the I/O thread, to be sent together when its turn ends.
    var sendDeferred = false
    /// A task is gathering statements to send together (`PostgresConnection.submit`).
    var gathering = false
    /// What went out and what was replayed (tests and measurements read them).
    var counters = PipelineCounters()
}

/// Statements and sync points sent on one connection, and statements replayed alone
/// after their group failed.
struct PipelineCounters: Equatable {
    var statements = 0
    var syncs = 0
    var replays = 0
}

extension PostgresConnection {
    /// The most statements sharing one sync point.
    static let maxGroupSize = 16

    /// Sends every pending request that may go now. Under the connection's lock (`state` is `locked`'s value).
    ///
    /// Consecutive groupable statements share one sync point (one implicit
    /// transaction, one `send(2)`, one flush by the server); a statement that must
    /// be prepared opens a new group (so no neighbour's failure can undo its
    /// prepare), and any other statement gets a sync point of its own. A group
    /// that fails is taken apart in `finishGroup`.
    func pump(_ state: inout ConnectionState) -> ConnectionActions {
        var actions = ConnectionActions()
        var sent = false
        var groupSize = 0
        func closeGroup() -> Bool {
            guard groupSize > 0 else { return true }
            groupSize = 0
            state.inflight[state.inflight.count - 1].endsGroup = true
            state.counters.syncs += 1
            return PQpipelineSync(conn) == 1
        }
        while state.closedError == nil, state.cancellingID == nil, let next = state.pending.first {
            if next.isScript {
                guard closeGroup() else { return merge(actions, fail(&state, connectionError())) }
                guard state.inflight.isEmpty, !state.scriptRunning else { break }
                guard PQexitPipelineMode(conn) == 1 else { return merge(actions, fail(&state, connectionError())) }
                guard PQsendQuery(conn, next.query.sql) == 1 else { return merge(actions, fail(&state, connectionError())) }
                state.scriptRunning = true
                state.inflight.append(state.pending.removeFirst())
            } else {
                guard !state.scriptRunning else { break }
                var request = state.pending.removeFirst()
                let key = StatementKey(sql: request.query.sql, parameters: request.query.bindings.parameters)
                let name = state.statements[key]
                let mustPrepare = name == nil && state.statements.count < configuration.preparedStatementCacheSize
                if !request.groupable || mustPrepare || groupSize >= Self.maxGroupSize {
                    guard closeGroup() else {
                        state.pending.insert(request, at: 0)
                        return merge(actions, fail(&state, connectionError()))
                    }
                }
                let sentOK = send(&state, &request, key: key, name: name, mustPrepare: mustPrepare)
                // In `inflight` even if sending failed: `fail` then finds it there.
                state.inflight.append(request)
                state.counters.statements += 1
                groupSize += 1
                guard sentOK else { return merge(actions, fail(&state, connectionError())) }
                if !request.groupable {
                    guard closeGroup() else { return merge(actions, fail(&state, connectionError())) }
                }
            }
            sent = true
        }
        guard closeGroup() else { return merge(actions, fail(&state, connectionError())) }
        if sent {
            let flushed = PQflush(conn)
            if flushed < 0 { return merge(actions, fail(&state, connectionError())) }
            if flushed == 1, !state.needsFlush {
                state.needsFlush = true
                needsFlushFlag.store(true, ordering: .releasing)
                actions.wakeLoop = true
            }
        }
        return actions
    }

    /// Sends one statement (preparing it first if `mustPrepare`), without its sync point.
    private func send(_ state: inout ConnectionState, _ request: inout PendingRequest, key: StatementKey, name cached: String?, mustPrepare: Bool) -> Bool {
        let bindings = request.query.bindings
        let sql = request.query.sql
        let count = Int32(bindings.count)
        var name = cached
        if mustPrepare {
            state.statementCounter += 1
            let newName = "payql_\(state.statementCounter)"
            let prepared = bindings.types.withUnsafeBufferPointer { types in
                PQsendPrepare(conn, newName, sql, count, types.baseAddress)
            }
            guard prepared == 1 else { return false }
            state.statements[key] = newName
            request.expectsPrepareResult = true
            request.preparedKey = key
            name = newName
        }
        let sent = withParameters(bindings) { values, lengths, formats in
            if let name {
                return PQsendQueryPrepared(conn, name, count, values, lengths, formats, 0)
            }
            return bindings.types.withUnsafeBufferPointer { types in
                PQsendQueryParams(conn, sql, count, types.baseAddress, values, lengths, formats, 0)
            }
        }
        return sent == 1
    }

    private func withParameters<R>(
        _ bindings: PostgresBindings,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        let count = bindings.count
        if count == 0 { return body(nil, nil, nil) }
        return bindings.storage.withUnsafeBufferPointer { storage in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { lengthsAndFormats in
                    let base = UnsafeRawPointer(storage.baseAddress)
                    for (index, parameter) in bindings.parameters.enumerated() {
                        if parameter.offset >= 0, let base {
                            values[index] = base.advanced(by: parameter.offset).assumingMemoryBound(to: CChar.self)
                            lengthsAndFormats[index] = Int32(parameter.length)
                        } else {
                            values[index] = nil
                            lengthsAndFormats[index] = 0
                        }
                        lengthsAndFormats[count + index] = parameter.format
                    }
                    let lengths = UnsafePointer(lengthsAndFormats.baseAddress)
                    return body(UnsafePointer(values.baseAddress), lengths, lengths.map { $0 + count })
                }
            }
        }
    }

    /// Reads every complete result and completes the requests they finish. Under the connection's lock (`state` is `locked`'s value).
    func readResults(_ state: inout ConnectionState) -> ConnectionActions {
        var actions = ConnectionActions()
        var consecutiveNulls = 0
        while !state.inflight.isEmpty, PQisBusy(conn) == 0 {
            let result = PQgetResult(conn)
            if state.scriptRunning {
                guard let result else {
                    // The script's results are complete; back to pipeline mode.
                    state.scriptRunning = false
                    guard PQenterPipelineMode(conn) == 1 else { return merge(actions, fail(&state, connectionError())) }
                    complete(&state, index: 0, into: &actions)
                    continue
                }
                switch PQresultStatus(result) {
                case PGRES_FATAL_ERROR:
                    if state.inflight[0].error == nil { state.inflight[0].error = serverError(result, query: state.inflight[0].query) }
                    PQclear(result)
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                    if let previous = state.inflight[0].result { PQclear(previous) }
                    state.inflight[0].result = result
                case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                    PQclear(result)
                    return merge(actions, fail(&state, PostgresError(.protocolViolation, message: "COPY is not supported")))
                default:
                    PQclear(result)
                }
                continue
            }
            guard let result else {
                // End of one piece (a prepare, or a statement's execution) inside the pipeline.
                consecutiveNulls += 1
                let cursor = state.cursor
                if cursor < state.inflight.count, state.inflight[cursor].pieceHasResult {
                    state.inflight[cursor].pieceHasResult = false
                    if state.inflight[cursor].expectsPrepareResult {
                        state.inflight[cursor].expectsPrepareResult = false
                    } else {
                        state.cursor += 1
                    }
                } else if consecutiveNulls > 1 {
                    break
                }
                continue
            }
            consecutiveNulls = 0
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                finishGroup(&state, into: &actions)
                continue
            }
            let cursor = state.cursor
            guard cursor < state.inflight.count, cursor <= (state.inflight.firstIndex(where: \.endsGroup) ?? 0) else {
                // Past the head group's last statement: raised at its commit (a deferred constraint).
                if status == PGRES_FATAL_ERROR, state.groupError == nil, !state.inflight.isEmpty {
                    state.groupError = serverError(result, query: state.inflight[0].query)
                }
                PQclear(result)
                continue
            }
            state.inflight[cursor].pieceHasResult = true
            switch status {
            case PGRES_PIPELINE_ABORTED:
                // Skipped after an earlier error in its group; a skipped prepare never happened.
                if state.inflight[cursor].expectsPrepareResult, let key = state.inflight[cursor].preparedKey { state.statements[key] = nil }
                PQclear(result)
            case PGRES_FATAL_ERROR:
                if state.inflight[cursor].expectsPrepareResult, let key = state.inflight[cursor].preparedKey { state.statements[key] = nil }
                if state.inflight[cursor].error == nil { state.inflight[cursor].error = serverError(result, query: state.inflight[cursor].query) }
                PQclear(result)
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if state.inflight[cursor].expectsPrepareResult {
                    PQclear(result)
                } else {
                    if let previous = state.inflight[cursor].result { PQclear(previous) }
                    state.inflight[cursor].result = result
                }
            case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                PQclear(result)
                return merge(actions, fail(&state, PostgresError(.protocolViolation, message: "COPY is not supported")))
            default:
                PQclear(result)
            }
        }
        return actions
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
    /// Under the connection's lock (`state` is `locked`'s value).
    private func finishGroup(_ state: inout ConnectionState, into actions: inout ConnectionActions) {
        guard !state.inflight.isEmpty else { return }
        let end = state.inflight.firstIndex(where: \.endsGroup) ?? 0
        let groupError = state.groupError
        state.groupError = nil
        state.cursor = max(0, state.cursor - (end + 1))
        let failed = groupError != nil || state.inflight[...end].contains { $0.error != nil }
        guard failed, end > 0 else {
            if let groupError, state.inflight[0].error == nil { state.inflight[0].error = groupError }
            for _ in 0...end { complete(&state, index: 0, into: &actions) }
            return
        }
        var replays: [PendingRequest] = []
        for position in 0...end {
            let request = state.inflight[0]
            let reportable = position == 0 && groupError == nil && request.error != nil
            if reportable || request.continuation == nil {
                complete(&state, index: 0, into: &actions)
                continue
            }
            var replay = state.inflight.removeFirst()
            if let result = replay.result { PQclear(result) }
            replay.result = nil
            replay.error = nil
            replay.groupable = false
            replay.endsGroup = false
            replay.pieceHasResult = false
            replay.expectsPrepareResult = false
            replay.preparedKey = nil
            replays.append(replay)
        }
        state.counters.replays += replays.count
        state.pending.insert(contentsOf: replays, at: 0)
    }

    /// Removes the finished request at `index` and queues its continuation's resumption.
    private func complete(_ state: inout ConnectionState, index: Int, into actions: inout ConnectionActions) {
        let request = state.inflight.remove(at: index)
        guard let continuation = request.continuation else {
            if let result = request.result { PQclear(result) }
            return
        }
        let outcome: Result<PostgresRows, any Error>
        if var error = request.error {
            if let result = request.result { PQclear(result) }
            if request.cancelRequested, error.code == .queryCanceled {
                outcome = .failure(CancellationError())
            } else {
                error.query = request.query.description
                outcome = .failure(error)
            }
        } else {
            outcome = .success(PostgresRows(storage: request.result.map(PostgresResultStorage.init)))
        }
        let completion = Completion(continuation: continuation, outcome: outcome)
        if request.cancelRequested, state.cancellingID == request.id {
            state.heldCompletion = completion
        } else {
            actions.completions.append(completion)
        }
    }

    /// The server's error fields as a `PostgresError`.
    private func serverError(_ result: OpaquePointer, query: PostgresQuery) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C")
        let message = field("M") ?? String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines
        return PostgresError(
            sqlState.map(PostgresError.Code.forSQLState) ?? .server,
            message: message, sqlState: sqlState, detail: field("D"), hint: field("H"), constraint: field("n"),
            query: query.description
        )
    }
}
