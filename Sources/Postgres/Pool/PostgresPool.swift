import Foundation
import Support
import Synchronization

/// Pool settings. Defaults are for a PayQL server on a small machine.
public struct PostgresPoolConfiguration: Sendable {
    /// How each connection is opened.
    public var connection: PostgresConfiguration
    /// The most connections open at once.
    public var maxConnections: Int = 10
    /// How many connections `PostgresPool.query` pipelines statements over
    /// (the rest stay free for `withConnection`/transactions). Measured: on a
    /// 2-core host, 2 connections with pipelining beat one connection per task.
    public var pipelinedConnections: Int = 2
    /// The most statements in flight on one pipelined connection.
    public var maxPipelineDepth: Int = 64
    /// How long an acquirer waits for a connection before failing with `.timeout`.
    public var acquireTimeout: Duration = .seconds(10)
    /// A connection idle for longer is pinged (`SELECT 1`) before it is handed out.
    public var healthCheckAfterIdle: Duration = .seconds(30)
    /// In debug builds, leases held longer than this are reported as probable leaks
    /// (logged with the `withConnection` call site, and listed in timeout errors).
    public var leakWarningAfter: Duration = .seconds(30)

    /// A pool configuration with the defaults.
    public init(connection: PostgresConfiguration) { self.connection = connection }
}

/// Counts describing the pool right now.
public struct PostgresPoolStatistics: Sendable, Equatable {
    /// Connections open (idle + leased + shared).
    public var open: Int
    /// Open and unused.
    public var idle: Int
    /// Held exclusively by `withConnection`/`withTransaction`.
    public var leased: Int
    /// Carrying pipelined `query` statements.
    public var shared: Int
    /// Being opened.
    public var opening: Int
    /// Tasks waiting for a connection.
    public var waiting: Int
}

/// A pool of PostgreSQL connections.
///
/// - `query(_:)` runs one statement on a shared connection: concurrent
///   statements are pipelined over `pipelinedConnections` connections.
/// - `withConnection { }` lends a connection exclusively for the closure.
/// - `withTransaction { }` wraps the closure in BEGIN/COMMIT, rolls back on
///   any thrown error, and retries serialization failures and deadlocks.
///
/// Connections lost (server restart) are dropped and replaced on demand; an
/// idle connection is pinged before reuse after `healthCheckAfterIdle`. Call
/// `shutdown()` when done.
///
/// `Sendable`: the mutable state lives in `guarded` (reached only under its lock),
/// `statementsInFlight` is atomic, everything else is immutable.
public final class PostgresPool: Sendable {
    /// The configuration it was created with.
    public let configuration: PostgresPoolConfiguration
    let logger: PostgresLogger
    /// The pool's decisions (`PoolState`) and the waiters they concern.
    private let guarded: Locked<Guarded>
    /// Statements running through `query` right now (atomic: read and written without the lock).
    private let statementsInFlight = Atomic<Int>(0)

    /// What the pool's lock guards.
    private struct Guarded {
        var state: PoolState<PostgresConnection>
        var waiting: [Int: CheckedContinuation<PoolState<PostgresConnection>.Grant, any Error>] = [:]
        var timers: [Int: Task<Void, Never>] = [:]
        var earlyGrants: [Int: PoolState<PostgresConnection>.Grant] = [:]
        /// The loops of pipelined connections being opened.
        var openingSharedLoops: [PostgresEventLoop] = []
    }

    /// Creates a pool; no connection is opened until one is needed.
    public init(configuration: PostgresPoolConfiguration, logger: PostgresLogger = .disabled) {
        precondition(configuration.maxConnections >= 1, "maxConnections must be at least 1")
        self.configuration = configuration
        self.logger = logger
        guarded = Locked(Guarded(state: PoolState(limits: .init(
            maxConnections: configuration.maxConnections,
            pipelinedConnections: max(1, min(configuration.pipelinedConnections, configuration.maxConnections)),
            maxPipelineDepth: max(1, configuration.maxPipelineDepth),
            healthCheckAfterIdle: configuration.healthCheckAfterIdle
        ))))
    }

    /// A pool for a `postgresql://` URL or conninfo string, with default settings.
    public convenience init(url: String, logger: PostgresLogger = .disabled) throws {
        self.init(configuration: PostgresPoolConfiguration(connection: try PostgresConfiguration(connectionString: url)), logger: logger)
    }

    /// The executor of the threads that read the connections' results (one per
    /// core, at most two). A task that mostly waits for PostgreSQL may prefer it
    /// (`withTaskExecutorPreference(pool.taskExecutor) { ... }`): each result then
    /// resumes it on the thread that read it, saving a thread wake-up per statement.
    /// Never run CPU-heavy or blocking work there: that thread's connections' I/O
    /// would wait for it.
    public var taskExecutor: any TaskExecutor { PostgresIOExecutor.shared }

