import Foundation
import HTTPClient
import PaymentsCore
import Postgres
import Providers
@testable import Gateway
import GraphQLHTTP
import Metrics
import HTTPClient
import HTTPServer
import JSON
import Postgres
import Sandbox
import Synchronization
import Testing

/// A whole PayQL for one test, wired as `payql serve` wires it: a fresh database with the
/// embedded migrations, the sandbox as every provider (its webhooks posted back to this
/// PayQL), the Gateway behind GraphQL over HTTP on a loopback port, and one key per scope.
final class GatewayHarness: Sendable {
    let sandbox: SandboxServer
    let server: HTTPServer
    let pool: PostgresPool
    let gateway: Gateway
    let client: HTTPClient
    /// `http://127.0.0.1:PORT`
    let baseURL: String
    let secretKey: String
    let publishableKey: String
    let opsKey: String
    let databaseURL: String

    /// Open subscriptions per key in a harness.
    static let subscriptionLimit = 5
    /// Subscription events (LISTEN/NOTIFY).
    let live: LiveEvents
    /// The registry behind `/metrics`.
    let metrics: MetricsRegistry

    private init(sandbox: SandboxServer, server: HTTPServer, pool: PostgresPool, gateway: Gateway, client: HTTPClient,
                 baseURL: String, keys: [String], databaseURL: String, live: LiveEvents, metrics: MetricsRegistry) {
        self.live = live
        self.metrics = metrics
        self.sandbox = sandbox
        self.server = server
        self.pool = pool
        self.gateway = gateway
        self.client = client
        self.baseURL = baseURL
        secretKey = keys[0]
        publishableKey = keys[1]
        opsKey = keys[2]
        self.databaseURL = databaseURL
    }

    /// The provider transport of a harness: short, so lost answers cost a test seconds, not minutes.
    static let testTransport = ProviderTransportSettings(attemptTimeout: .seconds(2), operationDeadline: .seconds(4))

    /// Runs `body` with a fresh PayQL, shut down afterwards whatever happens. `databaseURL` picks a
    /// database (migrated here) instead of a fresh one on the shared cluster; `providers` adjusts
    /// what the gateway is wired to (e.g. a provider nothing listens for).
    static func run(configuration: GatewayConfiguration = .init(), sandboxFaults: [FaultRule] = [],
                    transport: ProviderTransportSettings = testTransport, databaseURL: String? = nil,
                    providers: (inout ProviderSettings) -> Void = { _ in },
                    _ body: (GatewayHarness) async throws -> Void) async throws {
        let harness = try await start(configuration: configuration, sandboxFaults: sandboxFaults, transport: transport,
                                      databaseURL: databaseURL, providers: providers)
        do {
            try await body(harness)
        } catch {
            await harness.shutdown()
            throw error
        }
        await harness.shutdown()
    }

