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
        case shared(Int)
    }

    struct Slot {
        let connection: Connection
        var use: Use
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
    /// The slots in `.shared` use, with their statement counts: `pool.query` looks here
    /// first, without walking every slot.
    private var sharedSlots: [(id: Int, count: Int)] = []

    init(limits: Limits) { self.limits = limits }

    private var sharedCount: Int { sharedSlots.count }

    /// Sets slot `id`'s use (nil removes the slot), keeping `sharedSlots` in step.
    private mutating func setUse(_ id: Int, _ use: Use?) {
        if let index = sharedSlots.firstIndex(where: { $0.id == id }) {
            if case .shared(let count)? = use { sharedSlots[index].count = count } else { sharedSlots.remove(at: index) }
        } else if case .shared(let count)? = use {
            sharedSlots.append((id, count))
        }
        if let use { slots[id]?.use = use } else { slots[id] = nil }
    }

    private var hasRoom: Bool { slots.count + opening < limits.maxConnections }

    private mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    /// A task wants a connection.
    mutating func acquire(_ kind: Kind, site: LeaseSite, now: ContinuousClock.Instant) -> Decision {
        if closed { return .closed }
        switch kind {
        case .exclusive:
            if let grant = takeIdle(for: .exclusive, site: site, now: now) { return .granted(grant) }
            if hasRoom {
                opening += 1
                return .granted(.open)
            }
        case .shared:
            if sharedCount + openingShared < limits.pipelinedConnections {
                if let grant = takeIdle(for: .shared, site: site, now: now) { return .granted(grant) }
                if hasRoom {
                    opening += 1
                    openingShared += 1
                    return .granted(.open)
                }
            }
            if let grant = joinShared() { return .granted(grant) }
        }
        let id = nextID()
        waiters.append((id, kind, site))
        return .wait(waiter: id)
    }

    private mutating func takeIdle(for kind: Kind, site: LeaseSite, now: ContinuousClock.Instant) -> Grant? {
        // The most recently used idle connection: its socket and caches are warm.
        var best: (id: Int, since: ContinuousClock.Instant)?
        for (id, slot) in slots {
            if case .idle(let since) = slot.use, best == nil || since > best.unsafelyUnwrapped.since { best = (id, since) }
        }
        guard let best, let slot = slots[best.id] else { return nil }
        setUse(best.id, kind == .exclusive ? .leased(since: now, site: site) : .shared(1))
        return .connection(slot: best.id, slot.connection, healthCheck: best.since.duration(to: now) > limits.healthCheckAfterIdle)
    }

    private mutating func joinShared() -> Grant? {
        var best: Int?
        for index in sharedSlots.indices where sharedSlots[index].count < limits.maxPipelineDepth {
            if let current = best, sharedSlots[current].count <= sharedSlots[index].count { continue }
            best = index
        }
        guard let best, let slot = slots[sharedSlots[best].id] else { return nil }
        sharedSlots[best].count += 1
        slots[sharedSlots[best].id]?.use = .shared(sharedSlots[best].count)
        return .connection(slot: sharedSlots[best].id, slot.connection, healthCheck: false)
    }

    /// A connection opened after an `.open` grant; it is in use by its opener. Returns grants for waiters.
    mutating func opened(_ connection: Connection, kind: Kind, site: LeaseSite, now: ContinuousClock.Instant) -> (slot: Int, grants: [(waiter: Int, Grant)]) {
        opening -= 1
        if kind == .shared { openingShared -= 1 }
        let id = nextID()
        slots[id] = Slot(connection: connection, use: .idle(since: now))
        setUse(id, kind == .exclusive ? .leased(since: now, site: site) : .shared(1))
        return (id, kind == .shared ? serveSharedWaiters(on: id) : [])
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
        if broken {
            if kind == .shared, case .shared(let count) = slot.use, count > 1 {
                // Others still have statements on it; the last one out removes it.
                setUse(id, .shared(count - 1))
                return ([], nil)
            }
            setUse(id, nil)
            return (serveWaitersWithRoom(), slot.connection)
        }
        if case .shared(let count) = slot.use, count > 1 {
            setUse(id, .shared(count - 1))
            return (serveSharedWaiters(on: id), nil)
        }
        if closed {
            setUse(id, nil)
            return ([], slot.connection)
        }
        setUse(id, .idle(since: now))
        return (serveIdle(id, now: now), nil)
    }

    /// An idle connection was found closed by the server: drop it. Returns waiters served and the connection.
    mutating func lost(slot id: Int) -> (grants: [(waiter: Int, Grant)], discard: Connection?) {
        guard let slot = slots[id], case .idle = slot.use else { return ([], nil) }
        setUse(id, nil)
        return (serveWaitersWithRoom(), slot.connection)
    }

    /// Gives the newly idle slot `id` to the first waiter that may use it.
    private mutating func serveIdle(_ id: Int, now: ContinuousClock.Instant) -> [(waiter: Int, Grant)] {
        guard let slot = slots[id] else { return [] }
        let canShare = sharedCount + openingShared < limits.pipelinedConnections
        guard let index = waiters.firstIndex(where: { $0.kind == .exclusive || canShare }) else { return [] }
        let waiter = waiters.remove(at: index)
        if waiter.kind == .exclusive {
            setUse(id, .leased(since: now, site: waiter.site))
            return [(waiter.id, .connection(slot: id, slot.connection, healthCheck: false))]
        }
        setUse(id, .shared(1))
        return [(waiter.id, .connection(slot: id, slot.connection, healthCheck: false))] + serveSharedWaiters(on: id)
    }

    /// Lets shared waiters pipeline onto `id` up to the depth limit.
    private mutating func serveSharedWaiters(on id: Int) -> [(waiter: Int, Grant)] {
        var grants: [(waiter: Int, Grant)] = []
        while let slot = slots[id], case .shared(let count) = slot.use, count < limits.maxPipelineDepth,
              let index = waiters.firstIndex(where: { $0.kind == .shared }) {
            let waiter = waiters.remove(at: index)
            setUse(id, .shared(count + 1))
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

    /// Closes the pool: returns the waiters to fail and the idle connections to close.
    mutating func shutdown() -> (waiters: [Int], idle: [Connection]) {
        closed = true
        let failed = waiters.map(\.id)
        waiters.removeAll()
        var idle: [Connection] = []
        for (id, slot) in slots {
            if case .idle = slot.use {
                idle.append(slot.connection)
                setUse(id, nil)
            }
        }
        return (failed, idle)
    }

    /// Leases held for longer than `threshold`, with where they were taken.
    func longLeases(olderThan threshold: Duration, now: ContinuousClock.Instant) -> [(site: LeaseSite, held: Duration)] {
        slots.values.compactMap { slot in
            if case .leased(let since, let site) = slot.use, since.duration(to: now) > threshold { (site, since.duration(to: now)) } else { nil }
        }
    }

    /// Counts for statistics.
    var counts: (open: Int, idle: Int, leased: Int, shared: Int, opening: Int, waiting: Int) {
        var idle = 0, leased = 0, shared = 0
        for slot in slots.values {
            switch slot.use {
            case .idle: idle += 1
            case .leased: leased += 1
            case .shared: shared += 1
            }
        }
        return (slots.count, idle, leased, shared, opening, waiters.count)
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
