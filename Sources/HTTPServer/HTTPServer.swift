internal import CMicroHTTPD
internal import CPayQLShims
import Support
import Synchronization

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, in words.
    public let description: String
}

/// An HTTP/1.1 server on libmicrohttpd: an epoll thread pool sized to the
/// cores (or one daemon on each of the event loops given, `eventLoops`),
/// keep-alive, limits, and async handlers through suspend/resume.
///
/// A request is read completely (headers and body, within the limits) on a
/// server thread; then either the handler's fast path answers it right there,
/// or the connection is suspended, `handle(_:)` runs as a Swift task, and the
/// connection resumes with its response. Call `shutdown(gracePeriod:)` before
/// letting go of the server; without it, `deinit` stops at once (suspended
/// requests get 503).
public final class HTTPServer: Sendable {
    /// One daemon (with its own threads), or one per event loop.
    private let daemons: [DaemonHandle]
    /// Stop each event loop's service (empty without event loops).
    private let detachers: [@Sendable () -> Void]
    private let core: ServerCore
    private let state = Locked<LifeState>(.running)
    private let sweeper: Task<Void, Never>
    /// The port actually bound.
    public let port: Int

    private enum LifeState { case running, stopping, stopped }

    /// Binds and starts serving; throws when the address cannot be bound or the configuration is invalid.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) throws {
        let limits = configuration.limits
        guard (0...65535).contains(configuration.port) else { throw HTTPServerError(description: "port \(configuration.port) is out of range") }
        guard configuration.threads >= 1 else { throw HTTPServerError(description: "threads must be at least 1") }
        var sliceNanoseconds: UInt64 = 0
        if let slice = configuration.threadTimeSlice {
            guard slice >= .microseconds(100), slice <= .milliseconds(100) else {
                throw HTTPServerError(description: "threadTimeSlice must be between 100 µs and 100 ms")
            }
            sliceNanoseconds = UInt64(slice.components.seconds) * 1_000_000_000 + UInt64(slice.components.attoseconds / 1_000_000_000)
        }
        guard limits.maxBodyBytes >= 0, (1024...(1 << 20)).contains(limits.maxHeaderBytes), limits.maxConnections >= 1,
              limits.maxConnectionsPerIP >= 0, limits.requestHeadDeadline >= .milliseconds(100) else {
            throw HTTPServerError(description: "limits out of range (maxHeaderBytes 1 KiB...1 MiB, maxConnections ≥ 1, requestHeadDeadline ≥ 100 ms)")
        }
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        // libmicrohttpd splits its connection limit among the pool threads; each thread gets one
        // slot more than its share of `maxConnections`, so that a newcomer can always be accepted
        // and replace the connection that has waited longest for a request head (`SlotTable`).
        // With event loops, each loop's daemon is such a thread (of one).
        let loops = configuration.eventLoops
        let workers = loops.isEmpty ? configuration.threads : loops.count
        let perThread = max(1, limits.maxConnections / workers)
        let daemonConnections = loops.isEmpty ? perThread * workers + workers : perThread + 1
        let core = ServerCore(
            handler: handler, limits: limits, logger: configuration.logger, threadSliceNanoseconds: sliceNanoseconds,
            perThreadConnections: perThread, taskExecutor: configuration.taskExecutor)
        let idleSeconds = max(1, limits.idleTimeout.components.seconds + (limits.idleTimeout.components.attoseconds > 0 ? 1 : 0))
        let memory = Self.connectionMemory(maxHeaderBytes: limits.maxHeaderBytes)
        let cls = Unmanaged.passUnretained(core).toOpaque()
        // The loops' daemons share their port (SO_REUSEPORT), which another process of the same
        // user could then share too: refuse a port something already listens on, as a server with
        // a port of its own does.
        if !loops.isEmpty, configuration.port != 0, cpayql_port_in_use(host, UInt16(configuration.port)) != 0 {
            throw HTTPServerError(description: "could not start libmicrohttpd on \(host):\(configuration.port) (address in use)")
        }
        var daemons: [DaemonHandle] = []
        var port = configuration.port
        for index in 0..<max(1, loops.count) {
            let started: OpaquePointer? = host.withCString { hostPointer in
                var config = cpayql_mhd_config(
                    host: hostPointer, port: UInt16(port), thread_pool_size: UInt32(configuration.threads),
                    connection_limit: UInt32(clamping: daemonConnections),
                    per_ip_connection_limit: UInt32(clamping: limits.maxConnectionsPerIP),
                    connection_timeout: UInt32(clamping: idleSeconds), connection_memory_limit: memory,
                    listen_backlog: 1024, turbo: configuration.turbo ? 1 : 0,
                    external: loops.isEmpty ? 0 : 1, reuse_port: loops.isEmpty ? 0 : 1
                )
                return cpayql_mhd_start(&config, accessCallback, cls, completedCallback, cls, uriCallback, cls, connectionCallback, cls,
                                        acceptCallback, cls)
            }
            guard let started else {
                for daemon in daemons { MHD_stop_daemon(daemon.pointer) }
                throw HTTPServerError(description: "could not start libmicrohttpd on \(host):\(port) (address in use or invalid)")
            }
            daemons.append(DaemonHandle(pointer: started))
            // The loops' daemons share the port the first one bound (port 0: an ephemeral one).
            if index == 0 { port = Int(cpayql_mhd_bound_port(started)) }
        }
        // Each loop polls its daemon's epoll descriptor and runs the daemon when it is readable,
        // when the daemon's timeout says, and when a connection of the daemon was resumed (the
        // waker asks the loop; on the loop's own thread, where handlers finish, for free).
        var epollDescriptors: [Int32] = []
        for daemon in daemons.prefix(loops.count) {
            let descriptor = cpayql_mhd_epoll_fd(daemon.pointer)
            guard descriptor >= 0 else {
                for daemon in daemons { MHD_stop_daemon(daemon.pointer) }
                throw HTTPServerError(description: "libmicrohttpd gave no epoll descriptor for an event loop")
            }
            epollDescriptors.append(descriptor)
            core.wakers.withLock { $0[UInt(bitPattern: daemon.pointer)] = LoopWaker() }
        }
        var detachers: [@Sendable () -> Void] = []
        for ((loop, daemon), descriptor) in zip(zip(loops, daemons), epollDescriptors) {
            let attachment = loop.attach(descriptor) { cpayql_mhd_serve(daemon.pointer) }
            core.wakers.withLock { $0[UInt(bitPattern: daemon.pointer)] }?.connect(attachment.requestRun)
            detachers.append(attachment.detach)
        }
        self.daemons = daemons
        self.detachers = detachers
        self.core = core
        self.port = port
        let headDeadlineMilliseconds = Int64(limits.requestHeadDeadline.components.seconds) * 1000
            + Int64(limits.requestHeadDeadline.components.attoseconds / 1_000_000_000_000_000)
        self.sweeper = Task { [core] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                core.sweepDeadlines()
                core.closeHungUpConnections()
                core.closeConnectionsWaitingForHead(since: cpayql_monotonic_coarse_ms() - headDeadlineMilliseconds)
            }
        }
    }

    /// How long shutdown waits with no request being answered before it stops.
    static let quietPeriod: Duration = .milliseconds(250)

    /// The size of libmicrohttpd's per-connection memory pool for a header limit.
    ///
    /// The pool holds the whole request head (the read buffer, grown in place), a
    /// copy of the `Cookie` field (libmicrohttpd parses cookies into a copy), 56–64
    /// bytes of bookkeeping per header field, query parameter and cookie, and the
    /// response's header block. Twice the limit covers the head and a `Cookie` as
    /// large as the whole head; 16 KiB more covers ~250 fields, parameters and
    /// cookies and the response. The server's own check (`RequestHead.size`) then
    /// makes the limit exact. libmicrohttpd zeroes the pool for every request, so it
    /// is no larger than that.
    static func connectionMemory(maxHeaderBytes: Int) -> Int {
        2 * maxHeaderBytes + (16 << 10)
    }

    /// Streamed responses (`HTTPResponse.stream`) being sent.
    public var openStreams: Int { core.openStreams }

    /// Whether ``shutdown(gracePeriod:)`` has begun: new connections are closed unserved and
    /// every response says `Connection: close`.
    public var isDraining: Bool { core.draining.load(ordering: .relaxed) }

    /// Requests currently being received, handled or sent.
    public var activeRequests: Int { core.active.load(ordering: .relaxed) }

    /// How requests were answered since start: `inline` without suspending the
    /// connection (the fast path, or a handler that never suspended), `suspended`
    /// through suspend → task → resume; `tasks` counts the requests that needed a
    /// task at all (the fast path `respondImmediately(to:)` answered the others).
    public var dispatchCounts: (inline: Int, suspended: Int, tasks: Int) {
        (core.answeredInline.load(ordering: .relaxed), core.suspensions.load(ordering: .relaxed),
         core.tasksStarted.load(ordering: .relaxed))
    }

    /// Stops accepting connections, lets in-flight requests finish for up to
    /// `gracePeriod`, answers the rest with 503, then closes everything.
    /// Calling it again (or concurrently) waits for nothing and returns.
    public func shutdown(gracePeriod: Duration) async {
        let proceed = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .stopping
            return true
        }
        guard proceed else { return }
        // From now on new connections are closed as they are accepted (`acceptCallback`).
        // Not MHD_quiesce_daemon: on an epoll daemon with its own threads it races the pool
        // threads' removal of the listening socket from their epoll sets and can abort the
        // process ("Failed to remove listen FD from epoll set", an open libmicrohttpd defect
        // seen here once at shutdown under load; docs/http.md, "Shutdown").
        core.draining.store(true, ordering: .relaxed)
        let start = ContinuousClock.now
        // Streamed responses (subscriptions) never end by themselves: end them now, after
        // what each holds is sent (clients of an event stream reconnect, to another instance).
        core.endStreams(finish: true)
        // Wait for the requests being answered, not for those still arriving: a client
        // that stops halfway through its request must not hold shutdown for the grace
        // period (its request was never handled; it is cut when the daemon stops).
        // Stop once nothing has been answered for `quietPeriod`: a kept-alive client
        // answered just before draining began (without `Connection: close`) sends its
        // next request at once, which is then answered, with `Connection: close`, rather
        // than cut halfway by the stop.
        let deadline = start + gracePeriod
        var quietSince: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            let now = ContinuousClock.now
            if core.answering.load(ordering: .relaxed) > 0 {
                quietSince = nil
            } else if let since = quietSince {
                if now - since >= Self.quietPeriod { break }
            } else {
                quietSince = now
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        core.abandonPending()
        // Give the 503s a moment to be written before the connections close.
        let flush = ContinuousClock.now + .milliseconds(500)
        while !core.pending.withLock({ $0.isEmpty }) || core.answering.load(ordering: .relaxed) > 0, ContinuousClock.now < flush {
            try? await Task.sleep(for: .milliseconds(5))
        }
        stopNow()
    }

    deinit {
        stopNow()
    }

    private func stopNow() {
        let proceed = state.withLock { state -> Bool in
            if case .stopped = state { return false }
            state = .stopped
            return true
        }
        guard proceed else { return }
        sweeper.cancel()
        core.abandonPending()
        // libmicrohttpd must not be stopped with a suspended connection: a stream waiting
        // for bytes is resumed (and ends) first.
        core.endStreams(finish: false)
        // An event loop must no longer run a daemon being stopped (this waits for a run in progress).
        for detach in detachers { detach() }
        for daemon in daemons { MHD_stop_daemon(daemon.pointer) }
    }
}

