import Foundation
import Support

/// Single flight per collect on this instance: the first reader of a due collect starts its
/// status check, readers arriving meanwhile wait for that same check (each up to its own
/// deadline) instead of starting another. Across instances the database lease decides
/// (``UpiCollectStore/claimPoll(id:leaseMilliseconds:)``); this only saves the round trips and
/// gives concurrent readers the fresh answer.
///
/// Memory is bounded: an entry lives only while its check runs, and at most `limit` run at once.
final class UpiCollectPollGate: Sendable {
    private let flights = Locked<[UUID: PollFlight]>([:])
    private let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Joins the check running for `id`, or starts `check` when none is; returns when it has
    /// finished or `deadline` passed (the check itself goes on). Returns at once when the
    /// in-flight limit is reached.
    func checkOnce(id: UUID, deadline: Duration, _ check: @escaping @Sendable () async -> Void) async {
        let flight: PollFlight? = flights.withLock { flights in
            if let running = flights[id] { return running }
            guard flights.count < limit else { return nil }
            let started = PollFlight()
            flights[id] = started
            return started
        }
        guard let flight else { return }
        if flight.claimStart() {
            Task {
                await check()
                // Removed before waking the waiters: a reader that finds no flight starts a new one,
                // which the database then refuses until the next check is due.
                _ = self.flights.withLock { $0.removeValue(forKey: id) }
                flight.finish()
            }
        }
        await flight.wait(upTo: deadline)
    }

    /// Checks running now (for tests of the memory bound).
    var inFlight: Int { flights.withLock { $0.count } }
}

/// One running check and the readers waiting for it. Each waiter is resumed exactly once:
/// by ``finish()`` or by its own deadline, whichever comes first.
final class PollFlight: Sendable {
    private struct State {
        var started = false
        var done = false
        var nextToken = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Tokens whose deadline passed before their continuation was registered.
        var expired: Set<Int> = []
    }

    private let state = Locked(State())

    /// True for the one caller that must start the check.
    func claimStart() -> Bool {
        state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
    }

    /// The check ended: every waiter resumes.
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.done = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until ``finish()`` or `deadline`.
    func wait(upTo deadline: Duration) async {
        let token = state.withLock { state -> Int? in
            guard !state.done else { return nil }
            defer { state.nextToken += 1 }
            return state.nextToken
        }
        guard let token else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.done || state.expired.remove(token) != nil { return true }
                        state.waiters[token] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask {
                // Cancelled (the check finished first): nothing to release.
                guard (try? await Task.sleep(for: deadline)) != nil else { return }
                let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    if let waiter = state.waiters.removeValue(forKey: token) { return waiter }
                    if !state.done { state.expired.insert(token) }
                    return nil
                }
                waiter?.resume()
            }
            await group.next()
            group.cancelAll()
        }
    }
}
