import Foundation
import Support
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One thread that waits on its connections' sockets (`poll(2)`), so no Swift
/// task ever blocks in libpq. There is one per core, at most two
/// (`PostgresIOExecutor`); each connection is watched by one of them.
///
/// Tasks send their statements themselves (libpq is in non-blocking mode, so
/// sending never blocks); this thread reads results as they arrive and
/// resumes the waiting tasks. It is woken through a pipe only when a
/// connection is added or removed, or has output left to flush.
///
/// It also runs the jobs of tasks that prefer the pool's I/O executor
/// (`pool.withIOExecutor`, `PostgresIOExecutor`): a statement's result
/// resumes its task here, on the thread that read it, without waking another
/// thread. After running such tasks, the loop may poll without sleeping for up
/// to `spinBeforeSleeping` (50 µs) before it sleeps, so that a quick answer
/// costs no sleep and no wake-up; `SpinPolicy` decides, from the waits it
/// measures in each mode, and it never spins while more than one connection
/// awaits results (see `run`).
///
/// Statements sent by tasks running here are not sent one by one: they are
/// queued, and when the turn's tasks have all run, each connection sends its
/// queue at once (`sendDeferred`), so statements resumed together leave
/// together, under one sync point where they may share one (see
/// `PostgresConnection.pump`).
///
/// It may also serve other descriptors (`PostgresLoopService`: an HTTP server's
/// event loop), polled with its connections; their functions run after the
/// connections' results are read, and the statements of the tasks they start
/// leave at the top of the next turn with the others. A service asked for a run
/// (`requestRun`, e.g. by a task that finished here and resumed an HTTP
/// connection) runs right after the turn's tasks, before the loop polls.
///
/// `@unchecked Sendable`: `deferred` is only touched on the loop thread
/// (`deferSend` is only called there, `isCurrentThread` checked just before,
/// through `PostgresIOExecutor.currentLoop`); everything else shared is in
/// `shared` (reached only under its lock) or atomic (`loopThreadID`,
/// `registeredCount`, `awaitingConnections`); the pipe descriptors and `name`
/// are immutable after `init`.
final class PostgresEventLoop: @unchecked Sendable {
    /// What the loop thread shares with the threads that register connections and enqueue jobs.
    private struct Shared {
        var registrations: [ObjectIdentifier: PostgresConnection] = [:]
        /// `registrations` changed since the loop last read them.
        var pollDirty = true
        var jobs: [UnownedJob] = []
        var loopThread: pthread_t?
        /// What else the thread serves (`PostgresLoopService`); a change sets `pollDirty`.
        var services: [PostgresLoopService] = []
    }

    private let shared = Locked(Shared())
    /// The loop thread's id, readable without the lock (0 until it starts).
    private let loopThreadID = Atomic<UInt>(0)
    /// Connections whose statements wait for the end of this turn. Loop thread only.
    private var deferred: [PostgresConnection] = []
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let name: String
    /// Connections watched or being opened for this loop (atomic: read when choosing a loop
    /// for a new connection, `PostgresIOExecutor.loopForNewConnection`).
    let registeredCount = Atomic<Int>(0)
    /// How many of its connections awaited results at the loop's last turn (read by the other loops).
    let awaitingConnections = Atomic<Int>(0)
    /// How many services (`PostgresLoopService`) it serves; read by the pool (`servesOthers`).
    private let serviceCount = Atomic<Int>(0)

    /// Whether the thread also serves something besides its connections (an HTTP server's
    /// event loop): tasks running here then keep strictly to its connections (`PostgresPool`).
    var servesOthers: Bool { serviceCount.load(ordering: .relaxed) > 0 }

