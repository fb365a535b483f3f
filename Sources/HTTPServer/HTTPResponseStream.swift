internal import CMicroHTTPD
internal import CPayQLShims
import Support

/// A response body written over time (Server-Sent Events), without a thread or a
/// task per response.
///
/// Give it to `HTTPResponse.stream`: once the headers are sent, libmicrohttpd asks
/// the stream for bytes on the connection's pool thread. When nothing is buffered
/// the connection is *suspended* (libmicrohttpd's content-reader pattern:
/// `MHD_suspend_connection` from the reader, returning 0), and the next `write`
/// resumes it. An open stream therefore costs a connection, this object and its
/// buffer — no thread, no task.
///
/// The buffer is bounded: a write that would take it past `maxBufferedBytes` ends
/// the stream (the connection is closed) instead of growing memory for a reader
/// that does not keep up. While suspended libmicrohttpd does not notice a client
/// that went away; the server's hang-up watch does (within ~100 ms of the FIN), and
/// a periodic write (a heartbeat) would fail too.
///
/// `onClose` runs exactly once, whatever ends the stream: `finish()` after the last
/// byte was handed over, `cancel()`, an overflow, the client leaving, the server
/// shutting down, or a response that was never sent.
public final class HTTPResponseStream: Sendable {
    /// Why a stream ended.
    public enum CloseReason: Sendable, Equatable {
        /// `finish()` was called and everything buffered was handed to the connection.
        case finished
        /// `cancel()` was called.
        case cancelled
        /// A write would have exceeded `maxBufferedBytes`: the reader was too slow.
        case overflow
        /// The client closed the connection, or writing to it failed.
        case clientGone
        /// The server is shutting down.
        case shutdown
        /// The response never reached the connection (the request was answered otherwise).
        case notSent
    }

    /// What `write` did.
    public enum WriteResult: Sendable, Equatable {
        /// Buffered; it goes out as soon as the client reads.
        case written
        /// The stream has ended (or is ending): nothing was written.
        case closed
        /// The buffer bound would have been exceeded: the stream is now ended (`.overflow`).
        case overflow
    }

    /// The most bytes kept for a client that has not read them yet.
    public let maxBufferedBytes: Int
    private let state: Locked<State>

    private struct State {
        var connection: OpaquePointer?
        /// Asks the event loop running the connection's daemon for a run (nil: none).
        var waker: LoopWaker?
        var buffer: [UInt8] = []
        /// Bytes of `buffer` already handed to libmicrohttpd.
        var sent = 0
        var finishing = false
        /// Set when the stream must end now; the reader then ends the response with an error.
        var failure: CloseReason?
        /// The reader suspended the connection and nobody resumed it yet.
        var suspended = false
        var closed = false
        var onClose: (@Sendable (CloseReason) -> Void)?
        var buffered: Int { buffer.count - sent }
    }

    /// A stream keeping at most `maxBufferedBytes` unread bytes; `onClose` runs once when it ends.
    public init(maxBufferedBytes: Int = 256 << 10, onClose: (@Sendable (CloseReason) -> Void)? = nil) {
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        var initial = State()
        initial.onClose = onClose
        self.state = Locked(initial)
    }

    /// Sets what runs when the stream ends (at once, if it already has).
    public func setOnClose(_ handler: @escaping @Sendable (CloseReason) -> Void) {
        let endedWith: CloseReason? = state.withLock { state in
            if state.closed { return state.failure ?? .finished }
            state.onClose = handler
            return nil
        }
        if let endedWith { handler(endedWith) }
    }

    /// Whether the stream has ended or is ending.
    public var isClosed: Bool { state.withLock { $0.closed || $0.finishing || $0.failure != nil } }

    /// Bytes written and not yet handed to the connection.
    public var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Appends `bytes` to the body. Never blocks.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> WriteResult {
        let (result, resume) = state.withLock { state -> (WriteResult, (connection: OpaquePointer, waker: LoopWaker?)?) in
            guard !state.closed, !state.finishing, state.failure == nil else { return (.closed, nil) }
            if state.buffered + bytes.count > maxBufferedBytes {
                state.failure = .overflow
                state.buffer = []
                state.sent = 0
                return (.overflow, Self.takeResume(&state))
            }
            if state.sent > 0, state.sent >= state.buffer.count / 2 {
                state.buffer.removeFirst(state.sent)
                state.sent = 0
            }
            state.buffer.append(contentsOf: bytes)
            return (.written, Self.takeResume(&state))
        }
        if let resume { Self.resume(resume) }
        if result == .overflow { closeIfDetached() }
        return result
    }

