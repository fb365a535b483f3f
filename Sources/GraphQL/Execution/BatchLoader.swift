import Support

/// Collects the keys requested during one step of execution and loads them with
/// one call of a batch function (the DataLoader pattern), caching results for the
/// rest of the request.
///
/// A resolver calls ``load(_:)`` synchronously and returns the ``Deferred`` it
/// gets. The executor completes every field it can before it awaits anything,
/// so all keys of a list's N items are queued before the first one is awaited;
/// the first awaiter takes the whole queue and runs the batch function once,
/// the others wait for its result. Keys queued later (say by an async resolver
/// after a suspension) are dispatched by their own first awaiter, so nothing waits
/// for a dispatch that never comes.
///
/// Create loaders per request (see ``LoaderStore``): the cache is not invalidated.
public final class BatchLoader<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Loads values for keys; must return one entry per key, in the keys' order (`nil` = null).
    public typealias BatchFunction = @Sendable (_ keys: [Key]) async throws -> [Value?]

    private enum Entry {
        case queued([CheckedContinuation<Value?, any Error>])
        case inFlight([CheckedContinuation<Value?, any Error>])
        case done(Result<Value?, any Error>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var queue: [Key] = []
    }

    private let batch: BatchFunction
    private let maxBatchSize: Int
    private let state = Locked(State())

    /// Creates a loader; `maxBatchSize` splits very large batches into several calls.
    public init(maxBatchSize: Int = 1_000, batch: @escaping BatchFunction) {
        self.batch = batch
        self.maxBatchSize = max(1, maxBatchSize)
    }

    /// Queues `key` (unless already known) and returns its future value.
    public func load(_ key: Key) -> Deferred {
        enqueue(key)
        return Deferred { try await self.value(for: key) }
    }

    /// Queues every key and returns their future values as one list.
    public func loadMany(_ keys: [Key]) -> Deferred {
        keys.forEach(enqueue)
        return Deferred {
            var values: [(any Sendable)?] = []
            values.reserveCapacity(keys.count)
            for key in keys { values.append(try await self.value(for: key)) }
            return values
        }
    }

    /// The value for `key`, loading it (with whatever else is queued) if needed.
    public func value(for key: Key) async throws -> Value? {
        enqueue(key)
        let step: LoaderStep<Key, Value> = state.withLock { state in
            switch state.entries[key] {
            case .done(let result)?:
                return .done(result)
            case .queued?:
                let keys = state.queue
                state.queue.removeAll()
                for queuedKey in keys {
                    if case .queued(let waiters)? = state.entries[queuedKey] {
                        state.entries[queuedKey] = .inFlight(waiters)
                    }
                }
                return .dispatch(keys)
            case .inFlight?, nil:
                return .wait
            }
        }
        switch step {
        case .done(let result):
            return try result.get()
        case .dispatch(let keys):
            await dispatch(keys)
            return try await value(for: key)
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Value?, any Error>? = state.withLock { state in
                    switch state.entries[key] {
                    case .done(let result)?:
                        return result
                    case .queued(let waiters)?:
                        state.entries[key] = .queued(waiters + [continuation])
                        return nil
                    case .inFlight(let waiters)?:
                        state.entries[key] = .inFlight(waiters + [continuation])
                        return nil
                    case nil:
                        return .failure(BatchLoaderError(message: "batch loader lost key \(key)"))
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }

    private func enqueue(_ key: Key) {
        state.withLock { state in
            if state.entries[key] == nil {
                state.entries[key] = .queued([])
                state.queue.append(key)
            }
        }
    }

    private func dispatch(_ keys: [Key]) async {
        var start = 0
        while start < keys.count {
            let chunk = Array(keys[start..<min(keys.count, start + maxBatchSize)])
            start += chunk.count
            let results: [Result<Value?, any Error>]
            do {
                let values = try await batch(chunk)
                if values.count == chunk.count {
                    results = values.map { .success($0) }
                } else {
                    let error = BatchLoaderError(message: "batch function returned \(values.count) values for \(chunk.count) keys")
                    results = Array(repeating: .failure(error), count: chunk.count)
                }
            } catch {
                results = Array(repeating: .failure(error), count: chunk.count)
            }
            let wakeUps: [(CheckedContinuation<Value?, any Error>, Result<Value?, any Error>)] = state.withLock { state in
                var wakeUps: [(CheckedContinuation<Value?, any Error>, Result<Value?, any Error>)] = []
                for (key, result) in zip(chunk, results) {
                    switch state.entries[key] {
                    case .inFlight(let waiters)?, .queued(let waiters)?:
                        wakeUps += waiters.map { ($0, result) }
                    default:
                        break
                    }
                    state.entries[key] = .done(result)
                }
                return wakeUps
            }
            for (continuation, result) in wakeUps { continuation.resume(with: result) }
        }
    }
}

private enum LoaderStep<Key: Sendable, Value: Sendable> {
    case done(Result<Value?, any Error>)
    case dispatch([Key])
    case wait
}

/// A batch function broke the loader's contract.
public struct BatchLoaderError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// The batch loaders of one request, created on first use and shared by all its resolvers.
public final class LoaderStore: Sendable {
    private let loaders = Locked<[String: any Sendable]>([:])

    /// An empty store (the executor makes one per request unless the host passes its own).
    public init() {}

    /// The loader registered under `id`, created with `make` on first use.
    public func loader<Loader: Sendable>(_ id: String, make: () -> Loader) -> Loader {
        loaders.withLock { loaders in
            if let existing = loaders[id] as? Loader { return existing }
            let created = make()
            loaders[id] = created
            return created
        }
    }
}
