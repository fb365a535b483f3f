import GraphQL
import Synchronization
import Testing

/// The batch loader on its own: one call per queued batch, de-duplication,
/// per-request caching, errors and contract violations.
@Suite struct BatchLoaderTests {
    final class Calls: Sendable {
        let batches = Mutex<[[Int]]>([])
        var all: [[Int]] { batches.withLock { $0 } }
    }

    @Test func queuedKeysLoadInOneCallAndAreCached() async throws {
        let calls = Calls()
        let loader = BatchLoader<Int, String> { keys in
            calls.batches.withLock { $0.append(keys) }
            return keys.map { "v\($0)" }
        }
        let deferred = [3, 1, 3, 2].map { loader.load($0) }
        var values: [String?] = []
        for item in deferred { values.append(try await item.run() as? String) }
        #expect(values == ["v3", "v1", "v3", "v2"])
        #expect(calls.all == [[3, 1, 2]])
        #expect(try await loader.value(for: 1) == "v1")
        #expect(calls.all.count == 1)
        #expect(try await loader.value(for: 9) == "v9")
        #expect(calls.all == [[3, 1, 2], [9]])
    }

    @Test func concurrentAwaitersShareOneCall() async throws {
        let calls = Calls()
        let loader = BatchLoader<Int, Int> { keys in
            calls.batches.withLock { $0.append(keys) }
            try await Task.sleep(for: .milliseconds(10))
            return keys.map { $0 * 10 }
        }
        let deferred = (1...20).map { loader.load($0) }
        let sum = try await withThrowingTaskGroup(of: Int.self) { group in
            for item in deferred { group.addTask { (try await item.run() as? Int) ?? 0 } }
            return try await group.reduce(0, +)
        }
        #expect(sum == 2_100)
        #expect(calls.all.count == 1)
    }

    @Test func batchErrorsReachEveryKeyAndSizesAreChecked() async {
        struct Down: Error {}
        let failing = BatchLoader<Int, Int> { _ in throw Down() }
        await #expect(throws: Down.self) { try await failing.value(for: 1) }
        let short = BatchLoader<Int, Int> { _ in [1] }
        _ = short.load(1)
        await #expect(throws: BatchLoaderError.self) { try await short.value(for: 2) }
    }

    @Test func maxBatchSizeSplitsCalls() async throws {
        let calls = Calls()
        let loader = BatchLoader<Int, Int>(maxBatchSize: 2) { keys in
            calls.batches.withLock { $0.append(keys) }
            return keys
        }
        let deferred = (1...5).map { loader.load($0) }
        for item in deferred { _ = try await item.run() }
        #expect(calls.all == [[1, 2], [3, 4], [5]])
    }
}
