#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// Why not `Synchronization.Mutex`: on Linux it is a bare futex that
/// ThreadSanitizer cannot see, so every hand-over between a task and the I/O
/// thread was reported as a race (measured, docs/toolchain-facts.md §1). A pthread mutex
/// is understood by TSan and costs the same uncontended.
///
/// `@unchecked Sendable` is safe because `value` is only reached inside
/// ``withLock(_:)``, under `mutex`, and `State` itself is `Sendable`.
final class LockedState<State: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: State

    init(_ value: State) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let code = pthread_mutex_init(mutex, nil)
        // Fails only without memory (ENOMEM) or on a bad attribute: not something input can cause.
        precondition(code == 0, "pthread_mutex_init failed: \(code)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
