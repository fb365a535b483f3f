/// The pool's bookkeeping as a plain value: which connection is idle, leased
/// or shared by pipelined statements, who waits, what may be opened. Every
/// decision is made here under the pool's lock and carried out outside it;
/// it does no I/O, so it is tested event by event without a server.
struct PoolState<Connection> {
    /// Exclusive use (`withConnection`, transactions) or a pipelined statement (`query`).
    enum Kind: Equatable { case exclusive, shared }

    enum Use: Equatable {
        case idle(since: ContinuousClock.Instant)
        case leased(since: ContinuousClock.Instant, site: LeaseSite)
        /// Carrying pipelined statements; their count is in `sharedSlots`.
        case shared
    }

    struct Slot {
        let connection: Connection
        var use: Use
    }

    /// A connection in `.shared` use. With no statement left (`count` 0) it stays
    /// *parked* there — the next `query` finds it without touching `slots` — yet
    /// counts as idle: an exclusive acquirer takes it, and a waiter gets it at once.
    struct SharedSlot {
        let id: Int
        var count: Int
        /// When `count` last fell to 0.
        var since: ContinuousClock.Instant
    }

    /// What an acquirer or waiter receives.
    enum Grant {
        /// Use this connection (`healthCheck`: it sat idle long enough to be pinged first).
        case connection(slot: Int, Connection, healthCheck: Bool)
        /// Open a new connection: room is reserved for it (call `opened` or `openFailed`).
        case open
    }

    enum Decision {
        case granted(Grant)
        case wait(waiter: Int)
        case closed
    }

    struct Limits {
        var maxConnections: Int
        var pipelinedConnections: Int
        var maxPipelineDepth: Int
        var healthCheckAfterIdle: Duration
    }

    let limits: Limits
    private(set) var slots: [Int: Slot] = [:]
    private(set) var opening = 0
    private(set) var openingShared = 0
    private(set) var waiters: [(id: Int, kind: Kind, site: LeaseSite)] = []
    private(set) var closed = false
    private var lastID = 0
    /// The slots in `.shared` use (at most `pipelinedConnections`), with their statement counts.
    private(set) var sharedSlots: [SharedSlot] = []

    init(limits: Limits) { self.limits = limits }

    private var sharedCount: Int { sharedSlots.count }

    private var hasRoom: Bool { slots.count + opening < limits.maxConnections }

    private mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    /// A task wants a connection. `prefer`: for `.shared`, the pipelined connections the
    /// caller would rather use (those read by the I/O thread it runs on); one is taken
    /// when it carries at most one statement more than the least loaded one — whatever the
    /// others carry when `strictly` (below its pipeline depth) — and once no more pipelined
    /// connections may be opened (or when it is parked).
    mutating func acquire(
        _ kind: Kind, site: LeaseSite, now: ContinuousClock.Instant, preferring prefer: ((Connection) -> Bool)? = nil,
        strictly: Bool = false
    ) -> Decision {
        if closed { return .closed }
        switch kind {
        case .exclusive:
            if let grant = takeIdle(for: .exclusive, site: site, now: now) { return .granted(grant) }
            if hasRoom {
                opening += 1
                return .granted(.open)
            }
        case .shared:
            if let prefer, let index = preferredShared(prefer, strictly: strictly) {
                return .granted(joinShared(at: index, now: now))
            }
            // A parked pipelined connection first (no bookkeeping beyond its count).
            if let index = sharedSlots.firstIndex(where: { $0.count == 0 }) {
                return .granted(joinShared(at: index, now: now))
            }
            if sharedCount + openingShared < limits.pipelinedConnections {
                if let grant = takeIdle(for: .shared, site: site, now: now) { return .granted(grant) }
                if hasRoom {
                    opening += 1
                    openingShared += 1
                    return .granted(.open)
                }
            }
            if let index = leastLoadedShared() { return .granted(joinShared(at: index, now: now)) }
        }
        let id = nextID()
        waiters.append((id, kind, site))
        return .wait(waiter: id)
    }

    /// The most recently used idle connection (a parked pipelined one counts): its socket and caches are warm.
    private mutating func takeIdle(for kind: Kind, site: LeaseSite, now: ContinuousClock.Instant) -> Grant? {
        var best: (id: Int, since: ContinuousClock.Instant)?
        for (id, slot) in slots {
            if case .idle(let since) = slot.use, best.map({ since > $0.since }) ?? true { best = (id, since) }
        }
        var parked: Int?
        if kind == .exclusive {
            for index in sharedSlots.indices where sharedSlots[index].count == 0 {
                if best.map({ sharedSlots[index].since > $0.since }) ?? true {
                    best = (sharedSlots[index].id, sharedSlots[index].since)
                    parked = index
                }
            }
        }
        guard let best, let slot = slots[best.id] else { return nil }
        if let parked { sharedSlots.remove(at: parked) }
        if kind == .exclusive {
            slots[best.id]?.use = .leased(since: now, site: site)
        } else {
            slots[best.id]?.use = .shared
            sharedSlots.append(SharedSlot(id: best.id, count: 1, since: now))
        }
        return .connection(slot: best.id, slot.connection, healthCheck: best.since.duration(to: now) > limits.healthCheckAfterIdle)
    }