    /// Runs `body` preferring the pool's I/O threads (`taskExecutor`): each
    /// statement's result resumes the task on the thread that read it, one thread
    /// wake-up per statement instead of two, and `query` keeps to a pipelined
    /// connection that thread reads. The fastest way to run statements, one after
    /// another or from many tasks (see docs/postgres.md). Only for code that mostly
    /// waits for PostgreSQL: CPU-heavy or blocking work inside delays its thread's I/O.
    /// An actor-isolated caller keeps running on its actor (isolation wins over
    /// the preference).
    public func withIOExecutor<Result, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await withTaskExecutorPreference(PostgresIOExecutor.shared, isolation: isolation, operation: body)
    }

    /// How many I/O threads the pool's executor has (one per core, at most two).
    public var ioThreadCount: Int { PostgresIOExecutor.shared.loops.count }

    /// Serves `descriptor` on I/O thread `index` (`0..<ioThreadCount`): `body` runs on that
    /// thread whenever the descriptor is readable, and again once the milliseconds it
    /// returned have passed (-1: only when readable). `detach()` the result to stop.
    /// `body` must not block: the thread's connections wait while it runs. A task it starts
    /// there that prefers `taskExecutor` runs like a task resumed there (its statements leave
    /// with the others of the turn, its results resume it on the same thread).
    public func attachToIOThread(_ index: Int, descriptor: Int32, _ body: @escaping @Sendable () -> Int32) -> PostgresLoopService {
        let loops = PostgresIOExecutor.shared.loops
        let service = PostgresLoopService(descriptor: descriptor, loop: loops[index % loops.count], body: body)
        service.loop.add(service)
        return service
    }

    /// Current counts.
    public var statistics: PostgresPoolStatistics {
        let counts = guarded.withLock { $0.state.counts }
        return PostgresPoolStatistics(open: counts.open, idle: counts.idle, leased: counts.leased, shared: counts.shared, opening: counts.opening, waiting: counts.waiting)
    }

    /// Runs one statement on a pipelined connection and returns its rows.
    ///
    /// For single statements in autocommit mode: transaction control (BEGIN,
    /// COMMIT, SAVEPOINT, ...) is refused here, use `withTransaction`.
    /// A task cancelled while its statement runs gets `CancellationError` at
    /// once; the statement may still complete on the server.
    public func query(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) async throws -> PostgresRows {
        if startsTransactionControl(query.sql) {
            throw PostgresError(.invalidInput, message: "transaction control on a shared connection; use withTransaction or withConnection", query: query.description)
        }
        let account = PostgresTimeAccount.current
        let started = account == nil ? nil : ContinuousClock.now
        defer { if let account, let started { account.add(since: started) } }
        let (slot, connection) = try await acquire(.shared, site: LeaseSite(file: file, line: line))
        defer { release(slot: slot, connection: connection, kind: .shared) }
        // With other statements in flight, tasks resumed together are likely to send together:
        // let them gather under one sync point (see `PostgresConnection.submit`).
        let othersInFlight = statementsInFlight.add(1, ordering: .relaxed).newValue > 1
        defer { statementsInFlight.subtract(1, ordering: .relaxed) }
        return try await connection.pipelinedQuery(query, gather: othersInFlight)
    }

    /// Lends a connection exclusively to `body` and takes it back afterwards (also
    /// when `body` throws). A connection left inside a transaction is closed, not reused.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation,
        file: String = #fileID, line: Int = #line,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let account = PostgresTimeAccount.current
        let started = account == nil ? nil : ContinuousClock.now
        defer { if let account, let started { account.add(since: started) } }
        let (slot, connection) = try await acquire(.exclusive, site: LeaseSite(file: file, line: line))
        do {
            let result = try await body(connection)
            release(slot: slot, connection: connection, kind: .exclusive)
            return result
        } catch {
            release(slot: slot, connection: connection, kind: .exclusive)
            throw error
        }
    }

    /// Fails waiters with `.poolClosed`, closes idle connections now and leased ones when released.
    public func shutdown() {
        let (waiters, idle, leaks) = guarded.withLock { guarded in
            let (failed, idle) = guarded.state.shutdown()
            let continuations = failed.compactMap { id -> CheckedContinuation<PoolState<PostgresConnection>.Grant, any Error>? in
                guarded.timers.removeValue(forKey: id)?.cancel()
                return guarded.waiting.removeValue(forKey: id)
            }
            return (continuations, idle, guarded.state.longLeases(olderThan: .zero, now: .now))
        }
        for connection in idle { connection.close() }
        for waiter in waiters { waiter.resume(throwing: PostgresError(.poolClosed, message: "the pool was shut down")) }
        #if DEBUG
        for leak in leaks {
            logger.log(.warning, "postgres pool shut down while a connection leased at \(leak.site) is still held (\(leak.held))")
        }
        #endif
    }

    /// Leases held longer than `threshold`, with their `withConnection` call sites.
    public func longLeases(olderThan threshold: Duration) -> [(site: String, held: Duration)] {
        guarded.withLock { $0.state.longLeases(olderThan: threshold, now: .now) }.map { ($0.site.description, $0.held) }
    }

    // MARK: - Acquire and release

    nonisolated(nonsending) private func acquire(_ kind: PoolState<PostgresConnection>.Kind, site: LeaseSite) async throws -> (Int, PostgresConnection) {
        // A task on one of the I/O threads keeps to a connection that thread reads: its result
        // then resumes it where it runs (see `PostgresIOExecutor`). Strictly on a thread that
        // also serves something else (an HTTP server's event loop): a task started there by a
        // request must end there to answer it, and a result read by the other thread would
        // cost a wake-up of each thread (measured: half the `order(id)` requests crossed).
        let currentLoop = kind == .shared ? PostgresIOExecutor.shared.currentLoop : nil
        let strictly = currentLoop?.servesOthers ?? false
        while true {
            try Task.checkCancellation()
            let decision = guarded.withLock { guarded in
                if let currentLoop {
                    return guarded.state.acquire(kind, site: site, now: .now, preferring: { $0.loop === currentLoop }, strictly: strictly)
                }
                return guarded.state.acquire(kind, site: site, now: .now)
            }
            let grant: PoolState<PostgresConnection>.Grant
            switch decision {
            case .closed:
                throw PostgresError(.poolClosed, message: "the pool was shut down")
            case .granted(let granted):
                grant = granted
            case .wait(let waiter):
                grant = try await wait(waiter)
            }
            switch grant {
            case .open:
                return try await open(kind, site: site)
            case .connection(let slot, let connection, let healthCheck):
                if connection.isClosed {
                    release(slot: slot, connection: connection, kind: kind)
                    continue
                }
                if healthCheck {
                    do {
                        _ = try await connection.query("SELECT 1")
                    } catch {
                        logger.log(.info, "postgres pool: idle connection failed its health check (\(error)); replacing it")
                        connection.close()
                        release(slot: slot, connection: connection, kind: kind)
                        continue
                    }
                }
                return (slot, connection)
            }
        }
    }

    private func open(_ kind: PoolState<PostgresConnection>.Kind, site: LeaseSite) async throws -> (Int, PostgresConnection) {
        // Each pipelined connection on an I/O loop of its own where possible: the tasks that
        // use it then keep to that loop (see `PostgresIOExecutor`).
        let executor = PostgresIOExecutor.shared
        let loop = guarded.withLock { guarded in
            guard kind == .shared else { return executor.loopForNewConnection() }
            let loop = executor.loopForNewConnection(avoiding: guarded.state.sharedConnections.map(\.loop) + guarded.openingSharedLoops)
            guarded.openingSharedLoops.append(loop)
            return loop
        }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration.connection, loop: loop)
        } catch {
            executor.release(loop)
            let grants = guarded.withLock { guarded in
                if kind == .shared { guarded.openingSharedLoops.removeFirst(loop) }
                return guarded.state.openFailed(kind: kind)
            }
            deliver(grants)
            throw error
        }
        let (slot, grants) = guarded.withLock { guarded in
            if kind == .shared { guarded.openingSharedLoops.removeFirst(loop) }
            return guarded.state.opened(connection, kind: kind, site: site, now: .now)
        }
        connection.setCloseHandler { [weak self] _ in self?.connectionLost(slot: slot) }
        deliver(grants)
        return (slot, connection)
    }

    private func release(slot: Int, connection: PostgresConnection, kind: PoolState<PostgresConnection>.Kind) {
        var broken = connection.isClosed
        if !broken, kind == .exclusive, !connection.isReusable {
            logger.log(.warning, "postgres pool: a connection came back inside a transaction or with statements in flight; closing it")
            connection.close()
            broken = true
        }
        let (grants, discard) = guarded.withLock { $0.state.release(slot: slot, kind: kind, broken: broken, now: .now) }
        discard?.close()
        deliver(grants)
    }

    /// The server closed a connection (restart, termination); drop it if idle.
    private func connectionLost(slot: Int) {
        let (grants, discard) = guarded.withLock { $0.state.lost(slot: slot) }
        if discard != nil { logger.log(.info, "postgres pool: dropped a connection closed by the server") }
        deliver(grants)
    }

    private func wait(_ waiter: Int) async throws -> PoolState<PostgresConnection>.Grant {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let timeout = configuration.acquireTimeout
                let early: Result<PoolState<PostgresConnection>.Grant, any Error>? = guarded.withLock { guarded in
                    // Served, or gone, between `acquire` and this registration?
                    if let grant = guarded.earlyGrants.removeValue(forKey: waiter) { return .success(grant) }
                    if !guarded.state.isWaiting(waiter) {
                        return .failure(guarded.state.closed ? PostgresError(.poolClosed, message: "the pool was shut down") : CancellationError())
                    }
                    guarded.waiting[waiter] = continuation
                    guarded.timers[waiter] = Task { [weak self] in
                        try? await Task.sleep(for: timeout)
                        if !Task.isCancelled { self?.giveUp(waiter, timedOut: true) }
                    }
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            giveUp(waiter, timedOut: false)
        }
    }

    private func giveUp(_ waiter: Int, timedOut: Bool) {
        let (continuation, leaks): (CheckedContinuation<PoolState<PostgresConnection>.Grant, any Error>?, [(site: LeaseSite, held: Duration)]) = guarded.withLock { guarded in
            guard guarded.state.removeWaiter(waiter) else { return (nil, []) }
            guarded.timers.removeValue(forKey: waiter)?.cancel()
            return (guarded.waiting.removeValue(forKey: waiter), guarded.state.longLeases(olderThan: configuration.leakWarningAfter, now: .now))
        }
        guard let continuation else { return }
        guard timedOut else {
            continuation.resume(throwing: CancellationError())
            return
        }
        var message = "no connection available within \(configuration.acquireTimeout) (max \(configuration.maxConnections))"
        #if DEBUG
        if !leaks.isEmpty {
            let sites = leaks.map { "\($0.site) for \($0.held)" }.joined(separator: ", ")
            message += "; probable leaks: connections held at \(sites)"
            logger.log(.warning, "postgres pool: \(message)")
        }
        #endif
        continuation.resume(throwing: PostgresError(.timeout, message: message))
    }

    private func deliver(_ grants: [(waiter: Int, PoolState<PostgresConnection>.Grant)]) {
        guard !grants.isEmpty else { return }
        let continuations = guarded.withLock { guarded in
            grants.map { grant in
                guarded.timers.removeValue(forKey: grant.waiter)?.cancel()
                let continuation = guarded.waiting.removeValue(forKey: grant.waiter)
                if continuation == nil { guarded.earlyGrants[grant.waiter] = grant.1 }
                return (continuation, grant.1)
            }
        }
        for (continuation, grant) in continuations {
            // A waiter not yet registered finds its grant in `earlyGrants` when it registers.
            continuation?.resume(returning: grant)
        }
    }
}

