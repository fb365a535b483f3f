import Support
import Synchronization

/// The loop a background worker (``OutboxWorker``, ``Reconciler``) runs: one step — claim a
/// batch of due work and do it — again and again until ``shutdown(cancellingWork:)``, waiting
/// `interval` after a step that found little to do. Owns one task between ``start(interval:step:)``
/// and ``shutdown(cancellingWork:)``.
final class WorkerLoop: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)
    /// Set by ``shutdown(cancellingWork:)``: no further step starts and ``start(interval:step:)`` does nothing.
    private let stopping = Atomic<Bool>(false)

    /// Whether the loop is being stopped (a step's failure then is not worth reporting).
    var isStopping: Bool { stopping.load(ordering: .relaxed) || Task.isCancelled }

    /// Starts the loop (once; later calls, and calls after shutdown, do nothing). `step` returns
    /// whether more work is due at once; when it returns `false` the loop waits `interval` first.
    func start(interval: Duration, step: @escaping @Sendable () async -> Bool) {
        task.withLock { task in
            guard task == nil, !stopping.load(ordering: .relaxed) else { return }
            task = Task { [self] in
                while !isStopping {
                    if await !step() { await idle(interval) }
                }
            }
        }
    }

    /// Stops the loop and returns once it has ended. With `cancellingWork` the running step is
    /// cancelled (its work is abandoned to its lease); without, it runs to its own deadlines.
    func shutdown(cancellingWork: Bool) async {
        stopping.store(true, ordering: .relaxed)
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        if cancellingWork { running?.cancel() }
        await running?.value
    }

    /// Waits `interval` in slices of at most 50 ms, so that a shutdown is not kept waiting.
    private func idle(_ interval: Duration) async {
        let end = ContinuousClock.now + interval
        while !isStopping, ContinuousClock.now < end {
            try? await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    /// Runs `body` for each of `items`, at most `width` at a time, and returns when all have finished.
    static func forEach<Item: Sendable>(_ items: [Item], width: Int, _ body: @escaping @Sendable (Item) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for (index, item) in items.enumerated() {
                if index >= max(1, width) { await group.next() }
                group.addTask { await body(item) }
            }
        }
    }
}
