@testable import Postgres
import Testing

/// The pool's decisions, event by event, without a server.
@Suite struct PoolStateTests {
    typealias State = PoolState<String>
    let now = ContinuousClock.now

    func state(max: Int = 3, pipelined: Int = 1, depth: Int = 2) -> State {
        State(limits: .init(maxConnections: max, pipelinedConnections: pipelined, maxPipelineDepth: depth, healthCheckAfterIdle: .seconds(30)))
    }

    @Test func opensUpToTheLimitThenQueues() {
        var pool = state(max: 2)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "a", now: now) else { Issue.record("expected open"); return }
        guard case .granted(.open) = pool.acquire(.exclusive, site: "b", now: now) else { Issue.record("expected open"); return }
        guard case .wait(let waiter) = pool.acquire(.exclusive, site: "c", now: now) else { Issue.record("expected wait"); return }
        let (slot, grants) = pool.opened("A", kind: .exclusive, site: "a", now: now)
        #expect(grants.isEmpty)
        let released = pool.release(slot: slot, kind: .exclusive, broken: false, now: now)
        #expect(released.grants.count == 1)
        #expect(released.grants.first?.waiter == waiter)
        if case .connection(_, let connection, _)? = released.grants.first?.1 { #expect(connection == "A") } else { Issue.record("expected a connection") }
    }

    @Test func sharedStatementsPipelineUpToTheDepth() {
        var pool = state(max: 3, pipelined: 1, depth: 2)
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected open"); return }
        // While the only pipelined connection is opening, more shared statements wait for it.
        guard case .wait(let first) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected wait"); return }
        guard case .wait = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected wait"); return }
        let (slot, grants) = pool.opened("S", kind: .shared, site: "", now: now)
        // Depth 2: the opener plus one waiter.
        #expect(grants.map(\.waiter) == [first])
        #expect(pool.counts.waiting == 1)
        // Exclusive users still get their own connection.
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        // One statement finishes: the last waiter joins the pipeline.
        let released = pool.release(slot: slot, kind: .shared, broken: false, now: now)
        #expect(released.grants.count == 1)
        #expect(pool.counts.waiting == 0)
    }

    @Test func brokenConnectionsFreeTheirRoom() {
        var pool = state(max: 1)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        let (slot, _) = pool.opened("A", kind: .exclusive, site: "", now: now)
        guard case .wait(let waiter) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected wait"); return }
        let released = pool.release(slot: slot, kind: .exclusive, broken: true, now: now)
        #expect(released.discard == "A")
        #expect(released.grants.map(\.waiter) == [waiter])
        if case .open? = released.grants.first?.1 {} else { Issue.record("the waiter should open a new connection") }
        #expect(pool.counts.open == 0 && pool.counts.opening == 1)
    }

    @Test func idleConnectionsLostToTheServerAreDropped() {
        var pool = state(max: 2)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        let (slot, _) = pool.opened("A", kind: .exclusive, site: "", now: now)
        _ = pool.release(slot: slot, kind: .exclusive, broken: false, now: now)
        #expect(pool.lost(slot: slot).discard == "A")
        #expect(pool.counts.open == 0)
    }

    @Test func longIdleConnectionsAreHealthChecked() {
        var pool = state(max: 1)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        let (slot, _) = pool.opened("A", kind: .exclusive, site: "", now: now)
        _ = pool.release(slot: slot, kind: .exclusive, broken: false, now: now)
        guard case .granted(.connection(_, _, let check)) = pool.acquire(.exclusive, site: "", now: now + .seconds(31)) else {
            Issue.record("expected the idle connection"); return
        }
        #expect(check)
    }

    @Test func shutdownFailsWaitersAndClosesIdle() {
        var pool = state(max: 2)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        let (a, _) = pool.opened("A", kind: .exclusive, site: "", now: now)
        guard case .granted(.open) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected open"); return }
        let (b, _) = pool.opened("B", kind: .exclusive, site: "leaker", now: now)
        _ = pool.release(slot: a, kind: .exclusive, broken: false, now: now)
        _ = pool.acquire(.exclusive, site: "", now: now)  // takes A again
        guard case .wait(let waiter) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected wait"); return }
        let closed = pool.shutdown()
        #expect(closed.waiters == [waiter])
        #expect(pool.longLeases(olderThan: .zero, now: now + .seconds(1)).map(\.site.description).contains("leaker"))
        #expect(pool.release(slot: b, kind: .exclusive, broken: false, now: now).discard == "B")
        guard case .closed = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected closed"); return }
    }

