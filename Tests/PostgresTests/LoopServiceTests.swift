import Glibc
@testable import Postgres
import Synchronization
import Testing

/// `PostgresPool.attachToIOThread`: an I/O thread serves a descriptor beside its connections.
@Suite struct LoopServiceTests {
    /// What the service saw, shared with the tasks it starts.
    final class Seen: Sendable {
        let runs = Atomic<Int>(0)
        let bytesRead = Atomic<Int>(0)
        let offLoop = Atomic<Int>(0)
        let answers = Mutex<[Int64]>([])
    }

    /// Runs on the chosen I/O thread when the descriptor is readable and when the delay it
    /// returned has passed; statements sent by a task it starts there go out with the loop's
    /// turn and resume the task there; detached, it never runs again.
    @Test(.timeLimit(.minutes(1))) func aServiceRunsOnItsIOThreadUntilDetached() async throws {
        let pool = try await TestDatabase.pool(maxConnections: 4)
        defer { pool.shutdown() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let reader = ends[0]
        let seen = Seen()
        let service = pool.attachToIOThread(0, descriptor: reader) {
            seen.runs.add(1, ordering: .relaxed)
            if PostgresIOExecutor.shared.currentLoop !== PostgresIOExecutor.shared.loops[0] { seen.offLoop.add(1, ordering: .relaxed) }
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = read(reader, &buffer, buffer.count)
            if count > 0 {
                seen.bytesRead.add(count, ordering: .relaxed)
                // A task started here, as an HTTP server's handler is: its statement's result
                // resumes it on this thread.
                Task.immediate(executorPreference: pool.taskExecutor) {
                    let value = try? await pool.query("SELECT \(Int64(count))").single(Int64.self)
                    if PostgresIOExecutor.shared.currentLoop == nil { seen.offLoop.add(1, ordering: .relaxed) }
                    seen.answers.withLock { $0.append(value ?? -1) }
                }
            }
            return 20  // again in 20 ms even without input
        }
        var byte: UInt8 = 7
        #expect(write(ends[1], &byte, 1) == 1)
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.answers.withLock({ $0.isEmpty }) || seen.runs.load(ordering: .relaxed) < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(seen.bytesRead.load(ordering: .relaxed) == 1)
        #expect(seen.answers.withLock { $0 } == [1])
        #expect(seen.runs.load(ordering: .relaxed) >= 4, "the 20 ms delay makes it run again without input")
        #expect(seen.offLoop.load(ordering: .relaxed) == 0)
        service.detach()
        let afterDetach = seen.runs.load(ordering: .relaxed)
        #expect(write(ends[1], &byte, 1) == 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(seen.runs.load(ordering: .relaxed) == afterDetach)
        #expect(seen.bytesRead.load(ordering: .relaxed) == 1)
    }

    /// A service whose descriptor never becomes readable and which never asks for a delay runs
    /// only when asked (`requestRun`): from another thread (which wakes the loop) and from a
    /// task running on its own I/O thread (a flag the loop reads after the turn's tasks).
    @Test(.timeLimit(.minutes(1))) func aServiceAskedForARunRunsWithoutItsDescriptor() async throws {
        // One connection: its results resume tasks on its loop's thread, where the service is attached.
        let pool = try await TestDatabase.pool(maxConnections: 1)
        defer { pool.shutdown() }
        let index = try await pool.withIOExecutor {
            _ = try await pool.query("SELECT 1").single(Int64.self)
            let loops = PostgresIOExecutor.shared.loops
            return loops.firstIndex { $0 === PostgresIOExecutor.shared.currentLoop } ?? 0
        }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let seen = Seen()
        let service = pool.attachToIOThread(index, descriptor: ends[0]) {
            seen.runs.add(1, ordering: .relaxed)
            if PostgresIOExecutor.shared.currentLoop !== PostgresIOExecutor.shared.loops[index] { seen.offLoop.add(1, ordering: .relaxed) }
            return -1  // only when readable (never here) or asked
        }
        defer { service.detach() }
        // A new service runs once at once.
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.runs.load(ordering: .relaxed) < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        let first = seen.runs.load(ordering: .relaxed)
        #expect(first == 1)
        // From this (non-loop) thread.
        service.requestRun()
        while seen.runs.load(ordering: .relaxed) < first + 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(seen.runs.load(ordering: .relaxed) == first + 1)
        // From a task on the loop's thread, after a statement's result resumed it there.
        let onLoop = try await pool.withIOExecutor {
            _ = try await pool.query("SELECT 1").single(Int64.self)
            let onLoop = PostgresIOExecutor.shared.currentLoop === PostgresIOExecutor.shared.loops[index]
            service.requestRun()
            return onLoop
        }
        #expect(onLoop, "the request is made on the service's own thread")
        while seen.runs.load(ordering: .relaxed) < first + 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(seen.runs.load(ordering: .relaxed) == first + 2)
        #expect(seen.offLoop.load(ordering: .relaxed) == 0)
    }
}
