#if canImport(Glibc)
import Glibc
#endif

/// State shared by threads that mostly read it: readers hold a shared lock and
/// never wait for each other, a writer holds it alone.
///
/// For the per-request caches (documents, selected operations, plans). With a
/// `Mutex` there, two server threads meeting on a lookup make one sleep in the
/// kernel, and when the holder is preempted on a busy machine the sleeper waits
/// a whole scheduler tick (4 ms at 250 Hz): measured as `lockSlow` samples and
/// futex calls in the HTTP benchmark. Readers here only take the lock shared.
///
/// Writers are preferred (a waiting writer holds off new readers), so a steady
/// stream of readers cannot starve an insertion.
///
/// Readers get the state through a pointer: reading a class's stored property
/// would retain its buffers, and two threads retaining the same buffers contend
/// on their reference counts (measured: ~3 µs more CPU per workload request).
///
/// `@unchecked Sendable`: `state` is read only between `pthread_rwlock_rdlock`
/// and `pthread_rwlock_unlock`, and written only between `pthread_rwlock_wrlock`
/// and `pthread_rwlock_unlock`; the lock and the state are allocated once (they
/// never move) and freed in `deinit`, when no other reference exists.
public final class ReadWriteLocked<State: Sendable>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private let state: UnsafeMutablePointer<State>

    /// Wraps `initial`.
    public init(_ initial: State) {
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with shared access (other readers may run at the same time) to
    /// the state at `body`'s pointer, valid only during the call. `body` must not
    /// call `write` on this lock (it would deadlock).
    public func read<Result>(_ body: (UnsafePointer<State>) throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(UnsafePointer(state))
    }

    /// Runs `body` with exclusive access.
    public func write<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&state.pointee)
    }
}
