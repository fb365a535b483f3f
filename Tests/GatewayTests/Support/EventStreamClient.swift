import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an event-stream response is read as, piece by piece.
enum StreamItem: Equatable, Sendable {
    /// The status line and header fields (names lower-cased).
    case head(status: Int, headers: [String: String])
    /// One SSE event (`event:` name, `data:` lines joined).
    case event(name: String, data: String)
    /// A comment line (a heartbeat).
    case comment
    /// A response that is not an event stream: its whole body (at its end).
    case body(String)
    /// The response ended (chunked terminator, or the connection closed).
    case end
}

/// Reads an HTTP/1.1 response that may be a chunked `text/event-stream` from bytes
/// fed in as they arrive (no I/O: one parser per connection, driven by any loop).
struct EventStreamParser {
    private enum Phase { case head, chunkSize, chunkData(Int), chunkEnd, length(Int), untilClose, done }
    private var phase = Phase.head
    private var raw: [UInt8] = []
    private var decoded: [UInt8] = []
    private var isEventStream = false

    /// Feeds received bytes; returns the items they complete.
    mutating func feed(_ bytes: [UInt8]) -> [StreamItem] {
        raw += bytes
        var items: [StreamItem] = []
        while true {
            switch phase {
            case .head:
                guard let end = find([13, 10, 13, 10], in: raw) else { return items }
                let text = String(decoding: raw[..<end], as: UTF8.self)
                raw.removeFirst(end + 4)
                var lines = text.components(separatedBy: "\r\n")
                let status = Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                items.append(.head(status: status, headers: headers))
                isEventStream = headers["content-type"]?.hasPrefix("text/event-stream") == true
                if headers["transfer-encoding"]?.lowercased() == "chunked" {
                    phase = .chunkSize
                } else if let length = headers["content-length"].flatMap({ Int($0) }) {
                    phase = .length(length)
                } else {
                    phase = .untilClose
                }
            case .chunkSize:
                guard let end = find([13, 10], in: raw) else { return items }
                let size = Int(String(decoding: raw[..<end], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
                raw.removeFirst(end + 2)
                if size == 0 {
                    phase = .done
                    items += drainEvents(final: true)
                    items.append(.end)
                    return items
                }
                phase = .chunkData(size)
            case .chunkData(let size):
                guard raw.count >= size else { return items }
                decoded += raw[..<size]
                raw.removeFirst(size)
                phase = .chunkEnd
                items += drainEvents(final: false)
            case .chunkEnd:
                guard raw.count >= 2 else { return items }
                raw.removeFirst(2)
                phase = .chunkSize
            case .length(let length):
                guard raw.count >= length else { return items }
                decoded += raw[..<length]
                raw.removeFirst(length)
                phase = .done
                items += drainEvents(final: true)
                items.append(.end)
                return items
            case .untilClose:
                decoded += raw
                raw = []
                items += drainEvents(final: false)
                return items
            case .done:
                return items
            }
        }
    }

    /// The connection closed.
    mutating func closed() -> [StreamItem] {
        if case .done = phase { return [] }
        phase = .done
        return drainEvents(final: true) + [.end]
    }

    private mutating func drainEvents(final: Bool) -> [StreamItem] {
        guard isEventStream else {
            guard final else { return [] }
            defer { decoded = [] }
            return [.body(String(decoding: decoded, as: UTF8.self))]
        }
        var items: [StreamItem] = []
        while let end = find([10, 10], in: decoded) {
            let block = String(decoding: decoded[..<end], as: UTF8.self)
            decoded.removeFirst(end + 2)
            var name = "message"
            var data: [String] = []
            var sawField = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { continue }
                sawField = true
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") {
                    var value = line.dropFirst(5)
                    if value.first == " " { value = value.dropFirst() }
                    data.append(String(value))
                }
            }
            items.append(sawField ? .event(name: name, data: data.joined(separator: "\n")) : .comment)
        }
        return items
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

/// The request bytes of a GraphQL-over-SSE subscription.
func eventStreamRequest(port: Int, key: String?, body: String, accept: String = "text/event-stream") -> [UInt8] {
    var text = "POST /graphql HTTP/1.1\r\nhost: 127.0.0.1:\(port)\r\ncontent-type: application/json\r\naccept: \(accept)\r\n"
    if let key { text += "authorization: Bearer \(key)\r\n" }
    text += "content-length: \(body.utf8.count)\r\n\r\n" + body
    return Array(text.utf8)
}

/// A non-blocking loopback socket connected to `port`; -1 on failure.
func openSocket(port: Int) -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else {
        close(descriptor)
        return -1
    }
    return descriptor
}

/// One event-stream request on a blocking socket, read item by item (for protocol tests).
final class EventStreamConnection: @unchecked Sendable {
    // @unchecked Sendable: used by one test task at a time (reads happen off the pool, awaited).
    private let descriptor: Int32
    private var parser = EventStreamParser()
    private var pending: [StreamItem] = []
    private var closed = false

    init(port: Int, key: String?, body: String, accept: String = "text/event-stream") throws {
        descriptor = openSocket(port: port)
        guard descriptor >= 0 else { throw ServeProcess.Failure(description: "connect failed") }
        let bytes = eventStreamRequest(port: port, key: key, body: body, accept: accept)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { if !closed { close(descriptor) } }

    /// Closes the client side (the server should notice and free the subscription).
    func disconnect() {
        guard !closed else { return }
        closed = true
        close(descriptor)
    }

    /// The next item, or nil when none arrives within `timeout`.
    func next(timeout: Duration = .seconds(20)) async throws -> StreamItem? {
        if !pending.isEmpty { return pending.removeFirst() }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let descriptor = self.descriptor
            let chunk: [UInt8]? = try await offPoolRead(descriptor)
            if let chunk {
                pending += chunk.isEmpty ? parser.closed() : parser.feed(chunk)
                if chunk.isEmpty, pending.isEmpty { return nil }
            }
            if !pending.isEmpty { return pending.removeFirst() }
        }
        return nil
    }

    /// Items until (and including) the first event named `name`, or nil at the timeout.
    func nextEvent(named name: String, timeout: Duration = .seconds(20)) async throws -> (data: String, skipped: [StreamItem])? {
        var skipped: [StreamItem] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let item = try await next(timeout: deadline - ContinuousClock.now) else { return nil }
            if case .event(name, let data) = item { return (data, skipped) }
            skipped.append(item)
            if item == .end { return nil }
        }
        return nil
    }

    /// Reads what arrives within 200 ms on a thread of its own: nil for nothing, [] for end of stream.
    private func offPoolRead(_ descriptor: Int32) async throws -> [UInt8]? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) > 0 else { return continuation.resume(returning: nil) }
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                continuation.resume(returning: count <= 0 ? [] : Array(buffer[..<count]))
            }
        }
    }
}