    /// The first pipelined connection `prefer` accepts, if it is parked, or if no more may be
    /// opened and it carries at most one statement more than the least loaded one (so tasks
    /// keep to their own I/O thread's connection without piling onto it) or, `strictly`, any
    /// number below the pipeline depth.
    private func preferredShared(_ prefer: (Connection) -> Bool, strictly: Bool) -> Int? {
        var preferred: Int?
        var least = Int.max
        for index in sharedSlots.indices {
            let count = sharedSlots[index].count
            least = min(least, count)
            if preferred == nil, count < limits.maxPipelineDepth, let slot = slots[sharedSlots[index].id], prefer(slot.connection) {
                preferred = index
            }
        }
        guard let preferred else { return nil }
        let count = sharedSlots[preferred].count
        if count == 0 { return preferred }
        if sharedCount + openingShared < limits.pipelinedConnections { return nil }
        return strictly || count <= least + 1 ? preferred : nil
    }

    private func leastLoadedShared() -> Int? {
        var best: Int?
        for index in sharedSlots.indices where sharedSlots[index].count < limits.maxPipelineDepth {
            if let current = best, sharedSlots[current].count <= sharedSlots[index].count { continue }
            best = index
        }
        return best
    }

    private mutating func joinShared(at index: Int, now: ContinuousClock.Instant) -> Grant {
        let shared = sharedSlots[index]
        sharedSlots[index].count += 1
        let healthCheck = shared.count == 0 && shared.since.duration(to: now) > limits.healthCheckAfterIdle
        // `slots[id]` exists for every shared slot (both are updated together); checked all the same.
        guard let connection = slots[shared.id]?.connection else { preconditionFailure("shared slot \(shared.id) has no slot") }
        return .connection(slot: shared.id, connection, healthCheck: healthCheck)
    }

    /// A connection opened after an `.open` grant; it is in use by its opener. Returns grants for waiters.
    mutating func opened(_ connection: Connection, kind: Kind, site: LeaseSite, now: ContinuousClock.Instant) -> (slot: Int, grants: [(waiter: Int, Grant)]) {
        opening -= 1
        if kind == .shared { openingShared -= 1 }
        let id = nextID()
        if kind == .exclusive {
            slots[id] = Slot(connection: connection, use: .leased(since: now, site: site))
            return (id, [])
        }
        slots[id] = Slot(connection: connection, use: .shared)
        sharedSlots.append(SharedSlot(id: id, count: 1, since: now))
        return (id, serveSharedWaiters(on: id))
    }

    /// Opening failed: the reserved room goes to a waiter, if any.
    mutating func openFailed(kind: Kind) -> [(waiter: Int, Grant)] {
        opening -= 1
        if kind == .shared { openingShared -= 1 }
        return serveWaitersWithRoom()
    }

    /// A connection is handed back. `broken`: it was closed or lost, and is dropped.
    /// Returns the waiters served and the connection to close, if any.
    mutating func release(slot id: Int, kind: Kind, broken: Bool, now: ContinuousClock.Instant) -> (grants: [(waiter: Int, Grant)], discard: Connection?) {
        guard let slot = slots[id] else { return ([], nil) }
        if case .shared = slot.use, let index = sharedSlots.firstIndex(where: { $0.id == id }) {
            sharedSlots[index].count -= 1
            let remaining = sharedSlots[index].count
            if broken {
                // Others still have statements on it; the last one out removes it.
                if remaining > 0 { return ([], nil) }
                sharedSlots.remove(at: index)
                slots[id] = nil
                return (serveWaitersWithRoom(), slot.connection)
            }
            if remaining > 0 { return (serveSharedWaiters(on: id), nil) }
            if closed {
                sharedSlots.remove(at: index)
                slots[id] = nil
                return ([], slot.connection)
            }
            if waiters.isEmpty {
                // Parked: the next statement finds it here.
                sharedSlots[index].since = now
                return ([], nil)
            }
            sharedSlots.remove(at: index)
            slots[id]?.use = .idle(since: now)
            return (serveIdle(id, now: now), nil)
        }
        if broken {
            slots[id] = nil
            return (serveWaitersWithRoom(), slot.connection)
        }
        if closed {
            slots[id] = nil
            return ([], slot.connection)
        }
        slots[id]?.use = .idle(since: now)
        return (serveIdle(id, now: now), nil)
    }

    /// An idle (or parked) connection was found closed by the server: drop it. Returns waiters served and the connection.
    mutating func lost(slot id: Int) -> (grants: [(waiter: Int, Grant)], discard: Connection?) {
        guard let slot = slots[id] else { return ([], nil) }
        switch slot.use {
        case .idle: break
        case .shared:
            guard let index = sharedSlots.firstIndex(where: { $0.id == id }), sharedSlots[index].count == 0 else { return ([], nil) }
            sharedSlots.remove(at: index)
        case .leased: return ([], nil)
        }
        slots[id] = nil
        return (serveWaitersWithRoom(), slot.connection)
    }

