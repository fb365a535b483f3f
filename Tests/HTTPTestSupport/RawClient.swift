// Shared by HTTPServerTests and GraphQLHTTPTests: a raw-socket HTTP/1.1 client.
import Foundation
import Glibc
public import HTTPServer

/// Runs blocking socket work on a thread of its own: off the cooperative pool (whose
/// threads the server's async handlers need) and off Dispatch's width-limited global queue.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

public struct RawClientError: Error, CustomStringConvertible {
    public let description: String
}

/// A response as read off the wire.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking TCP client on loopback that speaks just enough HTTP/1.1 to test
/// a server, including the malformed and slow requests a real client never sends.
public final class RawConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, timeout: Double = 10) throws {
        // The socket is stored only once connected: a throwing initializer of a fully
        // initialized class runs `deinit`, which would close the descriptor a second
        // time — by then possibly another thread's new socket (seen as EBADF in
        // concurrently running tests).
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw RawClientError(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(socketDescriptor)
            throw RawClientError(description: "connect failed: errno \(error)")
        }
        descriptor = socketDescriptor
        setTimeout(timeout)
    }

    deinit { Glibc.close(descriptor) }

    public func setTimeout(_ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Half-closes the connection: the server reads end-of-stream, this side can still read.
    public func shutdownWrite() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawClientError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes; returns false at end of stream. Throws on timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw RawClientError(description: "recv failed: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Reads one response (Content-Length or chunked body).
    public func readResponse() throws -> RawResponse {
        var headerEnd: Int? = nil
        while headerEnd == nil {
            headerEnd = findHeaderEnd()
            if headerEnd == nil, try !fill() { throw RawClientError(description: "connection closed before a response") }
        }
        guard let headerEnd else { throw RawClientError(description: "unreachable") }
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawClientError(description: "bad status line \(head)") }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.add(name: String(line[..<colon]), value: String(value))
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length {
                if try !fill() { throw RawClientError(description: "closed mid-body") }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                var lineEnd = findCRLF()
                while lineEnd == nil {
                    if try !fill() { throw RawClientError(description: "closed mid-chunk") }
                    lineEnd = findCRLF()
                }
                guard let end = lineEnd, let size = Int(String(decoding: buffer[0..<end], as: UTF8.self), radix: 16) else {
                    throw RawClientError(description: "bad chunk size")
                }
                buffer.removeFirst(end + 2)
                while buffer.count < size + 2 {
                    if try !fill() { throw RawClientError(description: "closed mid-chunk") }
                }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closes the connection (before the timeout) without sending anything.
    public func waitForClose() throws -> (closed: Bool, received: [UInt8]) {
        while true {
            do {
                if try !fill() { return (true, buffer) }
            } catch {
                return (false, buffer)
            }
        }
    }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func findCRLF() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for index in 0...(buffer.count - 2) where buffer[index] == 13 && buffer[index + 1] == 10 { return index }
        return nil
    }

    /// One request/response on this connection.
    public func exchange(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> RawResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse()
    }
}

/// One request on a fresh connection.
public func request(
    port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
) async throws -> RawResponse {
    try await offPool {
        let connection = try RawConnection(port: port)
        return try connection.exchange(method, target, headers: headers, body: body)
    }
}
