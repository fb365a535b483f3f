#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` for state shared with libmicrohttpd's
/// threads: `Mutex` waits on a raw futex on Linux, which ThreadSanitizer does not
/// model (docs/toolchain-facts.md §1: it reported races on Mutex-guarded state shared with a C
/// thread), while pthread mutexes are understood, so TSan runs stay meaningful.
/// `@unchecked Sendable` because every access to `value` goes through `withLock`,
/// which holds `mutex`.
final class Locked<Value>: @unchecked Sendable {
    /// Heap-allocated so that its address never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
