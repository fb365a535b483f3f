import Support
#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock(2)` lock on a file next to the embedded cluster's data
/// directory, taken by every `EmbeddedPostgres` that uses the cluster.
///
/// Why flock: its locks belong to the open file description and the kernel
/// drops them when the last descriptor closes, however the process ends
/// (`kill -9` included). So "nobody holds the users lock" means "no PayQL
/// process uses this cluster any more", even after a crash; and two opens in
/// one process conflict exactly like two processes do (the tests rely on it).
/// The descriptor is close-on-exec, and `ProcessRunner`'s children inherit no
/// descriptor anyway: a postmaster never holds these locks.
final class ClusterLockFile: Sendable {
    /// The lock file.
    let path: String
    /// The open descriptor, -1 once closed; behind a lock because any task may lock or close.
    private let descriptor: Locked<Int32>

    /// Opens (creating, mode 0600) `path`. No lock is taken yet.
    init(path: String) throws {
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw PostgresError(.embeddedClusterFailed, message: "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        descriptor = Locked(opened)
    }

    deinit { close() }

    /// Takes (or converts to) a shared or exclusive lock without waiting; whether it was granted.
    ///
    /// Converting an existing lock is atomic in Linux's flock (the old lock is
    /// dropped and the new one checked under one spinlock), but a refused
    /// conversion leaves no lock at all: callers only convert when they hold
    /// the start lock, or are about to close.
    func tryLock(exclusive: Bool) -> Bool {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return false }
            while true {
                if flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 { return true }
                if errno != EINTR { return false }
            }
        }
    }

    /// Waits (polling with backoff, never blocking a thread) for the lock, at most `timeout`.
    /// Throws `.embeddedClusterFailed` naming `holder` when it is not granted in time.
    func lock(exclusive: Bool, timeout: Duration, holder: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(5)
        while !tryLock(exclusive: exclusive) {
            guard clock.now < deadline else {
                throw PostgresError(.embeddedClusterFailed, message: "\(holder) has held \(path) for more than \(timeout); is it stuck?")
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(200))
        }
    }

    /// Releases the lock and closes the file. Idempotent.
    func close() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            descriptor = -1
        }
    }
}