    @Test func aPipelinedConnectionLeftEmptyIsParkedAndStillServesEveryone() {
        var pool = state(max: 1, pipelined: 1, depth: 4)
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected open"); return }
        let (slot, _) = pool.opened("S", kind: .shared, site: "", now: now)
        #expect(pool.release(slot: slot, kind: .shared, broken: false, now: now).grants.isEmpty)
        // Parked: reported idle, and the next statement gets it back without opening.
        #expect(pool.counts.idle == 1 && pool.counts.shared == 0 && pool.counts.open == 1)
        guard case .granted(.connection(let again, let connection, false)) = pool.acquire(.shared, site: "", now: now) else {
            Issue.record("expected the parked connection"); return
        }
        #expect(again == slot && connection == "S" && pool.counts.shared == 1)
        _ = pool.release(slot: slot, kind: .shared, broken: false, now: now)
        // An exclusive acquirer takes the parked connection (max 1: nothing else could be opened).
        guard case .granted(.connection(_, let leased, _)) = pool.acquire(.exclusive, site: "x", now: now) else {
            Issue.record("expected the parked connection for exclusive use"); return
        }
        #expect(leased == "S" && pool.counts.leased == 1 && pool.counts.idle == 0)
        // Meanwhile a statement waits; released, the connection goes to it.
        guard case .wait(let waiter) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected wait"); return }
        #expect(pool.release(slot: slot, kind: .exclusive, broken: false, now: now).grants.map(\.waiter) == [waiter])
        // With a waiter queued, a pipelined connection falling empty is handed over, not parked.
        guard case .wait(let exclusiveWaiter) = pool.acquire(.exclusive, site: "", now: now) else { Issue.record("expected wait"); return }
        #expect(pool.release(slot: slot, kind: .shared, broken: false, now: now).grants.map(\.waiter) == [exclusiveWaiter])
        #expect(pool.counts.leased == 1)
    }

    @Test func parkedConnectionsAreHealthCheckedDroppedWhenLostAndClosedAtShutdown() {
        var pool = state(max: 2, pipelined: 2, depth: 4)
        guard let slots = parkTwoPipelinedConnections(&pool) else { return }
        let (a, b) = slots
        #expect(pool.lost(slot: a).discard == "A")
        #expect(pool.counts.open == 1)
        guard case .granted(.connection(_, let connection, let check)) = pool.acquire(.shared, site: "", now: now + .seconds(31)) else {
            Issue.record("expected the parked connection"); return
        }
        #expect(connection == "B" && check)
        // In use: losing it does not drop it; its users release it as broken.
        #expect(pool.lost(slot: b).discard == nil)
        _ = pool.release(slot: b, kind: .shared, broken: false, now: now)
        #expect(pool.shutdown().idle == ["B"])
        #expect(pool.counts.open == 0)
    }

    /// Opens pipelined connections "A" and "B" and parks both (their statements done);
    /// their slots, or nil after recording why not.
    private func parkTwoPipelinedConnections(_ pool: inout State) -> (a: Int, b: Int)? {
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected open"); return nil }
        let (a, _) = pool.opened("A", kind: .shared, site: "", now: now)
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected a second pipelined connection"); return nil }
        let (b, _) = pool.opened("B", kind: .shared, site: "", now: now)
        _ = pool.release(slot: a, kind: .shared, broken: false, now: now)
        _ = pool.release(slot: b, kind: .shared, broken: false, now: now)
        return (a, b)
    }

    /// Names the connection a shared grant carries ("" for anything else).
    private func granted(_ decision: State.Decision) -> String {
        if case .granted(.connection(_, let connection, _)) = decision { return connection }
        return ""
    }

    /// Tasks on an I/O thread keep to the pipelined connection that thread reads while it
    /// carries at most one statement more than the least loaded one, and otherwise go to the
    /// least loaded; a preference never stops a second pipelined connection from opening.
    @Test func sharedStatementsKeepToThePreferredConnectionWithinOneOfTheLeastLoaded() {
        var pool = state(max: 4, pipelined: 2, depth: 8)
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected open"); return }
        _ = pool.opened("A", kind: .shared, site: "", now: now)
        // A carries one statement and a second pipelined connection may open: the preference waits.
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" }) else {
            Issue.record("expected the second pipelined connection to open"); return
        }
        _ = pool.opened("B", kind: .shared, site: "", now: now)
        // A 1, B 1: A is preferred up to one more than B.
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" })) == "A")
        // A 2, B 1: still within one.
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" })) == "A")
        // A 3, B 1: too far ahead; the least loaded takes it.
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" })) == "B")
        // Without a preference: the least loaded (B 2 against A 3).
        #expect(granted(pool.acquire(.shared, site: "", now: now)) == "B")
        // Preferring B (3, A 3).
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "B" })) == "B")
    }

    /// A parked preferred connection is taken even when another one is parked too.
    @Test func aParkedPreferredConnectionIsTakenFirst() {
        var pool = state(max: 4, pipelined: 2, depth: 8)
        guard parkTwoPipelinedConnections(&pool) != nil else { return }
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "B" })) == "B")
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "B" })) == "B")
    }

    /// `strictly` (a task on an I/O thread that also serves an HTTP server): the preferred
    /// pipelined connection is taken however far ahead of the others it is, up to its depth.
    @Test func aStrictPreferenceKeepsToThePreferredConnectionUpToItsDepth() {
        var pool = state(max: 4, pipelined: 2, depth: 4)
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now) else { Issue.record("expected open"); return }
        _ = pool.opened("A", kind: .shared, site: "", now: now)
        // Strict or not, the second pipelined connection still opens first.
        guard case .granted(.open) = pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" }, strictly: true) else {
            Issue.record("expected the second pipelined connection to open"); return
        }
        _ = pool.opened("B", kind: .shared, site: "", now: now)
        // A 1, B 1 → A 2, 3, 4 (the depth) although B carries 1.
        for _ in 0..<3 {
            #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" }, strictly: true)) == "A")
        }
        // A is at its depth: the least loaded takes it.
        #expect(granted(pool.acquire(.shared, site: "", now: now, preferring: { $0 == "A" }, strictly: true)) == "B")
    }
}
