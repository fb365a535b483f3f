import Gateway
import PaymentsCore
import Providers
import Sandbox

/// Provider credentials for `payql serve`: ids and base URLs from flags (or `PAYQL_*`),
/// secrets only from the environment. A provider is configured when its id and secrets
/// are all present; one with only some of them is a usage error (never half-configured).
enum ProviderOptions {
    static let usage = """
                           [--sandbox true|false] [--sandbox-port 0] [--dev-keys true|false] [--dev-keys-dir .payql]
                           [--io-executor true|false]  (resolvers and handler tasks on the PostgreSQL pool's I/O threads; default true)
                           [--http-on-io-threads true|false]  (with --io-executor: the HTTP server runs on those threads, not its own; default false)
                           [--provider-circuit-cooldown-ms 30000]  (a DOWN provider gets no routed creates this long, then one trial)
                           [--razorpay-key-id ID] [--razorpay-base-url URL]     secrets: PAYQL_RAZORPAY_KEY_SECRET, PAYQL_RAZORPAY_WEBHOOK_SECRET
                           [--cashfree-client-id ID] [--cashfree-base-url URL]  secrets: PAYQL_CASHFREE_CLIENT_SECRET
                           [--instamojo-client-id ID] [--instamojo-base-url URL] secrets: PAYQL_INSTAMOJO_CLIENT_SECRET, PAYQL_INSTAMOJO_SALT
                           [--setu-client-id ID] [--setu-partner-id N] [--setu-base-url URL] secrets: PAYQL_SETU_CLIENT_SECRET, PAYQL_SETU_WEBHOOK_KEY, PAYQL_SETU_BILLPAY_API_KEY
    """

    static func settings(from options: Options) throws -> ProviderSettings {
        var settings = ProviderSettings()
        let cooldown = try options.int("provider-circuit-cooldown-ms", default: 30_000)
        guard (0...3_600_000).contains(cooldown) else { throw UsageError("--provider-circuit-cooldown-ms must be 0...3600000") }
        settings.circuitCooldown = .milliseconds(cooldown)
        if let keyID = options.string("razorpay-key-id") {
            settings.razorpay = .init(
                baseURL: options.string("razorpay-base-url") ?? RazorpayConfiguration.productionBaseURL, keyID: keyID,
                keySecret: Secret(try required(options, "razorpay-key-secret", for: "--razorpay-key-id")),
                webhookSecret: Secret(try required(options, "razorpay-webhook-secret", for: "--razorpay-key-id")))
        }
        if let clientID = options.string("cashfree-client-id") {
            settings.cashfree = .init(baseURL: options.string("cashfree-base-url") ?? CashfreeConfiguration.sandboxBaseURL, clientID: clientID,
                                      clientSecret: Secret(try required(options, "cashfree-client-secret", for: "--cashfree-client-id")))
        }
        if let clientID = options.string("instamojo-client-id") {
            settings.instamojo = .init(baseURL: options.string("instamojo-base-url") ?? InstamojoConfiguration.testBaseURL, clientID: clientID,
                                       clientSecret: Secret(try required(options, "instamojo-client-secret", for: "--instamojo-client-id")),
                                       salt: Secret(try required(options, "instamojo-salt", for: "--instamojo-client-id")))
        }
        if let clientID = options.string("setu-client-id") {
            guard let partner = options.string("setu-partner-id") else { throw UsageError("--setu-client-id needs --setu-partner-id") }
            settings.setu = .init(baseURL: options.string("setu-base-url") ?? SetuConfiguration.sandboxBaseURL, clientID: clientID,
                                  secret: Secret(try required(options, "setu-client-secret", for: "--setu-client-id")), partnerID: partner,
                                  webhookKey: Secret(try required(options, "setu-webhook-key", for: "--setu-client-id")),
                                  billPayAPIKey: try options.secret("setu-billpay-api-key").map(Secret.init))
        }
        for name in ["razorpay-key-secret", "razorpay-webhook-secret", "cashfree-client-secret", "instamojo-client-secret",
                     "instamojo-salt", "setu-client-secret", "setu-webhook-key", "setu-billpay-api-key"] {
            _ = try options.secret(name)   // refuses secrets given on the command line
        }
        return settings
    }

    private static func required(_ options: Options, _ name: String, for flag: String) throws -> String {
        guard let value = try options.secret(name) else {
            throw UsageError("\(flag) needs the secret \(Options.environmentName(name)) in the environment")
        }
        return value
    }

    /// Starts the provider simulators on loopback, posting their webhooks to this PayQL.
    static func startSandbox(options: Options, payqlHost: String, payqlPort: Int) async throws -> SandboxServer {
        var configuration = SandboxConfiguration(host: "127.0.0.1", port: try options.int("sandbox-port", default: 0))
        guard (0...65535).contains(configuration.port) else { throw UsageError("--sandbox-port must be 0...65535") }
        let host = payqlHost == "0.0.0.0" || payqlHost == "::" ? "127.0.0.1" : payqlHost
        for provider in SandboxProvider.allCases {
            configuration.webhookTargets.append(WebhookTarget(provider: provider, url: "http://\(host):\(payqlPort)/webhooks/\(provider.rawValue)"))
        }
        configuration.webhookRetries = 3
        // Setu's calls to the partner (getPaymentStatus, refund) go to this PayQL.
        configuration.setuPartnerURL = "http://\(host):\(payqlPort)"
        return try await SandboxServer.start(configuration)
    }

    /// Every provider not configured with real credentials talks to the sandbox with its test credentials.
    static func sandboxSettings(_ sandbox: SandboxServer, keeping configured: ProviderSettings) -> ProviderSettings {
        var settings = configured
        let credentials = sandbox.credentials
        if settings.razorpay == nil {
            settings.razorpay = .init(baseURL: sandbox.baseURL(for: .razorpay), keyID: credentials.razorpayKeyID,
                                      keySecret: Secret(credentials.razorpayKeySecret), webhookSecret: Secret(credentials.razorpayWebhookSecret))
        }
        if settings.cashfree == nil {
            settings.cashfree = .init(baseURL: sandbox.baseURL(for: .cashfree), clientID: credentials.cashfreeClientID,
                                      clientSecret: Secret(credentials.cashfreeClientSecret))
        }
        if settings.instamojo == nil {
            settings.instamojo = .init(baseURL: sandbox.baseURL(for: .instamojo), clientID: credentials.instamojoClientID,
                                       clientSecret: Secret(credentials.instamojoClientSecret), salt: Secret(credentials.instamojoPrivateSalt))
        }
        if settings.setu == nil {
            settings.setu = .init(baseURL: sandbox.baseURL(for: .setu), clientID: credentials.setuClientID, secret: Secret(credentials.setuSecret),
                                  partnerID: credentials.setuPartnerID, webhookKey: Secret(credentials.setuWebhookKey),
                                  billPayAPIKey: Secret(credentials.setuBillPayAPIKey))
        }
        return settings
    }
}
