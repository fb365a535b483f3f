#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Support

/// Waits for SIGINT or SIGTERM (graceful shutdown of `payql serve` and `payql sandbox`).
enum TerminationSignals {
    /// Returns when SIGINT or SIGTERM arrives; the signals no longer kill the process.
    static func waitForTermination() async -> Int32 {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let latch = SignalLatch()
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { latch.fire(number) }
            source.resume()
            return source
        }
        let number = await latch.wait()
        sources.forEach { $0.cancel() }
        return number
    }
}

/// Resumes one waiter once a signal has fired (in either order).
private final class SignalLatch: Sendable {
    private let state = Locked<(fired: Int32?, waiter: CheckedContinuation<Int32, Never>?)>((nil, nil))

    func fire(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            if state.fired == nil { state.fired = number }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }

    func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let fired = state.withLock { state -> Int32? in
                if state.fired == nil { state.waiter = continuation }
                return state.fired
            }
            if let fired { continuation.resume(returning: fired) }
        }
    }
}
