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
}

extension PostgresConnection {
    /// Sends every pending request that may go now. Under `lock`.
    func pump() -> ConnectionActions {
        var actions = ConnectionActions()
        var sent = false
        while state.closedError == nil, state.cancellingID == nil, let next = state.pending.first {
            if next.isScript {
                guard state.inflight.isEmpty, !state.scriptRunning else { break }
                guard PQexitPipelineMode(conn) == 1 else { return merge(actions, fail(connectionError())) }
                guard PQsendQuery(conn, next.query.sql) == 1 else { return merge(actions, fail(connectionError())) }
                state.scriptRunning = true
                state.inflight.append(state.pending.removeFirst())
            } else {
                guard !state.scriptRunning else { break }
                var request = state.pending.removeFirst()
                let sentOK = send(&request)
                // In `inflight` even if sending failed: `fail` then finds it there.
                state.inflight.append(request)
                guard sentOK else { return merge(actions, fail(connectionError())) }
            }
            sent = true
        }
        if sent {
            let flushed = PQflush(conn)
            if flushed < 0 { return merge(actions, fail(connectionError())) }
            if flushed == 1, !state.needsFlush {
                state.needsFlush = true
                needsFlushFlag.store(true, ordering: .releasing)
                actions.wakeLoop = true
            }
        }
        return actions
    }

    /// Sends one statement (preparing it first if new) and its sync point.
    private func send(_ request: inout PendingRequest) -> Bool {
        let bindings = request.query.bindings
        let sql = request.query.sql
        let count = Int32(bindings.count)
        let key = StatementKey(sql: sql, parameters: bindings.parameters)
        var name = state.statements[key]
        if name == nil, state.statements.count < configuration.preparedStatementCacheSize {
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
        guard sent == 1 else { return false }
        return PQpipelineSync(conn) == 1
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

    /// Reads every complete result and completes the requests they finish. Under `lock`.
    func readResults() -> ConnectionActions {
        var actions = ConnectionActions()
        var consecutiveNulls = 0
        while !state.inflight.isEmpty, PQisBusy(conn) == 0 {
            let result = PQgetResult(conn)
            if state.scriptRunning {
                guard let result else {
                    // The script's results are complete; back to pipeline mode.
                    state.scriptRunning = false
                    guard PQenterPipelineMode(conn) == 1 else { return merge(actions, fail(connectionError())) }
                    complete(index: 0, into: &actions)
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
                    return merge(actions, fail(PostgresError(.protocolViolation, message: "COPY is not supported")))
                default:
                    PQclear(result)
                }
                continue
            }
            guard let result else {
                // End of one statement's results inside the pipeline.
                consecutiveNulls += 1
                if consecutiveNulls > 1 { break }
                continue
            }
            consecutiveNulls = 0
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                complete(index: 0, into: &actions)
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
            case PGRES_FATAL_ERROR:
                if state.inflight[0].expectsPrepareResult {
                    state.inflight[0].expectsPrepareResult = false
                    if let key = state.inflight[0].preparedKey { state.statements[key] = nil }
                }
                if state.inflight[0].error == nil { state.inflight[0].error = serverError(result, query: state.inflight[0].query) }
                PQclear(result)
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if state.inflight[0].expectsPrepareResult {
                    state.inflight[0].expectsPrepareResult = false
                    PQclear(result)
                } else {
                    if let previous = state.inflight[0].result { PQclear(previous) }
                    state.inflight[0].result = result
                }
            case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                PQclear(result)
                return merge(actions, fail(PostgresError(.protocolViolation, message: "COPY is not supported")))
            default:
                PQclear(result)
            }
        }
        return actions
    }

    /// Removes the finished request at `index` and queues its continuation's resumption.
    private func complete(index: Int, into actions: inout ConnectionActions) {
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
