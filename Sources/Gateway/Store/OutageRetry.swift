import Postgres

/// Rides out a short database outage (a restart or fail-over: connections cut, new ones
/// refused for a second or two) for writes that must not be lost: what a provider already
/// did (an order it created), and the release or completion of an idempotency key.
/// Only idempotent statements go through here: an attempt whose answer was lost may have
/// committed, and is then simply done again.
enum OutageRetry {
    /// How long a write keeps trying before its error is passed on.
    static let budget: Duration = .seconds(15)

    /// Runs `body`, again after connection failures (doubling pauses from 50 ms to 1 s) until `budget` has passed.
    static func run<T>(budget: Duration = OutageRetry.budget, _ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + budget
        var pause: Duration = .milliseconds(50)
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where isOutage(error) && ContinuousClock.now + pause < deadline {
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(1))
            }
        }
    }

    /// A connection that broke or could not be made, or a server shutting down or starting
    /// (SQLSTATE classes 08 and 57: admin shutdown, cannot connect now).
    static func isOutage(_ error: PostgresError) -> Bool {
        if error.code == .connectionFailure { return true }
        guard let state = error.sqlState else { return false }
        return state.hasPrefix("08") || state.hasPrefix("57P")
    }
}