    /// Ends the body once everything written so far has been handed to the connection.
    public func finish() {
        let resume = state.withLock { state -> (connection: OpaquePointer, waker: LoopWaker?)? in
            guard !state.closed, state.failure == nil else { return nil }
            state.finishing = true
            return Self.takeResume(&state)
        }
        if let resume { Self.resume(resume) }
    }

    /// Ends the stream now, dropping what is buffered, and closes the connection.
    public func cancel() {
        fail(.cancelled)
    }

    /// Ends the stream now with `reason` (the server: client gone, shutdown; or never sent).
    func fail(_ reason: CloseReason) {
        let resume = state.withLock { state -> (connection: OpaquePointer, waker: LoopWaker?)? in
            guard !state.closed, state.failure == nil else { return nil }
            state.failure = reason
            return Self.takeResume(&state)
        }
        if let resume { Self.resume(resume) }
        closeIfDetached()
    }

    /// The connection to resume, when the reader had suspended it (cleared: resumed once).
    private static func takeResume(_ state: inout State) -> (connection: OpaquePointer, waker: LoopWaker?)? {
        guard state.suspended, let connection = state.connection else { return nil }
        state.suspended = false
        return (connection, state.waker)
    }

    /// A stream never given to a connection ends as soon as it fails (nobody will read it).
    private func closeIfDetached() {
        let handler = state.withLock { state -> (@Sendable (CloseReason) -> Void, CloseReason)? in
            guard state.connection == nil, !state.closed, let reason = state.failure else { return nil }
            state.closed = true
            defer { state.onClose = nil }
            return state.onClose.map { ($0, reason) }
        }
        if let (handler, reason) = handler { handler(reason) }
    }

    // MARK: Server side

    /// Called on the connection's thread just before the response is queued; `waker` asks
    /// the event loop running the connection's daemon for a run (nil: none, see `ConnectionSlot`).
    func attach(_ connection: OpaquePointer, waker: LoopWaker? = nil) {
        state.withLock { state in
            state.connection = connection
            state.waker = waker
        }
    }

    /// Resumes a connection the reader suspended (and wakes its event loop, if it has one).
    private static func resume(_ resume: (connection: OpaquePointer, waker: LoopWaker?)) {
        MHD_resume_connection(resume.connection)
        resume.waker?.wake()
    }

    /// libmicrohttpd's content reader: buffered bytes, the end, or suspension until the next write.
    func read(into destination: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            if state.failure != nil { return Self.endWithError }
            if state.buffered > 0 {
                let count = min(max, state.buffered)
                state.buffer.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress else { return }
                    UnsafeMutableRawPointer(destination).copyMemory(from: base + state.sent, byteCount: count)
                }
                state.sent += count
                if state.sent == state.buffer.count {
                    state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= 16 << 10)
                    state.sent = 0
                }
                return count
            }
            if state.finishing { return Self.endOfStream }
            guard let connection = state.connection else { return Self.endWithError }
            // Under the lock: a writer that sees `suspended` resumes only after this call.
            state.suspended = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    /// libmicrohttpd let the response go (sent, failed, or the connection closed): run `onClose`.
    func released() {
        let handler = state.withLock { state -> (@Sendable (CloseReason) -> Void, CloseReason)? in
            guard !state.closed else { return nil }
            state.closed = true
            state.suspended = false
            state.connection = nil
            state.buffer = []
            let reason: CloseReason = state.failure ?? (state.finishing && state.buffered == 0 ? .finished : .clientGone)
            if state.failure == nil { state.failure = reason }
            defer { state.onClose = nil }
            return state.onClose.map { ($0, reason) }
        }
        if let (handler, reason) = handler { handler(reason) }
    }

    static let endOfStream = -1
    static let endWithError = -2
}

// MARK: libmicrohttpd's content-reader callbacks (non-capturing; the stream is their `cls`).

/// Reads the stream retained in `cls` (see `ServerCore.respond`).
let streamReaderCallback: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return HTTPResponseStream.endWithError }
    let stream = Unmanaged<HTTPResponseStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: buffer, max: max)
}

/// Releases the stream retained when the response was queued (called once by libmicrohttpd or the shim).
let streamFreeCallback: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<HTTPResponseStream>.fromOpaque(cls).takeRetainedValue()
    stream.released()
}
