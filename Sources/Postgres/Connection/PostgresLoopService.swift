import Synchronization

/// Work besides its connections that one of the pool's I/O threads serves
/// (`PostgresPool.attachToIOThread`): a descriptor the thread polls with its
/// connections, and a function it calls on its thread whenever the descriptor is
/// readable or the delay the function last returned has passed. An HTTP server's
/// event loop runs there this way, so that one thread per core reads a request,
/// sends its statements, reads their results and answers (no thread hand-off).
///
/// The function runs on the I/O thread: what it starts there (a task that sends
/// statements) behaves like a task resumed there, its statements leaving at the end
/// of the thread's turn. It must not block, and must never call `detach()`.
///
/// It can also be asked for a run (`requestRun`): from the loop's own thread that sets a
/// flag the loop reads after running its tasks (no system call), from another thread it
/// also wakes the loop.
///
/// `Sendable`: `descriptor`, `body` and `loop` are immutable; whether it is detached
/// lives in a `Mutex` that is also held while `body` runs; the run request is atomic.
public final class PostgresLoopService: Sendable {
    /// The descriptor polled for reading.
    let descriptor: Int32
    private let body: @Sendable () -> Int32
    /// Detached: held while `body` runs, so that `detach()` waits for a run in progress.
    private let detached = Mutex<Bool>(false)
    /// A run was asked for (`requestRun`) and has not happened yet.
    private let runRequested = Atomic<Bool>(false)
    let loop: PostgresEventLoop

    init(descriptor: Int32, loop: PostgresEventLoop, body: @escaping @Sendable () -> Int32) {
        self.descriptor = descriptor
        self.loop = loop
        self.body = body
    }

    /// Runs the function unless detached: the milliseconds until it must run again
    /// (-1: only when the descriptor is readable), or nil once detached. Loop thread only.
    func serve() -> Int32? {
        detached.withLock { detached in detached ? nil : body() }
    }

    /// Asks the loop to run the function at its next turn although the descriptor may not be
    /// readable (e.g. an HTTP connection was resumed). Any thread; on the loop's own thread
    /// (a task running there) it makes no system call: the loop looks for requests after
    /// running its tasks, before it polls.
    public func requestRun() {
        runRequested.store(true, ordering: .releasing)
        if !loop.isCurrentThread { loop.wake() }
    }

    /// Whether a run is asked for (without clearing the request). Loop thread only.
    var hasRunRequest: Bool { runRequested.load(ordering: .relaxed) }

    /// Whether a run was asked for since the last call (clears the request). Loop thread only.
    func takeRunRequest() -> Bool {
        runRequested.load(ordering: .relaxed) && runRequested.exchange(false, ordering: .acquiring)
    }

    /// Stops serving: once it returns, the function is not running and is never called
    /// again (a run in progress on the I/O thread is waited for). Call it from any thread
    /// but from inside the function itself.
    public func detach() {
        detached.withLock { $0 = true }
        loop.remove(self)
    }
}