    static func start(configuration: GatewayConfiguration = .init(), sandboxFaults: [FaultRule] = [],
                      transport: ProviderTransportSettings = testTransport, databaseURL: String? = nil,
                      providers: (inout ProviderSettings) -> Void = { _ in }) async throws -> GatewayHarness {
        let url: String
        if let databaseURL { url = databaseURL } else { url = try await GatewayCluster.freshDatabase().url }
        let pool = try PostgresPool(url: url)
        _ = try await Migrator(migrations: try Gateway.migrations()).migrate(using: pool)
        // The server starts first (its port is where the sandbox posts webhooks); its handler is set once the gateway exists.
        let handler = SwitchableHandler()
        // Handler tasks on the pool's I/O executor, as `payql serve` runs them. The server keeps threads of its
        // own (`payql serve` runs it on the pool's I/O threads, `--http-on-io-threads`): the I/O threads are
        // the process's, so every harness of a parallel test run would serve on the same two threads, and
        // the tests waiting with deadlines then wait for each other (ServeCommandTests run the real thing).
        // `PAYQL_TEST_HTTP_ON_IO_THREADS=1 swift test --filter GatewayTests` runs it there anyway, to check that mode.
        let onIOThreads = ProcessInfo.processInfo.environment["PAYQL_TEST_HTTP_ON_IO_THREADS"] == "1"
        let server = try HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, taskExecutor: pool.taskExecutor,
                                                                           eventLoops: onIOThreads ? pool.httpEventLoops : []),
                                    handler: handler)
        let base = "http://127.0.0.1:\(server.port)"
        var sandboxConfiguration = SandboxConfiguration(port: 0, webhookTargets: [WebhookTarget(base + "/webhooks")], faults: sandboxFaults)
        sandboxConfiguration.webhookTimeout = .seconds(10)
        sandboxConfiguration.setuPartnerURL = base
        let sandbox = try await SandboxServer.start(sandboxConfiguration)
        let client = try HTTPClient()
        let credentials = sandbox.credentials
        var settings = ProviderSettings(
            razorpay: .init(baseURL: sandbox.baseURL(for: .razorpay), keyID: credentials.razorpayKeyID,
                            keySecret: Secret(credentials.razorpayKeySecret), webhookSecret: Secret(credentials.razorpayWebhookSecret)),
            cashfree: .init(baseURL: sandbox.baseURL(for: .cashfree), clientID: credentials.cashfreeClientID,
                            clientSecret: Secret(credentials.cashfreeClientSecret)),
            instamojo: .init(baseURL: sandbox.baseURL(for: .instamojo), clientID: credentials.instamojoClientID,
                             clientSecret: Secret(credentials.instamojoClientSecret), salt: Secret(credentials.instamojoPrivateSalt)),
            setu: .init(baseURL: sandbox.baseURL(for: .setu), clientID: credentials.setuClientID, secret: Secret(credentials.setuSecret),
                        partnerID: credentials.setuPartnerID, webhookKey: Secret(credentials.setuWebhookKey),
                        billPayAPIKey: Secret(credentials.setuBillPayAPIKey)),
            transport: transport)
        providers(&settings)
        let metrics = MetricsRegistry()
        let gateway = try Gateway(pool: pool, providers: settings.registry(client: client), configuration: configuration, metrics: metrics)
        var graphQL = GraphQLHTTPConfiguration()
        graphQL.schemaSDL = Gateway.sdl
        // Subscriptions: a small limit per key and quick heartbeats, for LiveUpdateTests.
        graphQL.eventStreams.heartbeatInterval = .milliseconds(300)
        let live = gateway.liveEvents(maxPerCredential: GatewayHarness.subscriptionLimit)
        try live.start()
        handler.set(gateway.httpHandler(graphQL: GraphQLHTTPHandler(
            schema: gateway.schema, configuration: graphQL, metrics: metrics, context: gateway.contextProvider, authorizer: gateway.authorizer,
                                             extensions: gateway.responseExtensions, executionScope: gateway.executionScope,
                                             subscriptions: live)))
        let keys = [
            try await gateway.keys.create(name: "test secret", scopes: [.secret]).key,
            try await gateway.keys.create(name: "test publishable", scopes: [.publishable]).key,
            try await gateway.keys.create(name: "test ops", scopes: [.ops]).key,
        ]
        return GatewayHarness(sandbox: sandbox, server: server, pool: pool, gateway: gateway, client: client, baseURL: base,
                              keys: keys, databaseURL: url, live: live, metrics: metrics)
    }

    func shutdown() async {
        await server.shutdown(gracePeriod: .seconds(2))
        await live.shutdown()
        await sandbox.shutdown()
        await client.shutdown()
        pool.shutdown()
    }

    // MARK: Calls

    /// The answer to a GraphQL request: HTTP status and the JSON body.
    struct Answer: Sendable {
        var status: Int
        var json: JSONValue

        /// `data.<field>` of the operation.
        func data(_ field: String) -> JSONValue? { json["data"]?[field] }
        /// The `userErrors` codes of a mutation payload.
        func userErrorCodes(_ field: String) -> [String] {
            json["data"]?[field]?["userErrors"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        }
        /// The top-level error codes.
        var errorCodes: [String] { json["errors"]?.arrayValue?.compactMap { $0["extensions"]?["code"]?.stringValue } ?? [] }
    }

    /// POSTs a GraphQL request with `Authorization: Bearer <key>` (the SECRET key unless told; nil sends none).
    func graphQL(_ query: String, variables: JSONObject = [:], key: String?? = .none,
                 headers: [(name: String, value: String)] = []) async throws -> Answer {
        var all: [(name: String, value: String)] = [("content-type", "application/json"), ("accept", "application/graphql-response+json")]
        switch key {
        case .none: all.append(("authorization", "Bearer \(secretKey)"))
        case .some(.some(let given)): all.append(("authorization", "Bearer \(given)"))
        case .some(.none): break
        }
        all += headers
        let body = JSONWriter.write(["query": .string(query), "variables": .object(variables)])
        let response = try await client.execute(HTTPClientRequest(method: "POST", url: baseURL + "/graphql", headers: all, body: body))
        return Answer(status: response.status, json: try JSONParser.parse(response.body))
    }

    /// A control call to the sandbox (`POST /_sandbox/...`), its JSON answer.
    @discardableResult
    func sandboxControl(_ path: String, body: String = "{}", method: String = "POST") async throws -> JSONValue {
        let response = try await client.execute(HTTPClientRequest(method: method, url: sandbox.baseURL + "/_sandbox" + path,
                                                                  headers: [("content-type", "application/json")], body: Array(body.utf8)))
        return (try? JSONParser.parse(response.body)) ?? .null
    }

    /// Finishes an order in the sandbox (`paid`, `failed`, ...); webhooks have been attempted when this returns.
    @discardableResult
    func complete(_ provider: String, order: String, status: String = "paid") async throws -> JSONValue {
        try await sandboxControl("/\(provider)/orders/\(order)/complete", body: #"{"status":"\#(status)"}"#)
    }

    /// Rows of a count query on the database (test checks that nothing was written).
    func count(_ table: StaticString) async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM \(sql: table)").single(Int64.self) ?? -1
    }

    /// Polls `condition` until it holds or `timeout` passes (webhooks arrive asynchronously).
    /// The default is generous: on a loaded 2-core machine (load 18–30) background work such as
    /// outbox deliveries and collect polls took well over 10 s, an outbox refund over 30 s at load 29;
    /// a condition that holds returns at its first poll that sees it, so only a failing test waits
    /// the whole time.
    func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

/// An HTTP handler set after the server started (its port must be known to configure the sandbox).
final class SwitchableHandler: HTTPHandler {
    private let current = Mutex<(any HTTPHandler)?>(nil)

    func set(_ handler: any HTTPHandler) { current.withLock { $0 = handler } }

    func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse? {
        guard let handler = current.withLock({ $0 }) else { return HTTPResponse(status: 503, headers: [:], body: Array("starting".utf8)) }
        return handler.respondImmediately(to: &request)
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let handler = current.withLock({ $0 }) else { return HTTPResponse(status: 503, headers: [:], body: Array("starting".utf8)) }
        return await handler.handle(request)
    }
}
