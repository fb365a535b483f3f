import Dispatch
import HTTPServer
import HTTPTestSupport
import Synchronization
import Testing

/// `HTTPServerConfiguration.taskExecutor`: handler tasks prefer it, so the code after each
/// wait runs there (not on Swift's global executor).
@Suite struct HandlerExecutorTests {
    /// A task executor running jobs on one serial queue, counting them.
    final class QueueExecutor: TaskExecutor {
        static let key = DispatchSpecificKey<Bool>()
        let queue = DispatchQueue(label: "payql-test-handler-executor")
        let jobs = Atomic<Int>(0)

        init() { queue.setSpecific(key: Self.key, value: true) }

        func enqueue(_ job: consuming ExecutorJob) {
            jobs.add(1, ordering: .relaxed)
            let unowned = UnownedJob(job)
            queue.async { unowned.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }

        /// Whether the caller runs on the queue.
        static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    @Test func handlerCodeAfterAWaitRunsOnTheConfiguredExecutor() async throws {
        let executor = QueueExecutor()
        let handler = ClosureHandler { _ in
            try? await Task.sleep(for: .milliseconds(2))
            return .text(QueueExecutor.isCurrent ? "on executor" : "elsewhere")
        }
        try await withServer(.init(taskExecutor: executor), handler: handler) { server in
            for _ in 0..<3 {
                let response = try await request(port: server.port, "GET", "/")
                #expect(String(decoding: response.body, as: UTF8.self) == "on executor")
            }
        }
        #expect(executor.jobs.load(ordering: .relaxed) >= 3)
    }

    @Test func withoutOneHandlersRunElsewhere() async throws {
        let handler = ClosureHandler { _ in
            try? await Task.sleep(for: .milliseconds(2))
            return .text(QueueExecutor.isCurrent ? "on executor" : "elsewhere")
        }
        try await withServer(handler: handler) { server in
            let response = try await request(port: server.port, "GET", "/")
            #expect(String(decoding: response.body, as: UTF8.self) == "elsewhere")
        }
    }
}
