/// How an `HTTPServer` binds and what it tolerates. Every limit has a documented default.
public struct HTTPServerConfiguration: Sendable {
    /// Numeric address to bind; `"localhost"` means `127.0.0.1`. Default `127.0.0.1`.
    public var host: String
    /// Port to bind; `0` picks a free one (read it back from `HTTPServer.port`). Default `0`.
    public var port: Int
    /// Epoll threads in libmicrohttpd's pool. Default: the number of online CPU cores.
    /// Not used with `eventLoops`.
    public var threads: Int
    /// Event loops to serve on instead of threads of the server's own: one libmicrohttpd
    /// daemon per loop, the daemons sharing the port (`SO_REUSEPORT`: the kernel spreads
    /// connections over them), each run by its loop's thread. `payql serve` gives the
    /// PostgreSQL pool's I/O threads: a request is then read, executed up to its statements,
    /// resumed by their results and answered on one thread (docs/http.md, "Event loops").
    /// Empty (the default): libmicrohttpd's own pool of `threads` threads.
    public var eventLoops: [HTTPServerEventLoop]
    /// What the server accepts before it refuses.
    public var limits: Limits
    /// Where each request's log line goes; `nil` logs nothing. Default `nil`.
    public var logger: (any RequestLogger)?
    /// libmicrohttpd's turbo mode (fewer safety syscalls, a little faster). Default `false`.
    public var turbo: Bool
    /// The scheduling slice each server thread asks the kernel for (Linux 6.12+
    /// EEVDF custom slices; older kernels ignore it). Under a saturated CPU a
    /// shorter slice gets a thread with requests waiting back on a core sooner,
    /// which cuts the latency tail (docs/http.md, "Scheduling"). At least 100 µs
    /// (the kernel's minimum); `nil` keeps the kernel's default (0.7 ms × (1 + log2 cores)).
    /// Default 100 µs.
    public var threadTimeSlice: Duration?
    /// The task executor preference of each handler task (`HTTPHandler.handle`, for requests
    /// the fast path does not answer); `nil` runs them on Swift's global executor. A handler
    /// that mostly waits for one I/O executor (PayQL: the PostgreSQL pool's) then starts,
    /// resumes and finishes there, instead of hopping to a global-executor thread after each
    /// wait and back (docs/http.md, "Handler tasks"). Default `nil`.
    public var taskExecutor: (any TaskExecutor)?

    /// Limits per request and per connection.
    public struct Limits: Sendable {
        /// Largest request body, in bytes; larger gets 413 (before it is read when
        /// `Content-Length` says so). Default 1 MiB.
        public var maxBodyBytes: Int
        /// Largest request head (request line and header fields, counted as
        /// `name: value` CRLF per field), in bytes; a larger one gets 431 and the
        /// connection is closed. 1 KiB...1 MiB. Default 16 KiB.
        public var maxHeaderBytes: Int
        /// Open connections, counted per server thread (`maxConnections / threads` each).
        /// At the limit a new connection replaces, on its thread, the connection that has
        /// waited longest for a request head; when every connection has a request in
        /// progress, the new one is closed at once. Default 4096.
        public var maxConnections: Int
        /// Open connections per client IP; `0` is unlimited. Default 0 (a load
        /// balancer in front would otherwise count as one client).
        public var maxConnectionsPerIP: Int
        /// A connection idle (nothing received or sent) this long is closed; this is
        /// what ends a request that never finishes sending. Whole seconds, at least 1. Default 15 s.
        public var idleTimeout: Duration
        /// A request must be fully received and answered within this time, counted
        /// from its headers: a body still arriving is cut off (connection closed), a
        /// handler still running gets 503. Default 30 s.
        public var requestDeadline: Duration
        /// A connection must deliver a complete request head within this time, counted
        /// from its accept and, on a kept-alive connection, from the end of the previous
        /// request, whatever trickles in meanwhile; otherwise it is closed. So an idle
        /// kept-alive connection is closed after the shorter of this and `idleTimeout`.
        /// At least 100 ms. Default 10 s.
        public var requestHeadDeadline: Duration

        /// Limits with the documented defaults, each overridable.
        public init(
            maxBodyBytes: Int = 1 << 20, maxHeaderBytes: Int = 16 << 10, maxConnections: Int = 4096,
            maxConnectionsPerIP: Int = 0, idleTimeout: Duration = .seconds(15), requestDeadline: Duration = .seconds(30),
            requestHeadDeadline: Duration = .seconds(10)
        ) {
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxConnections = maxConnections
            self.maxConnectionsPerIP = maxConnectionsPerIP
            self.idleTimeout = idleTimeout
            self.requestDeadline = requestDeadline
            self.requestHeadDeadline = requestHeadDeadline
        }
    }

    /// A configuration with the documented defaults, each overridable.
    public init(
        host: String = "127.0.0.1", port: Int = 0, threads: Int? = nil, limits: Limits = .init(),
        logger: (any RequestLogger)? = nil, turbo: Bool = false, threadTimeSlice: Duration? = .microseconds(100),
        taskExecutor: (any TaskExecutor)? = nil, eventLoops: [HTTPServerEventLoop] = []
    ) {
        self.host = host
        self.port = port
        self.threads = threads ?? SystemInfo.onlineCores
        self.limits = limits
        self.logger = logger
        self.turbo = turbo
        self.threadTimeSlice = threadTimeSlice
        self.taskExecutor = taskExecutor
        self.eventLoops = eventLoops
    }
}

/// A thread running an event loop that the server's work can run on
/// (`HTTPServerConfiguration.eventLoops`).
public struct HTTPServerEventLoop: Sendable {
    /// What `attach` returns: how to stop the service, and how to ask for a run of it.
    public struct Attachment: Sendable {
        /// Stops serving: once it returns, the service is not running and is never called
        /// again. Never called from inside the service.
        public var detach: @Sendable () -> Void
        /// Asks the loop to call the service at its next turn although its descriptor may not
        /// be readable (a connection was resumed). From any thread; on the loop's own thread
        /// it must cost no system call (the loop checks a flag after running its tasks), from
        /// another it wakes the loop.
        public var requestRun: @Sendable () -> Void

        /// An attachment with these two functions.
        public init(detach: @escaping @Sendable () -> Void, requestRun: @escaping @Sendable () -> Void) {
            self.detach = detach
            self.requestRun = requestRun
        }
    }

    /// Starts serving: the loop calls `service` on its thread whenever `descriptor` is
    /// readable, when asked to (`Attachment.requestRun`), and again once the milliseconds
    /// `service` last returned have passed (-1: only when readable or asked). The loop may
    /// run `service` before `attach` returns. `service` never blocks.
    public var attach: @Sendable (_ descriptor: Int32, _ service: @escaping @Sendable () -> Int32) -> Attachment

    /// A loop that serves through `attach`.
    public init(attach: @escaping @Sendable (_ descriptor: Int32, _ service: @escaping @Sendable () -> Int32) -> Attachment) {
        self.attach = attach
    }
}
