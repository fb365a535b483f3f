import Foundation
import Synchronization

/// The pool's I/O executor (`pool.taskExecutor`, `pool.withIOExecutor`): the
/// `PostgresEventLoop` threads, one per core and at most two, each watching
/// its own connections.
///
/// A job runs on the loop whose thread enqueues it: a statement's result is
/// read by the loop that watches its connection, so the task it resumes
/// continues there, and its next statement, sent on a connection of the same
/// loop (`PostgresPool.query` prefers one), is read there again. Each loop
/// with its connection then works like a client of its own: measured at 8
/// tasks, two such loops keep both cores busy where one loop for two
/// connections left a core idle while it handled the other connection's
/// tasks (`Benchmarks/postgres/README.md`). A job enqueued from any other
/// thread (a task entering `withIOExecutor`) goes to the first loop; the
/// pool's choice of connection spreads tasks from there.
///
/// `Sendable`: `loops` is immutable, `nextLoop` atomic; each loop guards its own state.
final class PostgresIOExecutor: TaskExecutor, Sendable {
    /// The process-wide executor; its threads start on first use.
    static let shared = PostgresIOExecutor(loopCount: min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    /// The loops, each with a thread of its own.
    let loops: [PostgresEventLoop]

    private init(loopCount: Int) {
        loops = (0..<loopCount).map { PostgresEventLoop(name: "payql-pg-io-\($0)") }
        for loop in loops { loop.start(executor: self) }
    }

    /// Runs `job` on the loop of the calling thread, or on the first loop when called from elsewhere.
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        (currentLoop ?? loops[0]).enqueue(unowned)
    }

    /// The loop whose thread is the caller's, if any.
    var currentLoop: PostgresEventLoop? {
        for loop in loops where loop.isCurrentThread { return loop }
        return nil
    }

    /// Where a new connection goes: the loop that watches the fewest of `avoiding`'s
    /// connections (a pool's other pipelined connections: each should have a loop of its
    /// own), then the fewest connections, ties taken in turn. Counts the connection there
    /// at once (connections are opened concurrently); `PostgresEventLoop.unregister`, or
    /// `release` if it never opens, uncounts it.
    func loopForNewConnection(avoiding: [PostgresEventLoop] = []) -> PostgresEventLoop {
        let start = nextLoop.add(1, ordering: .relaxed).oldValue
        func rank(_ loop: PostgresEventLoop) -> (Int, Int) {
            (avoiding.count { $0 === loop }, loop.registeredCount.load(ordering: .relaxed))
        }
        var best = loops[start % loops.count]
        for offset in 1..<loops.count {
            let loop = loops[(start + offset) % loops.count]
            if rank(loop) < rank(best) { best = loop }
        }
        best.registeredCount.add(1, ordering: .relaxed)
        return best
    }

    /// A connection counted by `loopForNewConnection` failed to open.
    func release(_ loop: PostgresEventLoop) {
        loop.registeredCount.subtract(1, ordering: .relaxed)
    }

    /// Where the next tie between loops starts.
    private let nextLoop = Atomic<Int>(0)

    /// How many connections of the loops other than `loop` awaited results at their last turn.
    func connectionsAwaitingResults(besides loop: PostgresEventLoop) -> Int {
        var count = 0
        for other in loops where other !== loop { count += other.awaitingConnections.load(ordering: .relaxed) }
        return count
    }
}