    init(name: String) {
        self.name = name
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 {
            // Without a wake-up pipe the loop cannot work at all; this is a resource exhaustion at start.
            fatalError("PostgresEventLoop: pipe() failed: errno \(errno)")
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Starts the thread; `executor` runs the jobs of tasks that prefer it.
    func start(executor: PostgresIOExecutor) {
        let thread = Thread { [self] in run(executor: executor) }
        thread.name = name
        thread.start()
    }

    /// Starts watching `connection`'s socket (counted in `registeredCount` when its loop was chosen).
    func register(_ connection: PostgresConnection) {
        shared.withLock { shared in
            shared.registrations[ObjectIdentifier(connection)] = connection
            shared.pollDirty = true
        }
        wake()
    }

    /// Stops watching `connection` (its socket is closed later, when it is freed).
    func unregister(_ connection: PostgresConnection) {
        let removed = shared.withLock { shared in
            shared.pollDirty = true
            return shared.registrations.removeValue(forKey: ObjectIdentifier(connection)) != nil
        }
        if removed { registeredCount.subtract(1, ordering: .relaxed) }
        wake()
    }

    /// Starts serving `service` on this loop's thread (`PostgresPool.attachToIOThread`).
    func add(_ service: PostgresLoopService) {
        let count = shared.withLock { shared in
            shared.services.append(service)
            shared.pollDirty = true
            return shared.services.count
        }
        serviceCount.store(count, ordering: .relaxed)
        wake()
    }

    /// Stops polling `service`'s descriptor (it is already detached: never served again).
    func remove(_ service: PostgresLoopService) {
        let count = shared.withLock { shared in
            shared.services.removeAll { $0 === service }
            shared.pollDirty = true
            return shared.services.count
        }
        serviceCount.store(count, ordering: .relaxed)
        wake()
    }

    /// Runs a job of a task that prefers the I/O executor, on the loop thread.
    func enqueue(_ unowned: UnownedJob) {
        let (first, onLoop) = shared.withLock { shared in
            shared.jobs.append(unowned)
            return (shared.jobs.count == 1, shared.loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        // On the loop thread the queue is drained before the next poll; elsewhere, the
        // first job of a batch wakes the loop (later ones find it awake).
        if first && !onLoop { wake() }
    }

    /// Whether the caller runs on the loop thread (a task that prefers this executor).
    var isCurrentThread: Bool {
        let id = loopThreadID.load(ordering: .relaxed)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// `connection` has statements queued by tasks running on this thread: it sends
    /// them when the turn's tasks have run. Only called on the loop thread.
    func deferSend(_ connection: PostgresConnection) {
        deferred.append(connection)
    }

    /// How long the loop looks for results before sleeping, after running tasks that prefer it
    /// (measured: one client on the I/O executor 2–3× faster when a loaded machine wakes threads slowly;
    /// `Benchmarks/postgres/README.md`).
    static let spinBeforeSleeping: Duration = .microseconds(50)

    /// Interrupts `poll` so that the loop re-reads what to watch.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run(executor: PostgresIOExecutor) {
        // Named from the thread itself (Foundation's `Thread.name` did not reach the kernel;
        // Linux keeps at most 15 bytes): seen in `top -H`, `perf`, `/proc/<pid>/task/*/comm`.
        let comm = open("/proc/thread-self/comm", O_WRONLY)
        if comm >= 0 {
            _ = name.utf8CString.withUnsafeBufferPointer { write(comm, $0.baseAddress, min(15, $0.count - 1)) }
            close(comm)
        }
        shared.withLock { $0.loopThread = pthread_self() }
        loopThreadID.store(UInt(pthread_self()), ordering: .relaxed)
        var sending: [PostgresConnection] = []
        var watched: [PostgresConnection] = []
        var fds: [pollfd] = []
        var batch: [UnownedJob] = []
        var policy = SpinPolicy()
        var services: [PostgresLoopService] = []
        /// When each service must run again, whether or not its descriptor is readable.
        var serviceDeadlines: [ContinuousClock.Instant?] = []
        /// Whether requested service runs may be served before polling (once between two polls).
        var mayServeRequested = true
        /// Jobs ran in the turn before the requested services were served (see `ranJobs`).
        var ranJobsBeforeServing = false
        while true {
            let ranJobs = runTurn(&batch, &sending, executor) || ranJobsBeforeServing
            ranJobsBeforeServing = false
            let (moreJobs, snapshot): (Bool, ([PostgresConnection], [PostgresLoopService])?) = shared.withLock { shared in
                guard shared.pollDirty else { return (!shared.jobs.isEmpty, nil) }
                shared.pollDirty = false
                return (!shared.jobs.isEmpty, (Array(shared.registrations.values), shared.services))
            }
            if let (connections, current) = snapshot {
                watched = connections
                // A service new to the loop runs at once (it says then when it wants to run again).
                let previous = Dictionary(zip(services.map(ObjectIdentifier.init), serviceDeadlines), uniquingKeysWith: { first, _ in first })
                serviceDeadlines = current.map { previous[ObjectIdentifier($0)] ?? .now }
                services = current
            }
            // Services asked for a run (an HTTP connection resumed by the tasks just run: its
            // response is written now, not after a poll that a wake-up would have to end). Then
            // round again, so that what they started is sent at the top. Once between two polls:
            // requests made meanwhile are served after the next poll, which then does not wait.
            if mayServeRequested, Self.serveRequested(services, &serviceDeadlines) {
                mayServeRequested = false
                ranJobsBeforeServing = ranJobs
                continue
            }
            mayServeRequested = true
            let runPending = services.contains { $0.hasRunRequest }
            let moreWork = moreJobs || runPending
            let awaiting = Self.connectionsAwaitingResults(watched)
            awaitingConnections.store(awaiting, ordering: .relaxed)
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for connection in watched {
                let events = Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0)
                fds.append(pollfd(fd: connection.socket, events: events, revents: 0))
            }
            for service in services { fds.append(pollfd(fd: service.descriptor, events: Int16(POLLIN), revents: 0)) }
            // How long a sleeping poll may last: until the earliest service deadline, else for ever.
            var sleepLimit: Int32 = -1
            if let earliest = serviceDeadlines.lazy.compactMap({ $0 }).min() {
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: earliest).components
                sleepLimit = Int32(clamping: max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
            }
            var ready: Int32
            var sentAt: ContinuousClock.Instant?
            if !moreWork, ranJobs, awaiting + executor.connectionsAwaitingResults(besides: self) <= 1 {
                // Tasks run here (`withIOExecutor`) and just sent statements: their results
                // usually arrive within tens of microseconds. When the policy says so, look for
                // them for a short while before sleeping, yielding the core to anything else
                // runnable: it saves a sleep and a wake-up per round trip, for at most
                // `spinBeforeSleeping` of CPU. Tasks on other executors never make the loop spin.
                // Nor do several connections waiting at once, on this loop or another (8 tasks
                // and more): a thread that polls and yields stays runnable on its core, so the
                // scheduler does not move it to a core that a backend's answer leaves idle; it
                // waits there behind another backend instead (measured: one core 55 % idle,
                // `Benchmarks/postgres/README.md`).
                let now = ContinuousClock.now
                sentAt = now
                var idle = true
                if policy.spins {
                    let giveUp = now + PostgresEventLoop.spinBeforeSleeping
                    repeat {
                        ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 0) }
                        if ready != 0 { break }
                        sched_yield()
                        idle = shared.withLock { $0.jobs.isEmpty }
                    } while idle && ContinuousClock.now < giveUp
                } else {
                    ready = 0
                }
                if ready == 0 { ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), idle ? sleepLimit : 0) } }
            } else {
                ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), moreWork ? 0 : sleepLimit) }
            }
            if let sentAt, ready > 0, watched.indices.contains(where: { fds[$0 + 1].revents != 0 }) {
                // A result (not only a wake-up) ended the wait: how long it took in this mode.
                policy.record(sentAt.duration(to: .now))
            }
            if ready < 0 {
                if errno == EINTR { continue }
                // poll only fails for EINVAL/ENOMEM/EFAULT; back off instead of spinning.
                usleep(1000)
                continue
            }
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            var remaining = watched.indices.reduce(0) { $0 + (fds[$1 + 1].revents != 0 ? 1 : 0) }
            for index in watched.indices where fds[index + 1].revents != 0 {
                let revents = fds[index + 1].revents
                watched[index].handleIO(
                    readable: revents & Int16(POLLIN | POLLHUP | POLLERR) != 0,
                    writable: revents & Int16(POLLOUT) != 0
                )
                remaining -= 1
                // Several connections answered at once: run the tasks this one's results resumed
                // and send their next statements now, before reading the next connection's, so
                // that this connection's backend works while the loop handles the others. (Run
                // together, every backend would wait for the whole turn, and then the loop for
                // every backend: the connections would stay in step, one core idle half the time.)
                // The last connection's tasks run at the top of the loop, as a turn of their own.
                if remaining > 0 { _ = runTurn(&batch, &sending, executor) }
            }
            // The services last: what they start (tasks sending statements) leaves with the
            // tasks the connections' results resumed, at the top of the loop.
            if !services.isEmpty {
                let now = ContinuousClock.now
                let first = watched.count + 1
                for index in services.indices {
                    let due = serviceDeadlines[index].map { $0 <= now } ?? false
                    // Taken whatever else makes it run: this run answers the request too.
                    let requested = services[index].takeRunRequest()
                    guard fds[first + index].revents != 0 || due || requested else { continue }
                    serviceDeadlines[index] = Self.nextDeadline(services[index].serve())
                }
            }
        }
    }

    /// Runs the services that asked for a run (`PostgresLoopService.requestRun`); returns
    /// whether any did. Loop thread only.
    private static func serveRequested(_ services: [PostgresLoopService], _ deadlines: inout [ContinuousClock.Instant?]) -> Bool {
        var served = false
        for index in services.indices where services[index].takeRunRequest() {
            served = true
            deadlines[index] = nextDeadline(services[index].serve())
        }
        return served
    }

    /// When a service must run again, from what its run returned: the milliseconds it asked
    /// for, never (-1: only when readable or asked), or never again (nil: detached, dropped
    /// at the next snapshot).
    private static func nextDeadline(_ delay: Int32?) -> ContinuousClock.Instant? {
        guard let delay, delay >= 0 else { return nil }
        return .now + .milliseconds(Int64(delay))
    }

    /// How many of `connections` have statements in flight, counting to 2 at most (at
    /// most one: polling before sleeping may pay; see `run`).
    private static func connectionsAwaitingResults(_ connections: [PostgresConnection]) -> Int {
        var count = 0
        for connection in connections where connection.isAwaitingResults {
            count += 1
            if count > 1 { break }
        }
        return count
    }

    /// Runs the jobs queued on this executor, then sends the statements they queued, each
    /// connection's in one go. Returns whether any job ran. Loop thread only.
    private func runTurn(_ batch: inout [UnownedJob], _ sending: inout [PostgresConnection], _ executor: PostgresIOExecutor) -> Bool {
        // Exchanged inside the lock's closure: the access to `jobs` begins under the lock.
        shared.withLock { Swift.swap(&batch, &$0.jobs) }
        let ranJobs = !batch.isEmpty
        for job in batch { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
        batch.removeAll(keepingCapacity: true)
        // The statements those tasks queued leave now, each connection's in one go.
        while !deferred.isEmpty {
            Swift.swap(&sending, &deferred)
            for connection in sending { connection.sendDeferred() }
            sending.removeAll(keepingCapacity: true)
        }
        return ranJobs
    }
}
