#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: PayQL's one mutual-exclusion box, used by
/// every target (`ReadWriteLocked` is its reader-writer sibling for read-mostly tables).
///
/// Used instead of `Synchronization.Mutex`, since so much state is shared with C
/// libraries' threads (libmicrohttpd, libcurl, libpq): `Mutex` waits on a raw futex on Linux,
/// which ThreadSanitizer does not model (it reported races on Mutex-guarded state
/// shared with a C thread; docs/toolchain-facts.md §1), while pthread mutexes are
/// understood, so TSan runs stay meaningful. Uncontended, both cost the same.
///
/// `@unchecked Sendable`: `value` is only reached inside ``withLock(_:)``, under
/// `mutex`; the mutex is heap-allocated once (its address never moves) and
/// destroyed in `deinit`, when no other reference exists.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Wraps `value`.
    public init(_ value: Value) {
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
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