    /// Gives the newly idle slot `id` to the first waiter that may use it.
    private mutating func serveIdle(_ id: Int, now: ContinuousClock.Instant) -> [(waiter: Int, Grant)] {
        guard let slot = slots[id] else { return [] }
        let canShare = sharedCount + openingShared < limits.pipelinedConnections
        guard let index = waiters.firstIndex(where: { $0.kind == .exclusive || canShare }) else { return [] }
        let waiter = waiters.remove(at: index)
        if waiter.kind == .exclusive {
            slots[id]?.use = .leased(since: now, site: waiter.site)
            return [(waiter.id, .connection(slot: id, slot.connection, healthCheck: false))]
        }
        slots[id]?.use = .shared
        sharedSlots.append(SharedSlot(id: id, count: 1, since: now))
        return [(waiter.id, .connection(slot: id, slot.connection, healthCheck: false))] + serveSharedWaiters(on: id)
    }

    /// Lets shared waiters pipeline onto `id` up to the depth limit.
    private mutating func serveSharedWaiters(on id: Int) -> [(waiter: Int, Grant)] {
        var grants: [(waiter: Int, Grant)] = []
        guard let shared = sharedSlots.firstIndex(where: { $0.id == id }), let slot = slots[id] else { return grants }
        while sharedSlots[shared].count < limits.maxPipelineDepth, let index = waiters.firstIndex(where: { $0.kind == .shared }) {
            let waiter = waiters.remove(at: index)
            sharedSlots[shared].count += 1
            grants.append((waiter.id, .connection(slot: id, slot.connection, healthCheck: false)))
        }
        return grants
    }

    /// Room freed up: let the first waiter that may open a connection do so.
    private mutating func serveWaitersWithRoom() -> [(waiter: Int, Grant)] {
        guard !closed, hasRoom else { return [] }
        let canShare = sharedCount + openingShared < limits.pipelinedConnections
        guard let index = waiters.firstIndex(where: { $0.kind == .exclusive || canShare }) else { return [] }
        let waiter = waiters.remove(at: index)
        opening += 1
        if waiter.kind == .shared { openingShared += 1 }
        return [(waiter.id, .open)]
    }

    /// Whether `id` is still waiting.
    func isWaiting(_ id: Int) -> Bool { waiters.contains { $0.id == id } }

    /// A waiter gave up (timeout or cancellation); false if it was already served.
    mutating func removeWaiter(_ id: Int) -> Bool {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return false }
        waiters.remove(at: index)
        return true
    }

    /// Closes the pool: returns the waiters to fail and the idle (and parked) connections to close.
    mutating func shutdown() -> (waiters: [Int], idle: [Connection]) {
        closed = true
        let failed = waiters.map(\.id)
        waiters.removeAll()
        var idle: [Connection] = []
        for (id, slot) in slots {
            if case .idle = slot.use {
                idle.append(slot.connection)
                slots[id] = nil
            }
        }
        for shared in sharedSlots where shared.count == 0 {
            if let slot = slots.removeValue(forKey: shared.id) { idle.append(slot.connection) }
        }
        sharedSlots.removeAll { $0.count == 0 }
        return (failed, idle)
    }

    /// Leases held for longer than `threshold`, with where they were taken.
    func longLeases(olderThan threshold: Duration, now: ContinuousClock.Instant) -> [(site: LeaseSite, held: Duration)] {
        slots.values.compactMap { slot in
            if case .leased(let since, let site) = slot.use, since.duration(to: now) > threshold { (site, since.duration(to: now)) } else { nil }
        }
    }

    /// The connections in `.shared` use (parked ones included).
    var sharedConnections: [Connection] { sharedSlots.compactMap { slots[$0.id]?.connection } }

    /// Counts for statistics (a parked pipelined connection counts as idle).
    var counts: (open: Int, idle: Int, leased: Int, shared: Int, opening: Int, waiting: Int) {
        var idle = 0, leased = 0
        for slot in slots.values {
            switch slot.use {
            case .idle: idle += 1
            case .leased: leased += 1
            case .shared: break
            }
        }
        let parked = sharedSlots.count(where: { $0.count == 0 })
        return (slots.count, idle + parked, leased, sharedSlots.count - parked, opening, waiters.count)
    }
}

extension PoolState.Grant: Sendable where Connection: Sendable {}

/// Where a connection was acquired (`#fileID` and `#line`), kept unformatted until a leak report needs it.
struct LeaseSite: Equatable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    let file: String
    let line: Int

    init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    init(stringLiteral value: String) {
        file = value
        line = 0
    }

    var description: String { line == 0 ? file : "\(file):\(line)" }
}
