import Synchronization

/// Adds up the time a task (and the tasks it starts) spends in this pool's
/// statements and leased connections, for a caller that reports it per request
/// (PayQL's `extensions.timing.databaseMs`). Bind one with
/// `PostgresTimeAccount.$current.withValue(account) { ... }`; without one nothing is measured.
/// Concurrent statements each count their own time, so the sum may exceed wall time.
public final class PostgresTimeAccount: Sendable {
    /// The account of the current task, if any.
    @TaskLocal public static var current: PostgresTimeAccount?

    private let total = Atomic<Int64>(0)

    /// An empty account.
    public init() {}

    /// Nanoseconds measured so far.
    public var nanoseconds: Int64 { total.load(ordering: .relaxed) }

    /// Adds the time since `started`.
    func add(since started: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        total.add(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000, ordering: .relaxed)
    }
}
