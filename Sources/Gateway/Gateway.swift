public import GraphQL
public import GraphQLHTTP
public import Metrics
public import HTTPServer
import JSON
public import Postgres

/// PayQL's payments API: the served schema (schema/payql.graphql) with its resolvers,
/// authentication by API key or client session, scope checks, and provider webhooks.
///
/// Owns no threads: `payql serve` wires it between the HTTP server, the PostgreSQL
/// pool and the provider adapters, and shuts those down itself.
public final class Gateway: Sendable {
    /// The executable schema.
    public let schema: GraphQLSchema
    /// API keys and client sessions.
    public let keys: APIKeys
    let services: GatewayServices
    let scopes: ScopeRequirements
    /// Webhook, pool and reconciler figures on `/metrics`; nil when no registry was given.
    let metrics: GatewayMetrics?

    /// The SDL served at `/schema.graphql`.
    public static var sdl: String { EmbeddedSchema.sdl }

    /// The migrations carried in the binary, in order.
    public static func migrations() throws -> [Migration] {
        try EmbeddedSchema.migrations.map { fileName, sql in
            guard let migration = Migration(fileName: fileName, sql: sql) else {
                throw GatewayRequestError.internal("embedded migration \(fileName) is not named NNNN_name.sql")
            }
            return migration
        }
    }

    /// A gateway over `pool` and the configured `providers`.
    ///   - metrics: where provider calls, webhooks, the pool and the reconciler backlog are counted (`/metrics`); nil: not counted.
    public init(pool: PostgresPool, providers: ProviderRegistry, configuration: GatewayConfiguration = .init(),
                metrics: MetricsRegistry? = nil) throws {
        if let metrics { providers.health.attach(metrics) }
        let keys = APIKeys(pool: pool, cacheLifetime: configuration.keyCacheLifetime)
        let services = GatewayServices(pool: pool, configuration: configuration, providers: providers, keys: keys)
        let scopes = try ScopeRequirements(sdl: EmbeddedSchema.sdl)
        var set = ResolverSet(scopes: scopes)
        QueryResolvers.register(&set, services: services)
        ObjectResolvers.register(&set, services: services)
        MutationResolvers.register(&set, services: services)
        WebhookEventResolvers.register(&set, services: services)
        RefundResolvers.register(&set, services: services)
        BankAccountResolvers.register(&set, services: services)
        TurboUpiResolvers.register(&set, services: services)
        RewardResolvers.register(&set, services: services)
        BillPayResolvers.register(&set, services: services)
        RoutingResolvers.register(&set, services: services)
        SubscriptionResolvers.register(&set, services: services)
        MerchantWebhookResolvers.register(&set, services: services)
        InstamojoResolvers.register(&set, services: services)
        set.guardUnresolvedScopedFields()
        for root in ["Query", "Mutation"] { set.notImplemented(rootFields: scopes.rootFields[root] ?? [], of: root) }
        schema = try GraphQLSchema(sdl: EmbeddedSchema.sdl, resolvers: set.resolvers)
        self.keys = keys
        self.services = services
        self.scopes = scopes
        self.metrics = metrics.map { GatewayMetrics(registry: $0, pool: pool) }
    }

    /// Builds each request's context from `Authorization: Bearer <key or session token>`;
    /// no or an unknown token is 401 UNAUTHENTICATED.
    public var contextProvider: GraphQLContextProvider {
        let keys = self.keys
        return .async { request throws(GraphQLHTTPError) in
            guard let header = request.headers["authorization"] else {
                throw GraphQLHTTPError(status: 401, code: "UNAUTHENTICATED", message: "Send Authorization: Bearer <API key>.",
                                       headers: ["www-authenticate": "Bearer"])
            }
            // Read in place: no array of parts, no copy of the token (APIKeys.bearerToken).
            guard let token = APIKeys.bearerToken(header) else {
                throw GraphQLHTTPError(status: 401, code: "UNAUTHENTICATED", message: "The Authorization header must be 'Bearer <API key>'.",
                                       headers: ["www-authenticate": "Bearer"])
            }
            let principal: Principal?
            do {
                principal = try await keys.authenticate(token)
            } catch {
                throw GraphQLHTTPError(status: 503, code: "INTERNAL", message: "The key could not be checked (database unavailable); retry.")
            }
            guard let principal else {
                throw GraphQLHTTPError(status: 401, code: "UNAUTHENTICATED", message: "Unknown, revoked or expired API key.",
                                       headers: ["www-authenticate": "Bearer"])
            }
            return GatewayRequestContext(principal: principal, idempotencyHeader: request.headers["idempotency-key"])
        }
    }

