import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many event-stream subscribers on one thread of the test process (`poll(2)` over their
/// sockets): each sends its request, and every event it receives is recorded with the time
/// it arrived. Enough for a thousand subscriptions without a thousand threads.
final class SubscriberSwarm: @unchecked Sendable {
    // @unchecked Sendable: `connections` and `running` are touched only under `lock`
    // (the poll thread and the test's reads); descriptors are immutable after `init`.
    struct Received {
        var status: Int?
        /// `data` of every `next` event, with when it arrived (wall clock, Unix seconds: compared with the database's timestamps).
        var events: [(at: Double, data: String)] = []
        var ended = false
    }

    private let lock = NSLock()
    private var connections: [(descriptor: Int32, parser: EventStreamParser, received: Received)] = []
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    /// Opens one subscriber per request body (all on `port`, with `key`); throws if a connection fails.
    init(port: Int, key: String, bodies: [String]) throws {
        for body in bodies {
            let descriptor = openSocket(port: port)
            guard descriptor >= 0 else {
                for connection in connections { Glibc.close(connection.descriptor) }
                throw ServeProcess.Failure(description: "connect failed after \(connections.count) subscribers")
            }
            let request = eventStreamRequest(port: port, key: key, body: body)
            _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            connections.append((descriptor, EventStreamParser(), Received()))
        }
        Thread.detachNewThread { [self] in pollLoop() }
    }

    /// What subscriber `index` received so far.
    func received(_ index: Int) -> Received { lock.withLock { connections[index].received } }

    /// Every subscriber's record.
    var all: [Received] { lock.withLock { connections.map(\.received) } }

    /// Stops the poll thread and closes every socket.
    func close() {
        lock.withLock { running = false }
        done.wait()
        for connection in connections { Glibc.close(connection.descriptor) }
    }

    private func pollLoop() {
        var descriptors = lock.withLock { connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) } }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while lock.withLock({ running }) {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            guard poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else { continue }
            let now = Date().timeIntervalSince1970
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let count = recv(descriptors[index].fd, &buffer, buffer.count, 0)
                if count < 0, errno == EAGAIN { continue }
                lock.withLock {
                    let items = count <= 0 ? connections[index].parser.closed() : connections[index].parser.feed(Array(buffer[..<count]))
                    for item in items {
                        switch item {
                        case .head(let status, _): connections[index].received.status = status
                        case .event("next", let data): connections[index].received.events.append((now, data))
                        case .end: connections[index].received.ended = true
                        default: break
                        }
                    }
                }
                if count <= 0 { descriptors[index].fd = -1 }   // poll ignores negative descriptors
            }
        }
        done.signal()
    }
}

/// Resident memory (kB) and threads of a process, from `/proc/<pid>/status`.
func processFigures(pid: Int32) -> (rssKB: Int, threads: Int) {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) ?? -1
    }
    return (field("VmRSS"), field("Threads"))
}
