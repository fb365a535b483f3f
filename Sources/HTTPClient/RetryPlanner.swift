#if canImport(Glibc)
import Glibc
import Support
#endif

/// The retry decisions of ``HTTPClient``, as pure functions (tested without I/O).
enum RetryPlanner {
    /// The least time worth starting another attempt with, before the deadline.
    static let minimumAttemptTime: Duration = .milliseconds(10)

    /// The wait before the next attempt after a response with `status`, or nil to return it.
    static func delay(
        policy: RetryPolicy, attempt: Int, status: Int, retryAfter: Duration?,
        remaining: Duration?, random: Double = Double.random(in: 0...1)
    ) -> Duration? {
        guard status == 429 || (500...599).contains(status) else { return nil }
        return delay(policy: policy, attempt: attempt, retryAfter: retryAfter, remaining: remaining, random: random)
    }

    /// The wait before the next attempt after a transport failure, or nil to throw it.
    static func delay(
        policy: RetryPolicy, attempt: Int, error: HTTPClientError.Code,
        remaining: Duration?, random: Double = Double.random(in: 0...1)
    ) -> Duration? {
        switch error {
        case .timeout, .connectTimeout, .connectFailed, .dnsFailed, .transport:
            return delay(policy: policy, attempt: attempt, retryAfter: nil, remaining: remaining, random: random)
        default:
            // TLS, size limit, cancellation, invalid request, shutdown: repeating cannot help.
            return nil
        }
    }

    /// Exponential back-off with equal jitter: uniform in `[d/2, d]`, `d = min(max, base · 2^(attempt-1))`;
    /// a longer `Retry-After` wins unless it exceeds `maxDelay`; nil past the deadline or the attempts.
    static func delay(policy: RetryPolicy, attempt: Int, retryAfter: Duration?, remaining: Duration?, random: Double) -> Duration? {
        guard case .idempotent(let maxAttempts, let base, let maxDelay) = policy.kind, attempt < maxAttempts else {
            return nil
        }
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxDelay, base * (1 << exponent))
        let fraction = 0.5 + 0.5 * min(max(random, 0), 1)
        var wait = ceiling * fraction
        if let retryAfter {
            guard retryAfter <= maxDelay else { return nil }
            wait = max(wait, retryAfter)
        }
        // Retrying only makes sense when the next attempt can start before the deadline
        // and still has a little time to run.
        if let remaining, wait + minimumAttemptTime > remaining { return nil }
        return wait
    }

    /// The `Retry-After` of a 429 or 503 response, as a wait from now (≥ 0); nil when absent or unreadable.
    static func retryAfter(_ response: HTTPClientResponse) -> Duration? {
        guard response.status == 429 || response.status == 503, let value = response.header("Retry-After") else {
            return nil
        }
        return parseRetryAfter(value, now: currentUnixTime())
    }

    /// Parses `Retry-After`: delay-seconds, or an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`)
    /// relative to `now` (Unix seconds). The obsolete RFC 850 and asctime forms are not read.
    static func parseRetryAfter(_ value: String, now: Int64) -> Duration? {
        let text = value.trimmingSpaces()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Absurdly large values saturate; the policy's maxDelay then refuses them.
            return .seconds(Int64(text.prefix(12)) ?? Int64.max)
        }
        guard let date = parseIMFFixdate(text) else { return nil }
        return .seconds(max(0, date - now))
    }

    /// Unix seconds of an IMF-fixdate, or nil.
    static func parseIMFFixdate(_ text: String) -> Int64? {
        // "Sun, 06 Nov 1994 08:49:37 GMT"
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int64(parts[1]), parts[1].count == 2,
              let month = months.firstIndex(of: String(parts[2])),
              let year = Int64(parts[3]), parts[3].count == 4 else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return CivilCalendar.days(year: year, month: Int64(month + 1), day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func currentUnixTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
