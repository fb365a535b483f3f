#if canImport(Glibc)
import Glibc
#endif
import Gateway
import GraphQL
import GraphQLHTTP
import Metrics
import HTTPClient
import HTTPServer
import JSON
import Postgres
import Sandbox

/// `payql serve`: GraphQL over HTTP with the operations endpoints (docs/http.md).
enum ServeCommand {
    static let usage = """
    usage: payql serve [--host 127.0.0.1] [--port 8080] [--threads N] [--thread-slice-us 100]
                       [--max-body-bytes 1048576] [--max-header-bytes 16384]
                       [--max-connections 4096] [--max-connections-per-ip 0]
                       [--idle-timeout 15] [--request-timeout 30] [--request-head-timeout 10]
                       [--shutdown-grace 10] [--max-subscriptions-per-key 100] [--sse-heartbeat-ms 10000]
                       [--introspection true|false] [--persisted-queries disabled|automatic|allow-list]
                       [--persisted-documents FILE.graphql ...]
                       [--persisted-query-entries 10000] [--persisted-query-bytes 33554432]
                       [--document-cache-entries 1000] [--document-cache-bytes 67108864]
                       [--max-depth 20] [--max-aliases 30] [--max-root-fields 20] [--max-cost 10000]
                       [--default-list-size 10] [--log-level debug|info|warning|error|off]
                       [--workload DIR]   (serve a benchmark workload instead, e.g. ../shared/bench/graphql)
                       [--database-url URL | --data-dir .payql/postgres] [--migrations schema/migrations]
                       [--migrate true|false] [--no-database (with --workload only)]
    \(ProviderOptions.usage)
    \(ReconcilerOptions.usage)
    \(OutboxOptions.usage)
    Serves the payments API (schema/payql.graphql). Providers with credentials talk to their
    base URL; with none configured (or --sandbox true) the provider simulators run in-process
    on loopback, every unconfigured provider is wired to them, and development keys are
    written to .payql/dev-keys on first start.
    TPV account numbers are sealed with PAYQL_DATA_KEY (32 bytes, standard Base64, environment
    only; rotated-out keys, comma-separated, in PAYQL_DATA_KEYS_PREVIOUS). Without it a development
    data key is generated into <--dev-keys-dir>/data-key (mode 0600) and reused (docs/api.md).
    Every option also reads PAYQL_<NAME> from the environment (e.g. PAYQL_PORT);
    DATABASE_URL is read too. With no database URL, a private PostgreSQL cluster is
    started in --data-dir and stopped on exit. Migrations (embedded in the binary, or
    --migrations DIR) run at start unless --migrate false. --workload serves without a database.
    The reconciler re-reads open orders from their provider every --reconcile-interval-ms
    (several instances on one database share the work); --reconciler false turns it off.
    The outbox worker delivers work enqueued after commits (merchant webhooks, Setu confirmations)
    every --outbox-interval-ms, retrying until --outbox-give-up-hours; --outbox false turns it off.
    Merchant notifications are POSTed to --merchant-webhook-url (PAYQL_MERCHANT_WEBHOOK_URL), signed
    with PAYQL_MERCHANT_WEBHOOK_SECRET (environment only).
    """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments, flags: ["help", "no-database"])
        if try options.bool("help") || options.positional.first == "help" {
            print(usage)
            return 0
        }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'\n\(usage)") }
        var settings = try ServeSettings(options)
        if let directory = options.string("workload") {
            let workload = try ServeWorkload.load(directory: directory)
            settings.graphQL.schemaSDL = workload.sdl
            return try await serveWorkload(workload.schema, settings: settings, options: options)
        }
        if try options.bool("no-database") {
            throw UsageError("the payments API needs PostgreSQL; --no-database is only for --workload")
        }
        return try await serveGateway(settings: settings, options: options)
    }

    /// The benchmark workload schema, without a database.
    private static func serveWorkload(_ schema: GraphQLSchema, settings: ServeSettings, options: Options) async throws -> Int32 {
        let handler = GraphQLHTTPHandler(schema: schema, configuration: settings.graphQL)
        for path in settings.persistedDocuments { handler.persistedQueries.register(try readFile(path)) }
        let server = try HTTPServer(configuration: settings.http, handler: handler)
        logEvent(settings, "listening", [
            ("host", .string(settings.http.host)), ("port", .int(Int64(server.port))),
            ("threads", .int(Int64(settings.http.threads))), ("graphql", .string("http://\(settings.http.host):\(server.port)/graphql")),
        ])
        let signal = await TerminationSignals.waitForTermination()
        logEvent(settings, "shutting down", [("signal", .int(Int64(signal))), ("in_flight", .int(Int64(server.activeRequests)))])
        await server.shutdown(gracePeriod: settings.shutdownGrace)
        logEvent(settings, "stopped", [])
        return 0
    }

    /// The payments API: database, providers (or the in-process sandbox), gateway, server — started
    /// in that order and stopped in reverse on SIGTERM/SIGINT.
    private static func serveGateway(settings: ServeSettings, options: Options) async throws -> Int32 {
        // Configuration first: a bad or unreadable data key stops the start before anything runs.
        let dataKey = try DataKeyFile.load(options: options, directory: options.string("dev-keys-dir") ?? ".payql")
        let reconcilerConfiguration = try ReconcilerOptions.configuration(options)   // usage errors before anything starts
        let outboxConfiguration = try OutboxOptions.configuration(options)
        guard let database = try await openDatabase(options, settings) else { return 1 }
        var sandbox: SandboxServer?
        var client: HTTPClient?
        var server: HTTPServer?
        var reconciler: Reconciler?
        var outbox: OutboxWorker?
        var live: LiveEvents?
        do {
            var providerSettings = try ProviderOptions.settings(from: options)
            let useSandbox = try options.bool("sandbox", default: providerSettings.isEmpty)
            if useSandbox {
                guard settings.http.port != 0 else { throw UsageError("--sandbox needs a fixed --port (the sandbox posts webhooks to it)") }
                let started = try await ProviderOptions.startSandbox(options: options, payqlHost: settings.http.host, payqlPort: settings.http.port)
                sandbox = started
                providerSettings = ProviderOptions.sandboxSettings(started, keeping: providerSettings)
            }
            let httpClient = try HTTPClient()
            client = httpClient
            var gatewayConfiguration = settings.gateway
            gatewayConfiguration.dataKeys = dataKey.keyring
            logEvent(settings, dataKey.path == nil ? "data key" : "data key: development key (set PAYQL_DATA_KEY in production)", [
                ("source", .string(dataKey.source)), ("path", dataKey.path.map { .string($0) } ?? .null),
                ("key_id", .string(dataKey.keyring.current.id)), ("previous_keys", .int(Int64(dataKey.keyring.previous.count))),
            ])
            let metrics = MetricsRegistry()
            let gateway = try Gateway(pool: database.pool, providers: providerSettings.registry(client: httpClient),
                                      configuration: gatewayConfiguration, metrics: metrics)
            reconciler = reconcilerConfiguration.map { ReconcilerOptions.start(gateway: gateway, configuration: $0, logLevel: settings.logLevel) }
            outbox = outboxConfiguration.map {
                OutboxOptions.start(gateway: gateway, client: httpClient, configuration: $0, logLevel: settings.logLevel)
            }
            var graphQL = settings.graphQL
            graphQL.schemaSDL = Gateway.sdl
            let readiness = [ReadinessCheck(name: "postgres") { await database.readinessProblem() }]
            let events = gateway.liveEvents(maxPerCredential: settings.maxSubscriptionsPerKey) { message in
                logEvent(settings, message, [("component", "live-events")])
            }
            try events.start()
            live = events
            let ioExecutor = try options.bool("io-executor", default: true)
            let handler = GraphQLHTTPHandler(schema: gateway.schema, configuration: graphQL, metrics: metrics, readiness: readiness,
                                             context: gateway.contextProvider, authorizer: gateway.authorizer,
                                             extensions: gateway.responseExtensions,
                                             executionScope: ioExecutor ? gateway.executionScope : nil,
                                             subscriptions: events)
            for path in settings.persistedDocuments { handler.persistedQueries.register(try readFile(path)) }
            var http = settings.http
            // Handler tasks prefer the pool's I/O executor too: what follows the execution (the
            // response, its extensions) then runs where the last statement's result was read.
            if ioExecutor { http.taskExecutor = database.pool.taskExecutor }
            // On request the HTTP server runs on those threads too (no hand-off between its threads and
            // theirs); not the default while its measured gain is within this machine's noise
            // (Benchmarks/gateway/README.md, 2026-12-02 00:40).
            if ioExecutor, try options.bool("http-on-io-threads", default: false) { http.eventLoops = database.pool.httpEventLoops }
            let listening = try HTTPServer(configuration: http, handler: gateway.httpHandler(graphQL: handler))
            server = listening
            let url = "http://\(settings.http.host):\(listening.port)"
            logEvent(settings, "listening", [
                ("host", .string(settings.http.host)), ("port", .int(Int64(listening.port))),
                ("threads", .int(Int64(settings.http.threads))), ("graphql", .string(url + "/graphql")), ("ops", .string(url + "/ops")),
                ("sandbox", sandbox.map { .string($0.baseURL) } ?? .null),
            ])
            if try options.bool("dev-keys", default: sandbox != nil) {
                try await DevKeys.announce(keys: gateway.keys, graphQLURL: url + "/graphql", sandboxURL: sandbox?.baseURL,
                                           directory: options.string("dev-keys-dir") ?? ".payql")
            }
            let signal = await TerminationSignals.waitForTermination()
            logEvent(settings, "shutting down", [("signal", .int(Int64(signal))), ("in_flight", .int(Int64(listening.activeRequests)))])
        } catch {
            await stop(server: server, live: live, reconciler: reconciler, outbox: outbox, sandbox: sandbox, client: client,
                       database: database, settings: settings)
            throw error
        }
        await stop(server: server, live: live, reconciler: reconciler, outbox: outbox, sandbox: sandbox, client: client,
                   database: database, settings: settings)
        return 0
    }

    /// Stops in reverse order of start: the server (finishing in-flight requests, ending the
    /// subscription streams), the live-events listener, the outbox worker (finishing its attempts
    /// in flight), the reconciler, the sandbox, the provider client, the database.
    private static func stop(server: HTTPServer?, live: LiveEvents?, reconciler: Reconciler?, outbox: OutboxWorker?, sandbox: SandboxServer?,
                             client: HTTPClient?, database: DatabaseSession, settings: ServeSettings) async {
        await server?.shutdown(gracePeriod: settings.shutdownGrace)
        await live?.shutdown()
        await outbox?.shutdown()
        await reconciler?.shutdown()
        await sandbox?.shutdown()
        await client?.shutdown()
        await database.close()
        logEvent(settings, "stopped", [])
    }

    /// Opens the database (embedded cluster unless a URL is given) and applies
    /// the migrations; nil with `--no-database` or `--workload`.
    private static func openDatabase(_ options: Options, _ settings: ServeSettings) async throws -> DatabaseSession? {
        let logger = PostgresLogger { level, message in
            guard let minimum = settings.logLevel, level >= .info, minimum <= .info || level >= .warning else { return }
            logEvent(settings, message, [("component", "postgres")])
        }
        let session = try await DatabaseSession.open(options, logger: logger)
        guard try options.bool("migrate", default: true) else { return session }
        do {
            let applied = try await session.migrate()
            logEvent(settings, "migrations applied", [("count", .int(Int64(applied.count)))])
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    /// One JSON line on standard output for lifecycle events (not per request).
    private static func logEvent(_ settings: ServeSettings, _ message: String, _ fields: [(String, JSONValue)]) {
        guard let level = settings.logLevel, level <= .info else { return }
        var object = JSONObject()
        object.append("level", "info")
        object.append("msg", .string(message))
        for (key, value) in fields { object.append(key, value) }
        var line = JSONWriter.write(.object(object))
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

    private static func readFile(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw UsageError("--persisted-documents: cannot open '\(path)'") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Everything `payql serve` reads from flags and `PAYQL_*`, validated.
struct ServeSettings {
    var http = HTTPServerConfiguration(port: 8080)
    var graphQL = GraphQLHTTPConfiguration(schemaSDL: nil)
    var gateway = GatewayConfiguration()
    var shutdownGrace: Duration = .seconds(10)
    var persistedDocuments: [String] = []
    /// Open subscriptions per API key or client session.
    var maxSubscriptionsPerKey = 100
    /// `nil` when logging is off.
    var logLevel: LogLevel? = .info

    init(_ options: Options) throws {
        http.host = options.string("host") ?? "127.0.0.1"
        http.port = try bounded(options, "port", 8080, 0...65535)
        http.threads = try bounded(options, "threads", SystemInfo.onlineCores, 1...256)
        let sliceMicroseconds = try bounded(options, "thread-slice-us", 100, 0...100_000)
        guard sliceMicroseconds == 0 || sliceMicroseconds >= 100 else {
            throw UsageError("--thread-slice-us must be 0 (the kernel's default) or 100...100000, got \(sliceMicroseconds)")
        }
        http.threadTimeSlice = sliceMicroseconds == 0 ? nil : .microseconds(sliceMicroseconds)
        http.limits.maxBodyBytes = try bounded(options, "max-body-bytes", 1 << 20, 0...(1 << 30))
        http.limits.maxHeaderBytes = try bounded(options, "max-header-bytes", 16 << 10, 1024...(1 << 20))
        http.limits.maxConnections = try bounded(options, "max-connections", 4096, 1...1_000_000)
        http.limits.maxConnectionsPerIP = try bounded(options, "max-connections-per-ip", 0, 0...1_000_000)
        http.limits.idleTimeout = .seconds(try bounded(options, "idle-timeout", 15, 1...3600))
        http.limits.requestDeadline = .seconds(try bounded(options, "request-timeout", 30, 1...3600))
        http.limits.requestHeadDeadline = .seconds(try bounded(options, "request-head-timeout", 10, 1...3600))
        shutdownGrace = .seconds(try bounded(options, "shutdown-grace", 10, 0...3600))
        maxSubscriptionsPerKey = try bounded(options, "max-subscriptions-per-key", 100, 1...1_000_000)
        graphQL.eventStreams.heartbeatInterval = .milliseconds(try bounded(options, "sse-heartbeat-ms", 10_000, 10...3_600_000))
        gateway.merchantWebhooks = try OutboxOptions.merchantWebhooks(options)
        graphQL.introspection = try options.bool("introspection", default: true)
        if let mode = options.string("persisted-queries") {
            guard let parsed = PersistedQueryMode(rawValue: mode) else {
                throw UsageError("--persisted-queries must be disabled, automatic or allow-list, got '\(mode)'")
            }
            graphQL.persistedQueries = parsed
        }
        persistedDocuments = options.all("persisted-documents")
        if persistedDocuments.isEmpty, let list = options.string("persisted-documents") {
            persistedDocuments = list.split(separator: ",").map(String.init)
        }
        if graphQL.persistedQueries == .allowList, persistedDocuments.isEmpty {
            throw UsageError("--persisted-queries allow-list needs --persisted-documents FILE (one document per file)")
        }
        graphQL.persistedQueryCapacity = try bounded(options, "persisted-query-entries", 10_000, 1...10_000_000)
        graphQL.persistedQueryMaxBytes = try bounded(
            options, "persisted-query-bytes", PersistedQueryStore.defaultMaxBytes, 0...(1 << 40))
        graphQL.documentCacheCapacity = try bounded(options, "document-cache-entries", 1000, 1...10_000_000)
        graphQL.documentCacheMaxBytes = try bounded(options, "document-cache-bytes", DocumentCache.defaultMaxBytes, 0...(1 << 40))
        graphQL.operationLimits.maxDepth = try bounded(options, "max-depth", 20, 1...10_000)
        graphQL.operationLimits.maxAliases = try bounded(options, "max-aliases", 30, 0...1_000_000)
        graphQL.operationLimits.maxRootFields = try bounded(options, "max-root-fields", 20, 1...1_000_000)
        graphQL.operationLimits.maxCost = try bounded(options, "max-cost", 10_000, 1...Int.max)
        graphQL.operationLimits.defaultListSize = try bounded(options, "default-list-size", 10, 1...1_000_000)
        let levelName = options.string("log-level") ?? "info"
        if levelName.lowercased() == "off" {
            logLevel = nil
        } else {
            guard let level = LogLevel(name: levelName) else {
                throw UsageError("--log-level must be debug, info, warning, error or off, got '\(levelName)'")
            }
            logLevel = level
        }
        http.logger = logLevel.map { JSONLineLogger(fileDescriptor: 1, minimumLevel: $0) }
    }
}

private func bounded(_ options: Options, _ name: String, _ defaultValue: Int, _ range: ClosedRange<Int>) throws -> Int {
    let value = try options.int(name, default: defaultValue)
    guard range.contains(value) else { throw UsageError("--\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(value)") }
    return value
}
