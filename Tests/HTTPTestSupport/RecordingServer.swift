// Shared by the sandbox, adapter and gateway tests: an HTTP server on a loopback
// port that records every request it receives (a webhook or notification target).
public import HTTPServer
import Synchronization

/// A loopback HTTP server (PayQL's own `HTTPServer`) that keeps every request
/// with its exact headers and body bytes, and answers each with a status
/// chosen by the test.
public final class RecordingServer: Sendable {
    /// The server answering on `port`.
    public let server: HTTPServer
    private let recorder: Recorder

    /// The loopback port the server listens on.
    public var port: Int { server.port }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    public func url(_ path: String = "") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Answers the first requests with `statuses` in turn, then 200.
    public init(statuses: [Int] = []) throws {
        let recorder = Recorder()
        server = try HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1),
                                handler: ClosureHandler { request in
                                    let index = recorder.add(request)
                                    return HTTPResponse(status: index < statuses.count ? statuses[index] : 200)
                                })
        self.recorder = recorder
    }

    /// Everything received so far, in arrival order.
    public var requests: [HTTPRequest] { recorder.all }

    /// Waits until at least `count` requests arrived (or `timeout` passed), then returns all.
    public func wait(for count: Int, timeout: Duration = .seconds(5)) async -> [HTTPRequest] {
        let end = ContinuousClock.now + timeout
        while recorder.all.count < count, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return recorder.all
    }

    /// Stops the server.
    public func shutdown() async { await server.shutdown(gracePeriod: .milliseconds(200)) }

    private final class Recorder: Sendable {
        private let list = Mutex<[HTTPRequest]>([])

        /// Records the request; returns how many came before it.
        func add(_ request: HTTPRequest) -> Int {
            list.withLock { list in
                list.append(request)
                return list.count - 1
            }
        }

        var all: [HTTPRequest] { list.withLock { $0 } }
    }
}