/// The daemon pointer. `@unchecked Sendable` because it is immutable after
/// start and libmicrohttpd's daemon-level calls used here (stop,
/// info) are documented as callable from any thread; `HTTPServer` ensures
/// stop happens once, after its event loop (if any) has stopped running it:
/// `MHD_run` is only ever called by that one loop's thread.
private struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

// MARK: libmicrohttpd callbacks: non-capturing, they find the core through `cls`.

private let uriCallback: cpayql_mhd_uri_callback = { cls, uri, connection in
    guard let cls, let connection else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let text = uri.map { String(cString: $0) } ?? "/"
    // Retained here, released in `completedCallback`.
    return Unmanaged.passRetained(core.begin(connection: connection, uri: text)).toOpaque()
}

private let accessCallback: MHD_AccessHandlerCallback = { cls, _, _, method, version, uploadData, uploadSize, requestState in
    guard let cls, let requestState, let pointer = requestState.pointee else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
    return core.access(context, method: method, version: version, uploadData: uploadData, uploadSize: uploadSize)
}

/// Connection opened / closed: the slot is retained into `socket_context` on open
/// and released on close (libmicrohttpd calls close once, before closing the socket).
/// Whether an accepted connection is served: not once the server drains (it is closed at once).
private let acceptCallback: MHD_AcceptPolicyCallback = { cls, _, _ in
    guard let cls else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.draining.load(ordering: .relaxed) ? .NO : .YES
}

private let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch event {
    case .CONNECTION_NOTIFY_STARTED:
        socketContext.pointee = core.connectionOpened(connection)
    case .CONNECTION_NOTIFY_CLOSED:
        if let slot = socketContext.pointee {
            socketContext.pointee = nil
            core.connectionClosed(slot)
        }
    default:
        break
    }
}

private let completedCallback: MHD_RequestCompletedCallback = { cls, _, requestState, termination in
    guard let cls, let requestState, let pointer = requestState.pointee else { return }
    requestState.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    core.complete(context, termination: termination)
}
