internal import CMicroHTTPD
import JSON
internal import CPayQLShims
import Support
import Synchronization

/// Everything libmicrohttpd's callbacks need, reached through their `cls` pointer.
/// It lives as long as the `HTTPServer` (which stops the daemon before releasing it).
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let limits: HTTPServerConfiguration.Limits
    let logger: (any RequestLogger)?
    /// Requests between their URI callback and their completion.
    let active = Atomic<Int>(0)
    /// Requests being answered: handed to the handler or given a response, not yet completed.
    /// Shutdown waits for these (and not for requests still arriving).
    let answering = Atomic<Int>(0)
    /// Open connections per pool thread; who waits for a request head (see `SlotTable`).
    let slots: Locked<SlotTable>
    /// The hang-up watch (`cpayql_hangup_watch_create`): every open connection is in it.
    private let hangUpWatch: Int32
    private let connectionCounter = Atomic<UInt64>(0)
    /// Set once shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// Streamed responses being sent, by connection slot id (hang-ups and shutdown end them).
    let streams = Locked<[UInt64: HTTPResponseStream]>([:])
    /// Suspended requests, for the deadline sweeper and for shutdown.
    let pending = Locked<[ObjectIdentifier: RequestContext]>([:])
    private let requestCounter = Atomic<UInt64>(0)
    /// Requests answered without suspending the connection (fast path or a handler that never suspended).
    let answeredInline = Atomic<Int>(0)
    /// Requests whose connection was suspended while the handler worked.
    let suspensions = Atomic<Int>(0)
    /// Requests handed to `handle(_:)` in a task (the fast path did not answer them).
    let tasksStarted = Atomic<Int>(0)
    /// Random per-process prefix of generated request ids (8 hex digits and `-`), as UTF-8.
    private let idPrefixBytes: [UInt8]
    /// The scheduling slice server threads ask for; 0 leaves the kernel's default.
    private let threadSliceNanoseconds: UInt64
    /// Each handler task's executor preference (nil: the global executor).
    private let taskExecutor: (any TaskExecutor)?
    /// Event-loop daemons (by address) and what asks each one's loop for a run after a
    /// connection is resumed; empty for a daemon with threads of its own. Set before the
    /// loops start running the daemons.
    let wakers = Locked<[UInt: LoopWaker]>([:])

    init(
        handler: any HTTPHandler, limits: HTTPServerConfiguration.Limits, logger: (any RequestLogger)?,
        threadSliceNanoseconds: UInt64, perThreadConnections: Int, taskExecutor: (any TaskExecutor)? = nil
    ) {
        self.handler = handler
        self.limits = limits
        self.logger = logger
        self.threadSliceNanoseconds = threadSliceNanoseconds
        self.taskExecutor = taskExecutor
        self.slots = Locked(SlotTable(perThreadLimit: perThreadConnections))
        self.hangUpWatch = cpayql_hangup_watch_create()
        self.idPrefixBytes = Array((String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16) + "-").utf8)
    }

    deinit {
        if hangUpWatch >= 0 { _ = closeDescriptor(hangUpWatch) }
    }

    // MARK: Callbacks

    /// A connection was accepted (on the pool thread that will serve it): returns its
    /// slot, retained, for libmicrohttpd's `socket_context`. When its thread's slots are
    /// full, the connection there that has waited longest for a request head is closed.
    func connectionOpened(_ connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        var descriptor: Int32 = -1
        var worker: UnsafeRawPointer?
        guard cpayql_mhd_connection_socket(connection, &descriptor, &worker) == 0 else { return nil }
        let id = connectionCounter.add(1, ordering: .relaxed).newValue
        let daemon = UInt(bitPattern: worker)
        let waker = wakers.withLock { $0[daemon] }
        let slot = ConnectionSlot(id: id, descriptor: descriptor, worker: daemon, now: cpayql_monotonic_coarse_ms(), waker: waker)
        // Without the watch a half-closed connection is still cut at the head deadline.
        if hangUpWatch >= 0 { _ = cpayql_hangup_watch_add(hangUpWatch, descriptor, id) }
        slots.withLock { table in
            // Under the lock: the victim's "closed" notification (which precedes
            // libmicrohttpd's close of its descriptor) waits for it, so the descriptor
            // shut down here is still that connection's.
            if let victim = table.open(slot) { _ = shutDownSocket(victim.descriptor) }
        }
        return Unmanaged.passRetained(slot).toOpaque()
    }

    /// A connection was closed: forget its slot and release it.
    func connectionClosed(_ context: UnsafeMutableRawPointer) {
        let slot = Unmanaged<ConnectionSlot>.fromOpaque(context).takeRetainedValue()
        // Before libmicrohttpd closes the descriptor (this notification precedes it).
        if hangUpWatch >= 0 { _ = cpayql_hangup_watch_remove(hangUpWatch, slot.descriptor) }
        slots.withLock { $0.close(slot) }
    }

    /// Closes the connections that have waited for a request head since before
    /// `cutoff` milliseconds (coarse monotonic clock); every waiting one for `.max`.
    /// Returns how many.
    @discardableResult
    func closeConnectionsWaitingForHead(since cutoff: Int64) -> Int {
        slots.withLock { table in
            let waiting = table.waitingForHead(since: cutoff)
            // Under the lock, for the reason given in `connectionOpened`. libmicrohttpd
            // then reads end-of-stream on its thread and closes the connection itself.
            for slot in waiting { _ = shutDownSocket(slot.descriptor) }
            return waiting.count
        }
    }

    /// Closes the connections whose client has closed its side and that wait for a
    /// request head (libmicrohttpd would otherwise read that end-of-stream only at a
    /// timeout when it came with the last bytes read). Called by the sweeper.
    func closeHungUpConnections() {
        guard hangUpWatch >= 0 else { return }
        var ids: [UInt64] = []
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { buffer in
            guard let base = buffer.baseAddress else { return }
            while true {
                let count = Int(cpayql_hangup_watch_poll(hangUpWatch, base, Int32(buffer.count)))
                guard count > 0 else { return }
                ids.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
                if count < buffer.count { return }
            }
        }
        slots.withLock { table in
            // Under the lock, for the reason given in `connectionOpened`.
            for slot in table.hungUp(ids) { _ = shutDownSocket(slot.descriptor) }
        }
        // A streamed response's connection is suspended while it waits for bytes, so
        // libmicrohttpd would notice the client's departure only at the next write: end it now.
        guard !ids.isEmpty else { return }
        let gone = streams.withLock { table in ids.compactMap { table[$0] } }
        for stream in gone { stream.fail(.clientGone) }
    }

    /// Ends every streamed response: `finish` lets each send what it holds (shutdown's
    /// start), otherwise they are cut (the daemon must not stop with a suspended connection).
    func endStreams(finish: Bool) {
        let all = streams.withLock { Array($0.values) }
        for stream in all {
            if finish { stream.finish() } else { stream.fail(.shutdown) }
        }
    }

    /// Streamed responses being sent.
    var openStreams: Int { streams.withLock { $0.count } }

    /// The request line arrived: make the request's state.
    func begin(connection: OpaquePointer, uri: String) -> RequestContext {
        active.add(1, ordering: .relaxed)
        // libmicrohttpd starts its threads without a hook, so each asks on its first
        // request (a thread-local flag makes every later call a no-op). A refusal
        // leaves the default slice: nothing to report per request.
        if threadSliceNanoseconds > 0 { _ = cpayql_request_thread_slice(threadSliceNanoseconds) }
        let context = RequestContext(connection: connection, rawURI: uri)
        context.slot = cpayql_mhd_socket_context(connection).map { Unmanaged<ConnectionSlot>.fromOpaque($0).takeUnretainedValue() }
        return context
    }

    /// libmicrohttpd's access handler: headers, then body chunks, then completion, then resumption.
    func access(
        _ context: RequestContext, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?
    ) -> MHD_Result {
        switch context.phase {
        case .headers:
            // The head is complete: the head deadline no longer applies to this connection.
            context.slot?.headSince.store(0, ordering: .relaxed)
            context.method = method.map { String(cString: $0) } ?? "GET"
            return readHeaders(context, version: version.map { String(cString: $0) } ?? "")
        case .body:
            if let uploadSize, uploadSize.pointee > 0 {
                let size = uploadSize.pointee
                uploadSize.pointee = 0
                if ContinuousClock.now - context.started > limits.requestDeadline {
                    context.endLabel = "timeout"
                    return .NO
                }
                if !context.bodyTooLarge, let uploadData {
                    if context.body.count + size > limits.maxBodyBytes {
                        // Keep reading (and discarding) so the 413 can be sent; the deadline bounds it.
                        context.bodyTooLarge = true
                        context.body = []
                    } else {
                        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                            context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
                        }
                    }
                }
                return .YES
            }
            if context.bodyTooLarge { return respond(context, tooLarge()) }
            return dispatch(context)
        case .waiting:
            context.phase = .done
            let response = context.takeResponse()
                ?? .json(["errors": [["message": "no response was produced"]]], status: 500)
            return respond(context, response)
        case .done:
            return .NO
        }
    }

    /// The request ended (answered, timed out, aborted or shut down): log it and let it go.
    func complete(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        active.subtract(1, ordering: .relaxed)
        if context.answered { answering.subtract(1, ordering: .relaxed) }
        // A kept-alive connection now waits for its next request head (from now on).
        context.slot?.headSince.store(cpayql_monotonic_coarse_ms(), ordering: .relaxed)
        if context.handedToTask {
            // A request still suspended here can only be one the daemon is tearing down.
            context.settleIfSuspended(with: .dropConnection)?.cancel()
            _ = pending.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
            // A streamed response stored but never queued ends here (nobody will read it).
            context.takeResponse()?.stream?.fail(.notSent)
        }
        if context.streaming, let slot = context.slot {
            _ = streams.withLock { $0.removeValue(forKey: slot.id) }
        }
        guard let logger else { return }
        let outcome: String
        switch termination {
        case .REQUEST_TERMINATED_COMPLETED_OK: outcome = context.endLabel ?? "ok"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: outcome = "timeout"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: outcome = "shutdown"
        case .REQUEST_TERMINATED_CLIENT_ABORT, .REQUEST_TERMINATED_READ_ERROR: outcome = context.endLabel ?? "client_closed"
        default: outcome = context.endLabel ?? "error"
        }
        let elapsed = ContinuousClock.now - context.started
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        logger.log(RequestLogRecord(
            requestID: context.requestID, method: context.method, path: context.path, status: context.status,
            durationMicroseconds: micros, outcome: outcome, remoteAddress: context.remoteAddress, fields: context.logFields
        ))
    }

    // MARK: Steps

    private func readHeaders(_ context: RequestContext, version: String) -> MHD_Result {
        context.phase = .body
        let unmanaged = Unmanaged.passUnretained(context).toOpaque()
        // Most requests carry a handful of fields: one allocation for them all.
        context.headers.reserveCapacity(max(0, Int(MHD_get_connection_values_n(context.connection, .HEADER_KIND, nil, nil))))
        _ = MHD_get_connection_values_n(context.connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
            guard let cls, let key else { return .YES }
            let context = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
            let name = key.withMemoryRebound(to: UInt8.self, capacity: keySize) {
                String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self)
            }
            let text = value.map { value in
                value.withMemoryRebound(to: UInt8.self, capacity: valueSize) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self)
                }
            } ?? ""
            context.headers.add(name: name, value: text)
            return .YES
        }, unmanaged)
        context.remoteAddress = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress, cpayql_mhd_client_address(context.connection, base, buffer.count) == 0 else {
                return ""
            }
            return String(cString: base)
        }
        context.requestID = requestID(offered: context.headers["x-request-id"])
        let uri = context.rawURI.utf8
        if !uri.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "%") }) {
            context.path = context.rawURI  // nothing to cut or decode (the usual request)
        } else {
            let pathEnd = uri.firstIndex(of: UInt8(ascii: "?")) ?? uri.endIndex
            context.path = URLEncodedForm.percentDecode(uri[..<pathEnd], plusAsSpace: false)
        }
        let headBytes = RequestHead.size(method: context.method, target: context.rawURI, version: version, headers: context.headers)
        if headBytes > limits.maxHeaderBytes {
            // Answered before the body is read: libmicrohttpd then closes the connection.
            return respond(context, RequestHead.refusal(
                status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
                message: "request head of \(headBytes) bytes is larger than \(limits.maxHeaderBytes) bytes"))
        }
        if let refusal = RequestHead.framingRefusal(headers: context.headers, version: version) {
            // RFC 9112 §6.3: a message whose body length is ambiguous is refused and the
            // connection closed (the body, which may hide another request, is never read).
            return respond(context, refusal)
        }
        if let length = context.headers["content-length"], let bytes = Int(length), bytes > limits.maxBodyBytes {
            // Answer before reading (and before any 100-continue): the body never arrives.
            context.phase = .done
            return respond(context, tooLarge())
        }
        return .YES
    }

    private func dispatch(_ context: RequestContext) -> MHD_Result {
        markAnswering(context)
        let uri = context.rawURI.utf8
        var query = ""
        if let mark = uri.firstIndex(of: UInt8(ascii: "?")) {
            query = String(context.rawURI[context.rawURI.index(after: mark)...])
        }
        var request = HTTPRequest(
            method: context.method, path: context.path, query: query, headers: context.headers,
            body: context.body, remoteAddress: context.remoteAddress, id: context.requestID, received: context.started
        )
        context.body = []
        if let response = handler.respondImmediately(to: &request) {
            context.phase = .done
            answeredInline.add(1, ordering: .relaxed)
            return respond(context, response)
        }
        // Start the handler on this thread: a handler that never suspends (its
        // awaits all complete at once) finishes right here and is answered without
        // suspend/resume; otherwise the connection is suspended until it finishes.
        context.phase = .waiting
        let outcome = context.startTask()
        tasksStarted.add(1, ordering: .relaxed)
        let task = Task.immediate(executorPreference: taskExecutor) { [self, request] in
            let response = await handler.handle(request)
            finish(context, with: response)
        }
        let ready: HTTPResponse? = outcome.withLock { state in
            if case .ready(let response) = state {
                state = .idle
                return response
            }
            // Suspend under the lock so that `finish` cannot resume before the suspension.
            state = .suspended(task)
            pending.withLock { $0[ObjectIdentifier(context)] = context }
            MHD_suspend_connection(context.connection)
            return nil
        }
        if let ready {
            context.phase = .done
            answeredInline.add(1, ordering: .relaxed)
            return respond(context, ready)
        }
        suspensions.add(1, ordering: .relaxed)
        return .YES
    }

    /// Hands the handler's `response` to its request; resumes the connection if it was suspended.
    func finish(_ context: RequestContext, with response: HTTPResponse) {
        switch context.settle(with: response) {
        case .storedResume: resume(context)
        case .stored: break
        case .refused: response.stream?.fail(.notSent)
        }
    }

    /// Answers a suspended request (deadline, shutdown) and cancels its handler's task.
    func abandon(_ context: RequestContext, with response: HTTPResponse) {
        guard let task = context.settleIfSuspended(with: response) else { return }
        task.cancel()
        resume(context)
    }

    private func resume(_ context: RequestContext) {
        _ = pending.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
        MHD_resume_connection(context.connection)
        // An event loop's daemon learns of it only through its loop (`LoopWaker`): on the loop's
        // thread (a handler task finishing there) the loop runs the daemon right after its tasks.
        context.slot?.waker?.wake()
    }

    /// Answers every suspended request past its deadline with 503.
    func sweepDeadlines() {
        let now = ContinuousClock.now
        let late = pending.withLock { $0.values.filter { now - $0.started > limits.requestDeadline } }
        for context in late {
            abandon(context, with: Self.unavailable("request deadline exceeded", code: "REQUEST_TIMEOUT"))
        }
    }

    /// Answers every suspended request with 503 (shutdown past its grace period).
    func abandonPending() {
        let all = pending.withLock { Array($0.values) }
        for context in all {
            abandon(context, with: Self.unavailable("server shutting down", code: "SHUTTING_DOWN"))
        }
    }

    static func unavailable(_ message: String, code: String) -> HTTPResponse {
        .json(["errors": [["message": .string(message), "extensions": ["code": .string(code)]]]], status: 503)
    }

    private func tooLarge() -> HTTPResponse {
        .json(["errors": [[
            "message": .string("request body larger than \(limits.maxBodyBytes) bytes"),
            "extensions": ["code": "PAYLOAD_TOO_LARGE"],
        ]]], status: 413)
    }

    /// Counts the request among those shutdown waits for (once).
    private func markAnswering(_ context: RequestContext) {
        guard !context.answered else { return }
        context.answered = true
        answering.add(1, ordering: .relaxed)
    }

    private func respond(_ context: RequestContext, _ response: HTTPResponse) -> MHD_Result {
        markAnswering(context)
        context.phase = .done
        context.logFields = response.logFields
        if response.dropsConnection {
            context.endLabel = "dropped"
            return .NO
        }
        context.status = response.status
        var packed: [UInt8] = []
        packed.reserveCapacity(96 + response.headers.count * 48)
        var count = 0
        for field in response.headers where !ASCII.caseInsensitiveEquals(field.name, "content-length") {
            if Self.appendHeader(field.name, field.value, to: &packed) { count += 1 }
        }
        if Self.appendHeader("x-request-id", context.requestID, to: &packed) { count += 1 }
        if draining.load(ordering: .relaxed), !response.headers.contains("connection"),
           Self.appendHeader("connection", "close", to: &packed) { count += 1 }
        let status = UInt32(clamping: (100...599).contains(response.status) ? response.status : 500)
        if let stream = response.stream {
            return respond(context, status: status, headers: packed, count: count, stream: stream)
        }
        return response.body.withUnsafeBytes { body in
            packed.withUnsafeBytes { headers in
                cpayql_mhd_respond(
                    context.connection, status, body.baseAddress, body.count,
                    headers.baseAddress?.assumingMemoryBound(to: CChar.self), count)
            }
        }
    }

    /// Queues a streamed response; the stream is retained by libmicrohttpd's response until its free callback.
    private func respond(
        _ context: RequestContext, status: UInt32, headers packed: [UInt8], count: Int, stream: HTTPResponseStream
    ) -> MHD_Result {
        if draining.load(ordering: .relaxed) { stream.finish() }
        stream.attach(context.connection, waker: context.slot?.waker)
        context.streaming = true
        if let slot = context.slot { streams.withLock { $0[slot.id] = stream } }
        let retained = Unmanaged.passRetained(stream).toOpaque()
        return packed.withUnsafeBytes { headers in
            cpayql_mhd_respond_stream(
                context.connection, status, headers.baseAddress?.assumingMemoryBound(to: CChar.self), count, 16 << 10,
                streamReaderCallback, retained, streamFreeCallback)
        }
    }

    /// Appends `name\0value\0`; skips (returns false) a field that would smuggle a line break or NUL.
    private static func appendHeader(_ name: String, _ value: String, to packed: inout [UInt8]) -> Bool {
        let start = packed.count
        packed.append(contentsOf: name.utf8)
        packed.append(0)
        packed.append(contentsOf: value.utf8)
        packed.append(0)
        // The two NULs just written are the only ones allowed.
        var nuls = 0
        let safe = packed.withUnsafeBufferPointer { buffer in
            for index in start..<buffer.count {
                switch buffer[index] {
                case 0: nuls += 1
                case 0x0A, 0x0D: return false
                default: continue
                }
            }
            return nuls == 2
        }
        if !safe { packed.removeSubrange(start...) }
        return safe
    }

    /// The client's id when it is 1–64 characters of `[A-Za-z0-9._-]`, else a fresh one.
    private func requestID(offered: String?) -> String {
        if let offered, (1...64).contains(offered.utf8.count), offered.utf8.allSatisfy(Self.isIDByte) {
            return offered
        }
        let number = requestCounter.add(1, ordering: .relaxed).newValue
        // prefix + lowercase hex, written into one buffer (this runs for every request).
        let digits = max(1, (UInt64.bitWidth - number.leadingZeroBitCount + 3) / 4)
        return String(unsafeUninitializedCapacity: idPrefixBytes.count + digits) { buffer in
            var index = 0
            for byte in idPrefixBytes {
                buffer[index] = byte
                index += 1
            }
            var rest = number
            for position in stride(from: index + digits - 1, through: index, by: -1) {
                buffer[position] = Self.hexDigits[Int(rest & 0xF)]
                rest >>= 4
            }
            return index + digits
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
