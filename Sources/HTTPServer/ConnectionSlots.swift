import Synchronization

/// One open connection, from libmicrohttpd's "started" notification to its
/// "closed" one (retained in between as the connection's `socket_context`).
///
/// Its only per-request state is `headSince`: the millisecond (coarse
/// monotonic clock) since which the connection has been waiting for a request
/// head — set at accept and whenever a request ends, cleared when a head is
/// complete. A connection with `headSince != 0` is doing nothing for anybody
/// yet: it is what the head deadline cuts, what shutdown closes first and what
/// a newcomer may replace when the slots are full.
final class ConnectionSlot: Sendable {
    /// Unique among the server's connections (the hang-up watch reports it).
    let id: UInt64
    /// The socket, valid until the "closed" notification (which runs before
    /// libmicrohttpd closes it, and which removes the slot under the table's lock).
    let descriptor: Int32
    /// The pool thread's daemon serving the connection (its address: slots are counted per thread).
    let worker: UInt
    /// Asks the event loop running that daemon for a run after the connection is resumed;
    /// nil for a daemon with threads of its own.
    let waker: LoopWaker?
    /// Milliseconds on `cpayql_monotonic_coarse_ms`'s clock since the connection
    /// has been waiting for a request head; `0` while a request is in progress.
    let headSince: Atomic<Int64>

    init(id: UInt64, descriptor: Int32, worker: UInt, now: Int64, waker: LoopWaker? = nil) {
        self.id = id
        self.descriptor = descriptor
        self.worker = worker
        self.waker = waker
        self.headSince = Atomic(max(1, now))
    }
}

/// The open connections per pool thread, and the decisions about which of them
/// to close: a plain value (kept behind a lock by `ServerCore`), tested without I/O.
///
/// libmicrohttpd divides its connection limit among the pool threads and a
/// thread at its share stops accepting, so slots are counted per thread. The
/// daemon is given one slot per thread more than `perThreadLimit × threads`:
/// when a connection arrives and its thread then holds more than
/// `perThreadLimit`, the connection that has waited longest for a request head
/// on that thread is closed to make room — the newcomer itself when every other
/// connection has a request in progress. Slow or idle clients can then never
/// keep a newcomer (a health check) out; only requests in progress hold slots.
struct SlotTable {
    /// Connections a pool thread keeps before a newcomer replaces one waiting for a head.
    let perThreadLimit: Int
    private var byWorker: [UInt: Worker] = [:]
    private var byID: [UInt64: ConnectionSlot] = [:]
    /// Connections whose client closed its side while a request was in progress
    /// (its answer is still owed): closed once they wait for a head again.
    private var hungUp: Set<UInt64> = []

    private struct Worker {
        var slots: [ObjectIdentifier: ConnectionSlot] = [:]
        /// Slots already told to close (their "closed" notification is on its way):
        /// they no longer count against the limit and are never chosen twice.
        var closing: Set<ObjectIdentifier> = []
        var live: Int { slots.count - closing.count }
    }

    init(perThreadLimit: Int) {
        self.perThreadLimit = max(1, perThreadLimit)
    }

    /// Open connections, including those being closed.
    var count: Int { byWorker.values.reduce(0) { $0 + $1.slots.count } }

    /// Records a new connection; returns the connection to close to make room (possibly
    /// the new one), if its thread is over the limit.
    mutating func open(_ slot: ConnectionSlot) -> ConnectionSlot? {
        let key = ObjectIdentifier(slot)
        // Mutated in place (`default:` subscript): a copy of the worker would copy its tables.
        byWorker[slot.worker, default: Worker()].slots[key] = slot
        byID[slot.id] = slot
        guard let worker = byWorker[slot.worker], worker.live > perThreadLimit else { return nil }
        // The newcomer itself is chosen, i.e. turned away, only when no other connection
        // waits for a head (it may share the oldest one's coarse millisecond).
        var victim: (key: ObjectIdentifier, slot: ConnectionSlot)?
        var oldest = Int64.max
        for (candidateKey, candidate) in worker.slots where candidateKey != key && !worker.closing.contains(candidateKey) {
            let since = candidate.headSince.load(ordering: .relaxed)
            if since != 0, since < oldest {
                oldest = since
                victim = (candidateKey, candidate)
            }
        }
        let chosen = victim ?? (key, slot)
        byWorker[slot.worker, default: Worker()].closing.insert(chosen.key)
        return chosen.slot
    }

    /// Forgets a connection libmicrohttpd closed.
    mutating func close(_ slot: ConnectionSlot) {
        let key = ObjectIdentifier(slot)
        byID[slot.id] = nil
        hungUp.remove(slot.id)
        guard byWorker[slot.worker] != nil else { return }
        byWorker[slot.worker, default: Worker()].slots[key] = nil
        byWorker[slot.worker, default: Worker()].closing.remove(key)
        if byWorker[slot.worker]?.slots.isEmpty == true { byWorker[slot.worker] = nil }
    }

    /// The connections that have waited for a request head since `cutoff` or
    /// earlier (every waiting one for `.max`), marked as closing.
    mutating func waitingForHead(since cutoff: Int64) -> [ConnectionSlot] {
        var found: [(worker: UInt, key: ObjectIdentifier, slot: ConnectionSlot)] = []
        for (address, worker) in byWorker {
            for (key, slot) in worker.slots where !worker.closing.contains(key) {
                let since = slot.headSince.load(ordering: .relaxed)
                if since != 0, since <= cutoff { found.append((address, key, slot)) }
            }
        }
        for entry in found { byWorker[entry.worker, default: Worker()].closing.insert(entry.key) }
        return found.map(\.slot)
    }

    /// Records connections whose client closed its side (`ids` from the hang-up watch)
    /// and returns, marked as closing, those of them (and of earlier ones) now waiting
    /// for a head: nothing more can arrive on them. A half-closed connection with a
    /// request in progress keeps it (a client may half-close after sending a request).
    mutating func hungUp(_ ids: [UInt64]) -> [ConnectionSlot] {
        hungUp.formUnion(ids)
        var found: [ConnectionSlot] = []
        for id in hungUp {
            guard let slot = byID[id] else {
                hungUp.remove(id)
                continue
            }
            let key = ObjectIdentifier(slot)
            if byWorker[slot.worker]?.closing.contains(key) == true {
                hungUp.remove(id)
            } else if slot.headSince.load(ordering: .relaxed) != 0 {
                hungUp.remove(id)
                byWorker[slot.worker, default: Worker()].closing.insert(key)
                found.append(slot)
            }
        }
        return found
    }
}
