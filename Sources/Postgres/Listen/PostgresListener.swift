internal import CLibPQ
import Foundation
import Support
import Synchronization

/// One dedicated connection that `LISTEN`s on PostgreSQL channels and hands every
/// `NOTIFY` to a callback, for a whole process (not one per subscriber).
///
/// It runs on a thread of its own: `poll(2)` on the connection's socket and on a
/// wake-up pipe, then `PQconsumeInput` and `PQnotifies` when the socket is readable.
/// When the connection is lost (a database restart, a fail-over) it reconnects with
/// exponential backoff (`initialBackoff` doubling up to `maxBackoff`) and reports
/// `.connected(reconnected: true)`: notifications sent while it was away are lost,
/// so the receiver should re-read whatever it watches once.
///
/// `shutdown()` stops the thread and closes the connection; call it before letting go.
public final class PostgresListener: Sendable {
    /// What the listener reports, in order, on its own thread (keep the callback short).
    public enum Event: Sendable {
        /// Listening (again, when `reconnected`: events may have been missed meanwhile).
        case connected(reconnected: Bool)
        /// One notification.
        case notification(channel: String, payload: String)
        /// The connection failed or was lost; the listener retries after `retryIn`.
        case disconnected(reason: String, retryIn: Duration)
    }

    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let onEvent: @Sendable (Event) -> Void
    private let initialBackoff: Duration
    private let maxBackoff: Duration
    private let stopping = Atomic<Bool>(false)
    /// The wake-up pipe: [read end, write end].
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// A listener on `channels` (plain identifiers: letters, digits and `_`), not yet started.
    /// Throws `.invalidInput` for another channel name, `.connectionFailure` when no pipe can be made.
    public init(configuration: PostgresConfiguration, channels: [String],
                initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(5),
                onEvent: @escaping @Sendable (Event) -> Void) throws {
        for channel in channels where channel.isEmpty || !channel.utf8.allSatisfy({ Self.isIdentifierByte($0) }) {
            throw PostgresError(.invalidInput, message: "channel names are letters, digits and _ (got \(channel.debugDescription))")
        }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw PostgresError(.connectionFailure, message: "cannot create the listener's wake-up pipe") }
        _ = fcntl(descriptors[0], F_SETFL, fcntl(descriptors[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
        self.wakeRead = descriptors[0]
        self.wakeWrite = descriptors[1]
        self.configuration = configuration
        self.channels = channels
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.onEvent = onEvent
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the listening thread.
    public func start() {
        let thread = Thread { [self] in
            run()
            let waiters = finished.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "payql-postgres-listen"
        thread.start()
    }

    /// Stops listening, closes the connection and waits for the thread to end
    /// (at most a connection attempt in progress: bounded by `connect_timeout`).
    public func shutdown() async {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        await withCheckedContinuation { continuation in
            let done = finished.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// The thread's body: connect, listen, read until lost, back off, again.
    private func run() {
        var backoff = initialBackoff
        var connectedBefore = false
        while !isStopping {
            switch connectAndListen() {
            case .success(let conn):
                onEvent(.connected(reconnected: connectedBefore))
                connectedBefore = true
                backoff = initialBackoff
                let reason = readUntilLost(conn)
                PQfinish(conn)
                if isStopping { return }
                onEvent(.disconnected(reason: reason, retryIn: .zero))
            case .failure(let error):
                if isStopping { return }
                onEvent(.disconnected(reason: error.message, retryIn: backoff))
                sleepInterruptibly(backoff)
                backoff = min(maxBackoff, backoff * 2)
            }
        }
    }

    private func connectAndListen() -> Result<OpaquePointer, PostgresError> {
        let parameters: [(String, String)]
        do {
            parameters = try configuration.connectionParameters()
        } catch let error as PostgresError {
            return .failure(error)
        } catch {
            return .failure(PostgresError(.invalidInput, message: "invalid connection parameters"))
        }
        let connection = withCStrings(parameters.map(\.0)) { keywords in
            withCStrings(parameters.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let conn = connection else { return .failure(PostgresError(.connectionFailure, message: "libpq could not allocate a connection")) }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
            PQfinish(conn)
            return .failure(PostgresError(.connectionFailure, message: message, sqlState: "08001"))
        }
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        // Channel names were checked to be plain identifiers; quoted, they keep their case.
        let sql = channels.map { "LISTEN \"\($0)\";" }.joined(separator: " ")
        // The result is freed as soon as its status is read (NULL: out of memory, a failure).
        let status = PostgresResult(PQexec(conn, sql))?.status ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK, PQsetnonblocking(conn, 1) == 0 else {
            let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
            PQfinish(conn)
            return .failure(PostgresError(.connectionFailure, message: "LISTEN failed: \(message)"))
        }
        return .success(conn)
    }

    /// Waits for the socket and reports notifications until the connection fails or shutdown; returns why it ended.
    private func readUntilLost(_ conn: OpaquePointer) -> String {
        let socket = PQsocket(conn)
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while !isStopping {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return "poll failed (errno \(errno))"
            }
            if descriptors[1].revents != 0 { drainWakeUps() }
            if isStopping { return "shutdown" }
            guard descriptors[0].revents != 0 else { continue }
            guard PQconsumeInput(conn) == 1 else {
                let message = String(cString: PQerrorMessage(conn)).trimmingTrailingNewlines
                return message.isEmpty ? "connection lost" : message
            }
            while let notification = PQnotifies(conn) {
                let channel = String(cString: notification.pointee.relname)
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                onEvent(.notification(channel: channel, payload: payload))
            }
            if PQstatus(conn) == CONNECTION_BAD { return "connection lost" }
        }
        return "shutdown"
    }

    /// Sleeps for `duration`, or less when shutdown wakes the thread.
    private func sleepInterruptibly(_ duration: Duration) {
        let milliseconds = Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, max(1, milliseconds))
        drainWakeUps()
    }

    private func drainWakeUps() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
        // Left unread when not stopping: a later shutdown writes again.
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
