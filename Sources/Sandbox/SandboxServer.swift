import Support
import Synchronization
import HTTPServer

/// The provider sandbox: the four simulators, the control API and fault
/// injection behind one HTTP listener.
///
/// ```swift
/// let sandbox = try await SandboxServer.start(SandboxConfiguration(port: 0))
/// let base = sandbox.baseURL(for: .razorpay)   // http://127.0.0.1:PORT/razorpay
/// await sandbox.shutdown()
/// ```
/// The sandbox never imports `Providers`: it is a second, independent reading
/// of the provider documentation (docs/sandbox.md).
public final class SandboxServer: Sendable {
    /// The port actually bound.
    public let port: Int
    /// `http://host:port` (the bound host; `0.0.0.0` is reported as `127.0.0.1`).
    public let baseURL: String
    /// The credentials the simulators accept.
    public let credentials: SandboxCredentials
    private let server: HTTPServer
    private let router: SandboxRouter

    private init(port: Int, baseURL: String, credentials: SandboxCredentials, server: HTTPServer, router: SandboxRouter) {
        self.port = port
        self.baseURL = baseURL
        self.credentials = credentials
        self.server = server
        self.router = router
    }

    /// Binds and starts serving. Throws when the address cannot be bound or
    /// the webhook client cannot start.
    public static func start(_ configuration: SandboxConfiguration) async throws -> SandboxServer {
        let credentials = configuration.credentials
        let simulators: [any ProviderSimulator] = [
            RazorpaySimulator(credentials: credentials),
            CashfreeSimulator(credentials: credentials),
            InstamojoSimulator(credentials: credentials),
            SetuSimulator(credentials: credentials),
        ]
        let dispatcher = WebhookDispatcher(targets: configuration.webhookTargets, timeout: configuration.webhookTimeout,
                                           retries: configuration.webhookRetries, retryDelay: configuration.webhookRetryDelay,
                                           transport: try HTTPClientTransport())
        let router = SandboxRouter(simulators: simulators, faults: FaultTable(configuration.faults),
                                   dispatcher: dispatcher, latency: configuration.latency,
                                   setuPartnerURL: configuration.setuPartnerURL)
        // A held `timeout` fault may last up to 120 s: the server's own deadlines must not cut it short.
        let hold = FaultRule.maximumTimeout + .seconds(10)
        let server: HTTPServer
        do {
            server = try HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: configuration.host, port: configuration.port, threads: 2,
                    limits: .init(maxBodyBytes: 1 << 20, idleTimeout: hold, requestDeadline: hold)),
                handler: SandboxHTTPHandler(router: router))
        } catch {
            await dispatcher.shutdown()
            throw error
        }
        let host = configuration.host == "0.0.0.0" || configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let baseURL = "http://\(shownHost):\(server.port)"
        router.root.withLock { $0 = baseURL }
        return SandboxServer(port: server.port, baseURL: baseURL, credentials: credentials, server: server, router: router)
    }

    /// The URL that replaces the provider's real base URL
    /// (`…/razorpay`, `…/cashfree/pg`, `…/instamojo`, `…/setu`).
    public func baseURL(for provider: SandboxProvider) -> String {
        baseURL + provider.basePath
    }

    /// Stops serving: held requests end, in-flight ones get a moment to finish,
    /// background webhook deliveries complete, then the webhook client closes.
    public func shutdown() async {
        router.stopping.store(true, ordering: .relaxed)
        await server.shutdown(gracePeriod: .seconds(2))
        await router.dispatcher.shutdown()
    }
}

/// Adapts the HTTP server's request and response types to the simulators' own.
struct SandboxHTTPHandler: HTTPHandler {
    let router: SandboxRouter

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let inner = SandboxRequest(method: request.method.uppercased(), path: request.path, query: request.queryItems,
                                   headers: request.headers.fields, body: request.body)
        let answer = await router.handle(inner)
        if answer.drop { return .dropConnection }
        return HTTPResponse(status: answer.status, headers: HTTPHeaders(answer.headers.map { ($0.name, $0.value) }),
                            body: answer.body)
    }
}