extension Array where Element == PostgresEventLoop {
    /// Removes the first occurrence of `loop`, if any.
    mutating func removeFirst(_ loop: PostgresEventLoop) {
        if let index = firstIndex(where: { $0 === loop }) { remove(at: index) }
    }
}

/// Whether `sql` begins with a transaction-control keyword (case-insensitive).
/// Runs for every `pool.query`, so it allocates nothing: the first word, lowercased,
/// is packed into an integer and compared with the keywords packed the same way.
func startsTransactionControl(_ sql: String) -> Bool {
    var word: UInt128 = 0
    var length = 0
    for byte in sql.utf8 {
        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: ";") {
            if length == 0 { continue }
            break
        }
        // Longer than every keyword: not one.
        if length == transactionControlMaxLength { return false }
        word = word << 8 | UInt128(byte | 0x20)
        length += 1
    }
    return transactionControlKeywords.contains(word)
}

/// The keywords that start or end a transaction, packed as `startsTransactionControl` packs a word.
private let transactionControlKeywords: [UInt128] = ["begin", "start", "commit", "rollback", "end", "abort", "savepoint", "release"].map { keyword in
    keyword.utf8.reduce(0) { $0 << 8 | UInt128($1) }
}

private let transactionControlMaxLength = 9

/// Whether `sql` begins with a keyword of a plain data statement (SELECT, INSERT,
/// UPDATE, DELETE, WITH, VALUES, TABLE; case-insensitive): the statements that may
/// share a sync point with others. Utility and DDL statements (VACUUM, CREATE, SET,
/// ...) always get one of their own. Allocates nothing.
func startsGroupableStatement(_ sql: String) -> Bool {
    var word: UInt64 = 0
    var length = 0
    for byte in sql.utf8 {
        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "(") {
            if length == 0 { continue }
            break
        }
        if length == 6 { return false }
        word = word << 8 | UInt64(byte | 0x20)
        length += 1
    }
    return groupableKeywords.contains(word)
}

/// The keywords `startsGroupableStatement` accepts, packed the same way.
private let groupableKeywords: [UInt64] = ["select", "insert", "update", "delete", "with", "values", "table"].map { keyword in
    keyword.utf8.reduce(0) { $0 << 8 | UInt64($1) }
}
