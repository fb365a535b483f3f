@testable import Postgres
import Testing

/// The pipeline's decisions, event by event, without a server: what each result
/// libpq hands back means for the statements waiting (see `PipelineState`). The
/// same interleavings against a real server: `PipelineGroupTests`, `CancellationTests`,
/// `RestartTests`.
@Suite struct PipelineStateTests {
    /// Waiters are labels, a statement's rows are a string naming them.
    typealias Pipeline = PipelineState<String, String>

    /// A pipeline that prepares nothing (cache size 0) unless told otherwise: one piece per statement.
    private func pipeline(cache: Int = 0) -> Pipeline { Pipeline(preparedStatementCacheSize: cache) }

    private static let divisionByZero = PostgresError(.server, message: "division by zero", sqlState: "22012")
    private static let foreignKey = PostgresError(.foreignKeyViolation, message: "violates foreign key constraint", sqlState: "23503")
    private static let canceled = PostgresError(.queryCanceled, message: "canceling statement due to user request", sqlState: "57014")
    private static let lost = PostgresError(.connectionFailure, message: "server closed the connection unexpectedly", sqlState: "08006")

    /// Queues `label`'s statement (`SELECT '<label>'`; the text only matters for the statement cache).
    private func enqueue(_ pipeline: inout Pipeline, _ label: String, id: UInt64, groupable: Bool = true, sql: String? = nil) {
        let query = PostgresQuery(unsafeSQL: sql ?? "SELECT '\(label)'")
        let refused = pipeline.enqueue(.init(id: id, query: query, groupable: groupable, waiter: label))
        #expect(refused == nil)
    }

    /// Calls `nextSend` until `.idle`, naming each libpq call it asks for.
    private func send(_ pipeline: inout Pipeline) -> [String] {
        var calls: [String] = []
        while true {
            switch pipeline.nextSend() {
            case .sync: calls.append("sync")
            case .script(let sql): calls.append("script \(sql)")
            case .statement(let query, let name, let prepare):
                if prepare { calls.append("prepare \(name ?? "?")") }
                calls.append("\(query.sql)\(name.map { " as \($0)" } ?? "")")
            case .idle(let flush):
                calls.append(flush ? "flush" : "idle")
                return calls
            }
        }
    }

    /// Feeds what `PQgetResult` returned, in order; returns the completions, named, and the last step.
    @discardableResult
    private func read(_ pipeline: inout Pipeline, _ received: [Pipeline.Received]) -> (completed: [String: String], order: [String], step: String) {
        var completions: [Pipeline.Completion] = []
        var step = "next"
        pipeline.beginReading()
        for item in received {
            switch pipeline.receive(item, into: &completions) {
            case .next: step = "next"
            case .stop: step = "stop"
            case .scriptEnded: step = "scriptEnded"
            case .fail(let error): step = "fail \(error.code)"
            }
        }
        return named(completions, step: step)
    }

    private func named(_ completions: [Pipeline.Completion], step: String = "") -> (completed: [String: String], order: [String], step: String) {
        var completed: [String: String] = [:]
        for completion in completions {
            // A waiter answered twice would be a resumed continuation resumed again: a crash.
            #expect(completed[completion.waiter] == nil, "\(completion.waiter) answered twice")
            completed[completion.waiter] = Self.describe(completion.outcome)
        }
        return (completed, completions.map(\.waiter), step)
    }

    private static func describe(_ outcome: Pipeline.Outcome) -> String {
        switch outcome {
        case .rows(let rows): return "rows \(rows ?? "none")"
        case .failed(let error): return "failed \(error.sqlState ?? error.message)"
        case .cancelled: return "cancelled"
        }
    }

    // MARK: - Sync points

