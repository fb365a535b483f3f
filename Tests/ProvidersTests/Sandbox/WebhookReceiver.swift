#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A minimal HTTP/1.1 receiver on a loopback port for the sandbox's webhooks:
/// it records each POST's path, headers and exact body bytes and answers 200.
/// One blocking thread accepts connections (this is test support, not a server).
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        let path: String
        let headers: [(name: String, value: String)]
        let body: [UInt8]
    }

    let port: Int
    private let socket: Int32
    private let received = Mutex<[Delivery]>([])
    private let stopped = Atomic<Bool>(false)

    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ReceiverError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw ReceiverError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Everything received so far.
    var deliveries: [Delivery] { received.withLock { $0 } }

    /// Stops accepting; the accept thread ends.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(socket, nil, nil)
            if connection < 0 { if stopped.load(ordering: .relaxed) { return } else { continue } }
            if let delivery = readRequest(connection) { received.withLock { $0.append(delivery) } }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(connection)
        }
    }

    private func readRequest(_ connection: Int32) -> Delivery? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headerEnd: Int?
        var expected = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: data) {
                headerEnd = end + 4
                let head = String(decoding: data[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        expected = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let headerEnd, data.count >= headerEnd + expected { break }
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: data[0..<(headerEnd - 4)], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let requestLine = lines.first.map { $0.split(separator: " ") } ?? []
        let path = requestLine.count > 1 ? String(requestLine[1]) : ""
        let headers: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
        }
        return Delivery(path: path, headers: headers, body: Array(data[headerEnd..<min(data.count, headerEnd + expected)]))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle { return start }
        return nil
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
