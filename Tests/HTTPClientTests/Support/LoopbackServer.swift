import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A request as the loopback server saw it.
struct SeenRequest: Sendable {
    var method: String
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the loopback server does with a request.
enum ServerAction: Sendable {
    /// Answers after an optional delay; `contentLength: false` sends the body until close instead.
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], delay: Duration = .zero, contentLength: Bool = true)
    /// Closes the connection without answering.
    case drop
    /// Never answers; waits until the client goes away or the server stops.
    case hang
    /// Writes these bytes as they are (any status lines, headers, body), then closes.
    case raw([UInt8])
}

/// A tiny HTTP/1.1 server on 127.0.0.1 over POSIX sockets, one thread per connection,
/// written for these tests so they depend on nothing but the client under test and
/// can misbehave on purpose. `handler` gets the request and how many requests came
/// for that path before it (0 for the first).
final class LoopbackServer: Sendable {
    typealias Handler = @Sendable (SeenRequest, Int) -> ServerAction

    private struct State {
        var connections: Set<Int32> = []
        var accepted = 0
        var requests: [String: Int] = [:]
        var stopped = false
    }

    let port: Int
    private let listener: Int32
    private let handler: Handler
    private let state = Guarded(State())

    init(backlog: Int32 = 128, accepting: Bool = true, handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXFailure("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else { close(fd); throw POSIXFailure("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        self.handler = handler
        if accepting {
            let thread = Thread { [self] in acceptLoop() }
            thread.start()
        }
    }

    /// `http://127.0.0.1:PORT` + path.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Connections accepted so far.
    var accepted: Int { state.withLock { $0.accepted } }

    /// Requests seen so far for `path`.
    func requests(_ path: String) -> Int { state.withLock { $0.requests[path, default: 0] } }

    /// Closes the listener and every connection.
    func stop() {
        let connections = state.withLock { state in
            state.stopped = true
            return state.connections
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for fd in connections { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.accepted += 1
                state.connections.insert(fd)
                return true
            }
            guard admitted else { close(fd); return }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                serve(fd)
                state.withLock { _ = $0.connections.remove(fd) }
                close(fd)
            }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        var reader = SocketReader(fd: fd)
        while let request = reader.readRequest() {
            let count = state.withLock { state -> Int in
                defer { state.requests[request.path, default: 0] += 1 }
                return state.requests[request.path, default: 0]
            }
            switch handler(request, count) {
            case .drop:
                return
            case .raw(let bytes):
                _ = sendAll(fd, bytes)
                return
            case .hang:
                // Blocks until the peer closes or stop() shuts the socket down.
                var byte: UInt8 = 0
                while recv(fd, &byte, 1, 0) > 0 {}
                return
            case .respond(let status, let headers, let body, let delay, let contentLength):
                if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
                var head = "HTTP/1.1 \(status) Status\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += contentLength ? "Content-Length: \(body.count)\r\n" : "Connection: close\r\n"
                head += "\r\n"
                guard sendAll(fd, Array(head.utf8)), request.method == "HEAD" || sendAll(fd, body) else { return }
                if !contentLength { return }
            }
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}

struct POSIXFailure: Error, CustomStringConvertible {
    var description: String
    init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
}

/// Buffered reading of HTTP/1.1 requests (Content-Length bodies only: all the client sends).
private struct SocketReader {
    let fd: Int32
    var buffer: [UInt8] = []

    mutating func readRequest() -> SeenRequest? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: terminator)?.lowerBound
            if headEnd == nil, !fill() { return nil }
        }
        guard let end = headEnd else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        while buffer.count < length {
            if !fill() { return nil }
        }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return SeenRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}

/// A value behind an `NSLock` (ThreadSanitizer understands it; see docs/toolchain-facts.md §1 on `Mutex`).
final class Guarded<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only reached inside withLock, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