    @Test func groupableStatementsShareOneSyncPointAndCompleteOnlyThere() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        enqueue(&pipeline, "b", id: 2)
        enqueue(&pipeline, "c", id: 3, groupable: false)
        #expect(send(&pipeline) == ["SELECT 'a'", "SELECT 'b'", "sync", "SELECT 'c'", "sync", "flush"])
        #expect(pipeline.counters == PipelineCounters(statements: 3, syncs: 2, replays: 0))
        // Rows before the sync point complete nobody: the group's transaction has not committed yet.
        #expect(read(&pipeline, [.rows("A"), .endOfPiece, .rows("B"), .endOfPiece]).completed.isEmpty)
        let group = read(&pipeline, [.sync])
        #expect(group.completed == ["a": "rows A", "b": "rows B"])
        #expect(group.order == ["a", "b"])
        #expect(read(&pipeline, [.rows("C"), .endOfPiece, .sync]).completed == ["c": "rows C"])
        #expect(pipeline.isIdle)
    }

    @Test func aGroupHoldsAtMostSixteenStatements() {
        var pipeline = pipeline()
        for id in 1...17 { enqueue(&pipeline, "s", id: UInt64(id)) }
        let calls = send(&pipeline)
        #expect(calls.firstIndex(of: "sync") == Pipeline.maxGroupSize)
        #expect(calls.filter { $0 == "sync" }.count == 2)
    }

    @Test func twoNullsInARowStopTheReader() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        _ = send(&pipeline)
        #expect(read(&pipeline, [.rows("A"), .endOfPiece, .endOfPiece]).step == "stop")
        // The sync point, read later, completes it.
        #expect(read(&pipeline, [.sync]).completed == ["a": "rows A"])
    }

    // MARK: - Errors mid-pipeline

    /// b fails in the middle of [a, b, c]: the server rolls the group back and reports c as
    /// PIPELINE_ABORTED. Nobody completes at the sync point: all three are replayed alone, so
    /// a's insert is not lost, b fails on its own, and c runs.
    @Test func anErrorMidGroupReplaysEveryStatementAlone() {
        var pipeline = pipeline()
        for (id, label) in ["a", "b", "c"].enumerated() { enqueue(&pipeline, label, id: UInt64(id + 1)) }
        _ = send(&pipeline)
        let failed = read(&pipeline, [.rows("A"), .endOfPiece, .error(Self.divisionByZero), .endOfPiece, .aborted, .endOfPiece, .sync])
        #expect(failed.completed.isEmpty)
        #expect(pipeline.counters.replays == 3)
        // The sync point reset the pipeline: the replays go out one per sync point.
        #expect(send(&pipeline) == ["SELECT 'a'", "sync", "SELECT 'b'", "sync", "SELECT 'c'", "sync", "flush"])
        let replayed = read(&pipeline, [
            .rows("A2"), .endOfPiece, .sync,
            .error(Self.divisionByZero), .endOfPiece, .sync,
            .rows("C2"), .endOfPiece, .sync,
        ])
        #expect(replayed.completed == ["a": "rows A2", "b": "failed 22012", "c": "rows C2"])
        #expect(pipeline.isIdle)
    }

    /// The first statement of a group fails: it ran exactly as it would have alone, so its
    /// error is reported at once, with its query; the skipped one is replayed; the group
    /// after the sync point runs normally.
    @Test func anErrorFirstInItsGroupIsReportedAndTheNextGroupRuns() throws {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        enqueue(&pipeline, "b", id: 2)
        enqueue(&pipeline, "c", id: 3, groupable: false)
        _ = send(&pipeline)
        var completions: [Pipeline.Completion] = []
        pipeline.beginReading()
        for item: Pipeline.Received in [.error(Self.divisionByZero), .endOfPiece, .aborted, .endOfPiece, .sync, .rows("C"), .endOfPiece, .sync] {
            _ = pipeline.receive(item, into: &completions)
        }
        #expect(named(completions).completed == ["a": "failed 22012", "c": "rows C"])
        let first = try #require(completions.first)
        guard case .failed(let error) = first.outcome else { Issue.record("expected a's error"); return }
        #expect(error.query == "SELECT 'a'")
        #expect(pipeline.pending.map(\.waiter) == ["b"])
        #expect(send(&pipeline) == ["SELECT 'b'", "sync", "flush"])
        #expect(read(&pipeline, [.rows("B"), .endOfPiece, .sync]).completed == ["b": "rows B"])
    }

    /// A statement skipped with nothing to replay it for (alone under its sync point) fails
    /// with a clear error: never an empty success.
    @Test func aStatementSkippedAloneFailsClearly() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1, groupable: false)
        _ = send(&pipeline)
        let outcome = read(&pipeline, [.aborted, .endOfPiece, .sync])
        #expect(outcome.completed == ["a": "failed \(Pipeline.skipped.message)"])
    }

    /// An error at commit (a deferred constraint) comes after the group's last statement and
    /// names none of them: a lone statement fails with it, a group is replayed.
    @Test func anErrorAtCommitFailsALoneStatementAndReplaysAGroup() {
        var alone = pipeline()
        enqueue(&alone, "a", id: 1, groupable: false)
        _ = send(&alone)
        #expect(read(&alone, [.rows("A"), .endOfPiece, .error(Self.foreignKey), .endOfPiece, .sync]).completed == ["a": "failed 23503"])

        var group = pipeline()
        enqueue(&group, "a", id: 1)
        enqueue(&group, "b", id: 2)
        _ = send(&group)
        #expect(read(&group, [.rows("A"), .endOfPiece, .rows("B"), .endOfPiece, .error(Self.foreignKey), .endOfPiece, .sync]).completed.isEmpty)
        #expect(group.pending.map(\.waiter) == ["a", "b"])
    }

    /// A statement prepared in the same round trip: the prepare's result is not its rows; a
    /// failed prepare fails it (its execution is skipped) and is forgotten, so the next
    /// statement with that text prepares again.
    @Test func aPrepareAndItsFailure() {
        var pipeline = pipeline(cache: 8)
        enqueue(&pipeline, "a", id: 1, groupable: false, sql: "SELECT 1")
        #expect(send(&pipeline) == ["prepare payql_1", "SELECT 1 as payql_1", "sync", "flush"])
        #expect(read(&pipeline, [.rows("prepared"), .endOfPiece, .rows("A"), .endOfPiece, .sync]).completed == ["a": "rows A"])
        enqueue(&pipeline, "b", id: 2, groupable: false, sql: "SELECT 1")
        #expect(send(&pipeline) == ["SELECT 1 as payql_1", "sync", "flush"])
        _ = read(&pipeline, [.rows("B"), .endOfPiece, .sync])

        enqueue(&pipeline, "c", id: 3, groupable: false, sql: "SELEC 2")
        #expect(send(&pipeline) == ["prepare payql_2", "SELEC 2 as payql_2", "sync", "flush"])
        let syntax = PostgresError(.server, message: "syntax error", sqlState: "42601")
        #expect(read(&pipeline, [.error(syntax), .endOfPiece, .aborted, .endOfPiece, .sync]).completed == ["c": "failed 42601"])
        enqueue(&pipeline, "d", id: 4, groupable: false, sql: "SELEC 2")
        #expect(send(&pipeline) == ["prepare payql_3", "SELEC 2 as payql_3", "sync", "flush"])
    }

    // MARK: - Cancel

    @Test func aCancelledStatementNotYetSentNeverLeaves() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        guard case .complete(let completion) = pipeline.cancel(id: 1, canAskServer: true) else { Issue.record("expected completion"); return }
        #expect(named([completion]).completed == ["a": "cancelled"])
        #expect(send(&pipeline) == ["idle"])
        #expect(pipeline.isIdle)
    }

    /// Alone in flight: the server is asked to cancel it, nothing else is sent until the
    /// request was delivered, and its completion waits for both its result and the delivery,
    /// whichever comes last, so a late cancel can never hit the next statement.
    @Test func aStatementAloneInFlightIsCancelledOnTheServer() {
        for resultFirst in [true, false] {
            var pipeline = pipeline()
            enqueue(&pipeline, "a", id: 1)
            _ = send(&pipeline)
            guard case .askServer = pipeline.cancel(id: 1, canAskServer: true) else { Issue.record("expected a cancel request"); return }
            enqueue(&pipeline, "b", id: 2)
            #expect(send(&pipeline) == ["idle"], "nothing leaves while the cancel request is on its way")
            #expect(!pipeline.isIdle)
            if resultFirst {
                #expect(read(&pipeline, [.error(Self.canceled), .endOfPiece, .sync]).completed.isEmpty, "held until the cancel was delivered")
                let held = pipeline.cancelDelivered()
                #expect(named(held.map { [$0] } ?? []).completed == ["a": "cancelled"])
            } else {
                #expect(pipeline.cancelDelivered() == nil)
                #expect(read(&pipeline, [.error(Self.canceled), .endOfPiece, .sync]).completed == ["a": "cancelled"])
            }
            #expect(send(&pipeline) == ["SELECT 'b'", "sync", "flush"])
            #expect(read(&pipeline, [.rows("B"), .endOfPiece, .sync]).completed == ["b": "rows B"])
        }
    }

    /// With others pipelined behind it no cancel request is sent (it could hit one of them):
    /// the task is answered at once and the statement's result, when it comes, is dropped,
    /// never delivered a second time.
    @Test func aStatementWithNeighboursIsAnsweredAtOnceAndItsResultDropped() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1, groupable: false)
        enqueue(&pipeline, "b", id: 2, groupable: false)
        _ = send(&pipeline)
        guard case .complete(let completion) = pipeline.cancel(id: 1, canAskServer: true) else { Issue.record("expected completion"); return }
        #expect(named([completion]).completed == ["a": "cancelled"])
        #expect(read(&pipeline, [.rows("A"), .endOfPiece, .sync, .rows("B"), .endOfPiece, .sync]).completed == ["b": "rows B"])
        guard case .none = pipeline.cancel(id: 1, canAskServer: true) else { Issue.record("a finished statement has nothing to cancel"); return }
    }

    /// Without a `PGcancel` a statement alone is answered at once like one with neighbours.
    @Test func withoutACancelHandleNoRequestIsSent() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        _ = send(&pipeline)
        guard case .complete = pipeline.cancel(id: 1, canAskServer: false) else { Issue.record("expected completion"); return }
    }

    // MARK: - Connection loss

    /// Every statement in flight or queued fails with the connection's error, exactly once;
    /// later results are ignored, later statements fail at once, nothing is sent.
    @Test func connectionLossFailsEveryWaiterOnce() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        enqueue(&pipeline, "b", id: 2)
        _ = send(&pipeline)
        _ = read(&pipeline, [.rows("A"), .endOfPiece])
        enqueue(&pipeline, "c", id: 3)
        let failed = named(pipeline.fail(Self.lost) ?? [])
        #expect(failed.completed == ["a": "failed 08006", "b": "failed 08006", "c": "failed 08006"])
        #expect(pipeline.fail(Self.lost) == nil, "a second loss completes nobody again")
        #expect(read(&pipeline, [.rows("B"), .endOfPiece, .sync]).completed.isEmpty)
        let refused = pipeline.enqueue(.init(id: 4, query: "SELECT 1", waiter: "d"))
        #expect(refused.map { named([$0]).completed } == ["d": "failed 08006"])
        #expect(send(&pipeline) == ["idle"])
        #expect(!pipeline.isIdle && pipeline.count == 0)
    }

    /// Lost while a cancelled statement's completion waits for its cancel request: it is
    /// answered by the loss, once, and the delivery answers nobody again.
    @Test func connectionLossAnswersAHeldCancellation() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        _ = send(&pipeline)
        _ = pipeline.cancel(id: 1, canAskServer: true)
        _ = read(&pipeline, [.error(Self.canceled), .endOfPiece, .sync])
        #expect(named(pipeline.fail(Self.lost) ?? []).completed == ["a": "cancelled"])
        #expect(pipeline.cancelDelivered() == nil)
    }

    /// Lost in the middle of a failed group's replays: the replays (queued again) fail too.
    @Test func connectionLossFailsQueuedReplays() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        enqueue(&pipeline, "b", id: 2)
        _ = send(&pipeline)
        _ = read(&pipeline, [.rows("A"), .endOfPiece, .error(Self.divisionByZero), .endOfPiece, .sync])
        #expect(named(pipeline.fail(Self.lost) ?? []).completed == ["a": "failed 08006", "b": "failed 08006"])
    }

    // MARK: - Scripts

    /// A script waits until nothing else is in flight, leaves pipeline mode, keeps its last
    /// result, and completes at the NULL that ends it (after the driver re-entered pipeline mode).
    @Test func aScriptRunsAloneAndKeepsItsLastResult() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        _ = send(&pipeline)
        _ = pipeline.enqueue(.init(id: 2, query: "CREATE TABLE t (); SELECT 1", isScript: true, waiter: "script"))
        enqueue(&pipeline, "b", id: 3)
        #expect(send(&pipeline) == ["idle"], "the script waits for a")
        _ = read(&pipeline, [.rows("A"), .endOfPiece, .sync])
        #expect(send(&pipeline) == ["script CREATE TABLE t (); SELECT 1", "flush"])
        #expect(read(&pipeline, [.rows("created"), .rows("one"), .endOfPiece]).step == "scriptEnded")
        var completions: [Pipeline.Completion] = []
        pipeline.finishScript(into: &completions)
        #expect(named(completions).completed == ["script": "rows one"])
        #expect(send(&pipeline) == ["SELECT 'b'", "sync", "flush"])
    }

    @Test func copyIsRefused() {
        var pipeline = pipeline()
        enqueue(&pipeline, "a", id: 1)
        _ = send(&pipeline)
        #expect(read(&pipeline, [.copy]).step == "fail \(PostgresError.Code.protocolViolation)")
    }
}