    /// Refuses an operation whose root fields the caller's scopes do not allow (403 FORBIDDEN),
    /// and an `Idempotency-Key` header on anything but a single mutation field.
    public var authorizer: OperationAuthorizer {
        let scopes = self.scopes
        return OperationAuthorizer { context, operation, request in
            guard let context = context as? GatewayRequestContext else {
                return GraphQLHTTPError(status: 500, code: "INTERNAL", message: "No request context.")
            }
            let root = switch operation.kind {
            case .query: "Query"
            case .mutation: "Mutation"
            case .subscription: "Subscription"
            }
            for field in operation.rootFields {
                guard let required = scopes.fields["\(root).\(field)"] else { continue }
                if !context.principal.holdsAny(of: required) {
                    let error = GatewayRequestError.forbidden("\(root).\(field)", required: required)
                    return GraphQLHTTPError(status: 403, code: error.code, message: error.message)
                }
            }
            if context.idempotencyHeader != nil, operation.kind != .mutation || operation.rootFields.count != 1 {
                return GraphQLHTTPError(status: 400, code: "BAD_USER_INPUT",
                                        message: "The Idempotency-Key header is only for an operation with exactly one mutation field.")
            }
            return nil
        }
    }

    /// Subscription events for this instance (PostgreSQL LISTEN/NOTIFY); pass it to
    /// `GraphQLHTTPHandler(subscriptions:)`, `start()` it before serving and `shutdown()` it after.
    ///   - maxPerCredential: open subscriptions per API key or client session.
    public func liveEvents(maxPerCredential: Int = 100, log: @escaping @Sendable (String) -> Void = { _ in }) -> LiveEvents {
        LiveEvents(pool: services.pool, maxPerCredential: maxPerCredential, log: log)
    }

    /// `extensions.timing` on every executed operation: totalMs, providerMs, databaseMs, gatewayMs.
    public var responseExtensions: ResponseExtensions {
        // Written straight into the response body (no JSON objects per request).
        ResponseExtensions(writingMembers: { context, elapsed, body in
            guard let context = context as? GatewayRequestContext else { return false }
            context.writeTiming(total: elapsed, into: &body)
            return true
        })
    }

    /// Executions run on the PostgreSQL pool's I/O executor (resolvers mostly wait for the
    /// database; see docs/postgres.md, "withIOExecutor").
    public var executionScope: ExecutionScope {
        let pool = services.pool
        return ExecutionScope { body in await pool.withIOExecutor { await body() } }
    }

    /// The HTTP handler: `POST /webhooks/{provider}` here, everything else to `graphQL`.
    public func httpHandler(graphQL: GraphQLHTTPHandler) -> any HTTPHandler {
        GatewayHTTPHandler(graphQL: graphQL, webhooks: services.webhooks, setuPartner: services.setuPartner, metrics: metrics)
    }
}

/// Routes provider webhooks to the gateway, `/ops` to the ops page and the rest to GraphQL over HTTP.
struct GatewayHTTPHandler: HTTPHandler {
    /// What a path leads to.
    enum Destination: Sendable { case webhook, setuPartner, opsPage, opsFile }

    let graphQL: GraphQLHTTPHandler
    let webhooks: WebhookService
    let setuPartner: SetuPartnerEndpoints
    let metrics: GatewayMetrics?
    let router: Router<Destination>
    /// The GraphQL path when no route of this handler's takes it: such requests (nearly all)
    /// skip the router.
    let graphQLPath: String?

