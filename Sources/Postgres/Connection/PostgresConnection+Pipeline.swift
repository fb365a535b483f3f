internal import CLibPQ
import Synchronization

/// A connection's mutable state; only reached inside `PostgresConnection.locked`.
struct ConnectionState {
    /// What waits for a statement, and what owns its rows, on a real connection.
    typealias Pipeline = PipelineState<UnsafeContinuation<PostgresRows, any Error>, PostgresResultStorage>

    /// The statements queued and in flight, and what their results mean (no I/O).
    var pipeline: Pipeline
    var needsFlush = false
    var closeHandler: (@Sendable (PostgresConnection) -> Void)?
    /// Statements queued by tasks on the I/O thread, to be sent together when its turn ends.
    var sendDeferred = false
    /// A task is gathering statements to send together (`PostgresConnection.submit`).
    var gathering = false

    init(preparedStatementCacheSize: Int) {
        pipeline = Pipeline(preparedStatementCacheSize: preparedStatementCacheSize)
    }
}

/// The libpq side of the pipeline: makes the calls `PipelineState` asks for, and
/// feeds it what `PQgetResult` returns, each `PGresult` owned by a `PostgresResult`
/// from the moment it arrives.
extension PostgresConnection {
    /// Sends every pending request that may go now (`PipelineState.nextSend` decides
    /// what goes and where the sync points fall). Under the connection's lock
    /// (`state` is `locked`'s value).
    func pump(_ state: inout ConnectionState) -> ConnectionActions {
        while true {
            switch state.pipeline.nextSend() {
            case .sync:
                guard PQpipelineSync(conn) == 1 else { return fail(&state, connectionError()) }
            case .script(let sql):
                guard PQexitPipelineMode(conn) == 1, PQsendQuery(conn, sql) == 1 else { return fail(&state, connectionError()) }
            case .statement(let query, let name, let prepare):
                // In flight already even if sending fails: `fail` then finds it there.
                guard send(query, name: name, prepare: prepare) else { return fail(&state, connectionError()) }
            case .idle(let flush):
                var actions = ConnectionActions()
                guard flush else { return actions }
                let flushed = PQflush(conn)
                if flushed < 0 { return fail(&state, connectionError()) }
                if flushed == 1, !state.needsFlush {
                    state.needsFlush = true
                    needsFlushFlag.store(true, ordering: .releasing)
                    actions.wakeLoop = true
                }
                return actions
            }
        }
    }

    /// Sends one statement (preparing it as `name` first if `prepare`; unnamed when
    /// `name` is nil), without its sync point.
    private func send(_ query: PostgresQuery, name: String?, prepare: Bool) -> Bool {
        let bindings = query.bindings
        let sql = query.sql
        let count = Int32(bindings.count)
        if prepare, let name {
            let prepared = bindings.types.withUnsafeBufferPointer { types in
                PQsendPrepare(conn, name, sql, count, types.baseAddress)
            }
            guard prepared == 1 else { return false }
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

    /// Reads every complete result and hands it to the pipeline, which completes the
    /// requests it finishes. Under the connection's lock (`state` is `locked`'s value).
    func readResults(_ state: inout ConnectionState) -> ConnectionActions {
        var actions = ConnectionActions()
        state.pipeline.beginReading()
        while state.pipeline.isAwaitingResults, PQisBusy(conn) == 0 {
            let received = Self.classify(PostgresResult(PQgetResult(conn)))
            switch state.pipeline.receive(received, into: &actions.completions) {
            case .next:
                continue
            case .stop:
                return actions
            case .scriptEnded:
                // The script's results are complete; back to pipeline mode.
                guard PQenterPipelineMode(conn) == 1 else { return merge(actions, fail(&state, connectionError())) }
                state.pipeline.finishScript(into: &actions.completions)
            case .fail(let error):
                return merge(actions, fail(&state, error))
            }
        }
        return actions
    }

    /// What one `PQgetResult` returned, for the pipeline; consumes the owner (rows keep
    /// their `PGresult`, anything else is freed here).
    private static func classify(_ result: consuming PostgresResult?) -> ConnectionState.Pipeline.Received {
        guard let result else { return .endOfPiece }
        switch result.status {
        case PGRES_PIPELINE_SYNC:
            return .sync
        case PGRES_PIPELINE_ABORTED:
            return .aborted
        case PGRES_FATAL_ERROR:
            return .error(result.serverError())
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return .rows(result.rows())
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            return .copy
        default:
            return .other
        }
    }
}
