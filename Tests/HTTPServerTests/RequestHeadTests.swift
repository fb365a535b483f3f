@testable import HTTPServer
import Testing
import Synchronization

/// The pure parts of the hardening: head size, framing rules, slot decisions.
@Suite struct RequestHeadTests {
    @Test func headSizeIsTheCanonicalByteCount() {
        let headers: HTTPHeaders = ["Host": "x", "X-A": "12345"]
        let wire = "GET /p?q=1 HTTP/1.1\r\nHost: x\r\nX-A: 12345\r\n\r\n"
        #expect(RequestHead.size(method: "GET", target: "/p?q=1", version: "HTTP/1.1", headers: headers) == wire.utf8.count)
    }

    @Test func framingRules() {
        func status(_ pairs: [(String, String)], version: String = "HTTP/1.1") -> Int? {
            RequestHead.framingRefusal(headers: HTTPHeaders(pairs), version: version)?.status
        }
        #expect(status([]) == nil)
        #expect(status([("Content-Length", "5")]) == nil)
        #expect(status([("Content-Length", "5"), ("content-length", "5")]) == nil)
        #expect(status([("Content-Length", "5"), ("Content-Length", "50")]) == 400)
        #expect(status([("Transfer-Encoding", "chunked")]) == nil)
        #expect(status([("Transfer-Encoding", "Chunked")]) == nil)
        #expect(status([("Transfer-Encoding", "chunked"), ("Content-Length", "5")]) == 400)
        #expect(status([("Content-Length", "5"), ("Transfer-Encoding", "chunked")]) == 400)
        #expect(status([("Transfer-Encoding", "chunked")], version: "HTTP/1.0") == 400)
        #expect(status([("Transfer-Encoding", "gzip")]) == 400)
        #expect(status([("Transfer-Encoding", "chunked, gzip")]) == 400)
        #expect(status([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]) == 400)
        #expect(status([("Transfer-Encoding", "chunked, chunked")]) == 400)
        #expect(status([("Transfer-Encoding", "gzip, chunked")]) == 501)
        #expect(status([("Transfer-Encoding", "gzip"), ("Transfer-Encoding", "chunked")]) == 501)
        #expect(status([("Transfer-Encoding", "")]) == 400)
        let refusal = RequestHead.framingRefusal(headers: ["Transfer-Encoding": "gzip"], version: "HTTP/1.1")
        #expect(refusal?.headers["connection"] == "close")
    }

    @Test func aNewcomerReplacesTheConnectionWaitingLongestForAHead() {
        var table = SlotTable(perThreadLimit: 2)
        let a = ConnectionSlot(id: 101, descriptor: 10, worker: 1, now: 100)
        let b = ConnectionSlot(id: 102, descriptor: 11, worker: 1, now: 200)
        #expect(table.open(a) == nil)
        #expect(table.open(b) == nil)
        // Another thread's slots are counted apart.
        #expect(table.open(ConnectionSlot(id: 103, descriptor: 20, worker: 2, now: 50)) == nil)
        let c = ConnectionSlot(id: 104, descriptor: 12, worker: 1, now: 300)
        #expect(table.open(c) === a)
        // a is on its way out: it is neither counted nor chosen again.
        let d = ConnectionSlot(id: 105, descriptor: 13, worker: 1, now: 400)
        #expect(table.open(d) === b)
        table.close(a)
        table.close(b)
        #expect(table.count == 3)
    }

    @Test func connectionsWithRequestsInProgressKeepTheirSlots() {
        var table = SlotTable(perThreadLimit: 2)
        let busy = ConnectionSlot(id: 106, descriptor: 10, worker: 1, now: 100)
        let waiting = ConnectionSlot(id: 107, descriptor: 11, worker: 1, now: 200)
        _ = table.open(busy)
        _ = table.open(waiting)
        busy.headSince.store(0, ordering: .relaxed)
        let newcomer = ConnectionSlot(id: 108, descriptor: 12, worker: 1, now: 300)
        #expect(table.open(newcomer) === waiting)
        waiting.headSince.store(0, ordering: .relaxed)  // (its close is still on its way)
        table.close(waiting)
        newcomer.headSince.store(0, ordering: .relaxed)
        // Every connection busy: the newcomer itself is turned away.
        let another = ConnectionSlot(id: 109, descriptor: 13, worker: 1, now: 400)
        #expect(table.open(another) === another)
    }

    @Test func aNewcomerInTheSameMillisecondAsAnIdleConnectionStillReplacesIt() {
        var table = SlotTable(perThreadLimit: 1)
        let idle = ConnectionSlot(id: 201, descriptor: 10, worker: 1, now: 700)
        _ = table.open(idle)
        let newcomer = ConnectionSlot(id: 202, descriptor: 11, worker: 1, now: 700)
        #expect(table.open(newcomer) === idle)
    }

    @Test func headDeadlineFindsOnlyConnectionsWaitingSinceTheCutoff() {
        var table = SlotTable(perThreadLimit: 10)
        let old = ConnectionSlot(id: 110, descriptor: 10, worker: 1, now: 100)
        let recent = ConnectionSlot(id: 111, descriptor: 11, worker: 1, now: 900)
        let busy = ConnectionSlot(id: 112, descriptor: 12, worker: 2, now: 50)
        busy.headSince.store(0, ordering: .relaxed)
        for slot in [old, recent, busy] { _ = table.open(slot) }
        #expect(table.waitingForHead(since: 500).map(\.descriptor) == [10])
        #expect(table.waitingForHead(since: 500).isEmpty)  // marked: never shut down twice
        #expect(table.waitingForHead(since: .max).map(\.descriptor) == [11])
    }
}

extension RequestHeadTests {
    @Test func hungUpConnectionsCloseOnceTheyWaitForAHead() {
        var table = SlotTable(perThreadLimit: 10)
        let waiting = ConnectionSlot(id: 1, descriptor: 10, worker: 1, now: 100)
        let busy = ConnectionSlot(id: 2, descriptor: 11, worker: 1, now: 100)
        busy.headSince.store(0, ordering: .relaxed)
        _ = table.open(waiting)
        _ = table.open(busy)
        #expect(table.hungUp([1, 2, 99]).map(\.id) == [1])
        // The busy one is remembered: closed when its request is over.
        #expect(table.hungUp([]).isEmpty)
        busy.headSince.store(500, ordering: .relaxed)
        #expect(table.hungUp([]).map(\.id) == [2])
        #expect(table.hungUp([1, 2]).isEmpty)  // both already closing
    }
}