    init(graphQL: GraphQLHTTPHandler, webhooks: WebhookService, setuPartner: SetuPartnerEndpoints, metrics: GatewayMetrics?) {
        self.graphQL = graphQL
        self.webhooks = webhooks
        self.setuPartner = setuPartner
        self.metrics = metrics
        var router = Router<Destination>()
        // A fixed, valid pattern: a failure here is a programming error caught by every test.
        try? router.add("POST /webhooks/{provider}", .webhook)
        try? router.add("POST /setu/v1/{call}", .setuPartner)
        try? router.add("/ops", .opsPage)
        try? router.add("/ops/{file}", .opsFile)
        self.router = router
        let path = graphQL.configuration.path
        let routed = ["GET", "POST"].contains { method in
            if case .notFound = router.match(method: method, path: path) { return false }
            return true
        }
        graphQLPath = routed || path == "/metrics" ? nil : path
    }

    func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse? {
        if request.path == graphQLPath { return graphQL.respondImmediately(to: &request) }
        switch router.match(method: request.method, path: request.path) {
        case .found(.webhook, _), .found(.setuPartner, _): return nil
        case .found(.opsPage, _): return OpsPage.response(file: nil, method: request.method)
        case .found(.opsFile, let parameters): return OpsPage.response(file: parameters["file"], method: request.method)
        case .methodNotAllowed(let allowed):
            return Self.json(405, ["error": "webhooks are POSTed"], headers: ["allow": allowed.joined(separator: ", ")])
        case .notFound:
            // `/metrics` reads the database (the reconciler backlog): answered in `handle`, off the server thread.
            if metrics != nil, request.path == "/metrics", request.method == "GET" || request.method == "HEAD" { return nil }
            return graphQL.respondImmediately(to: &request)
        }
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if request.path == graphQLPath { return await graphQL.handle(request) }
        switch router.match(method: request.method, path: request.path) {
        case .found(.webhook, let parameters):
            return await webhook(provider: parameters["provider"] ?? "", request: request)
        case .found(.setuPartner, let parameters):
            // Setu calling PayQL (getPaymentStatus, refund): plain JSON routes, not GraphQL.
            do {
                let answer = try await setuPartner.handle(call: parameters["call"] ?? "", headers: request.headers.map { (name: $0.name, value: $0.value) },
                                                          body: request.body)
                return HTTPResponse(status: answer.status, headers: ["content-type": "application/json"], body: answer.body)
            } catch {
                return Self.json(503, ["status": "failure", "message": "try again"])
            }
        case .found(.opsPage, _):
            return OpsPage.response(file: nil, method: request.method)
        case .found(.opsFile, let parameters):
            return OpsPage.response(file: parameters["file"], method: request.method)
        case .methodNotAllowed(let allowed):
            return Self.json(405, ["error": "webhooks are POSTed"], headers: ["allow": allowed.joined(separator: ", ")])
        case .notFound:
            if let metrics, request.path == "/metrics" { await metrics.refresh() }
            return await graphQL.handle(request)
        }
    }

    private func webhook(provider: String, request: HTTPRequest) async -> HTTPResponse {
        do {
            let headers = request.headers.map { (name: $0.name, value: $0.value) }
            let outcome = try await webhooks.receive(provider: provider, headers: headers, body: request.body)
            switch outcome {
            case .accepted(let stored): metrics?.webhook(provider: provider, result: stored.lowercased())
            case .duplicate: metrics?.webhook(provider: provider, result: "duplicate")
            case .rejected: metrics?.webhook(provider: provider, result: "rejected")
            case .unknownProvider: metrics?.webhook(provider: "unknown", result: "unknown_provider")
            }
            switch outcome {
            case .accepted(let stored): return Self.json(200, ["status": .string(stored)])
            case .duplicate: return Self.json(200, ["status": "DUPLICATE"])
            case .rejected: return Self.json(401, ["error": "invalid signature"])
            case .unknownProvider: return Self.json(404, ["error": "no such provider configured"])
            }
        } catch {
            metrics?.webhook(provider: provider, result: "error")
            // Not stored: the provider retries later (its webhooks are at least once).
            return Self.json(503, ["error": "the webhook could not be stored; retry"])
        }
    }

    static func json(_ status: Int, _ object: JSONObject, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var all = headers
        all.add(name: "content-type", value: "application/json")
        return HTTPResponse(status: status, headers: all, body: JSONWriter.write(.object(object)))
    }
}
