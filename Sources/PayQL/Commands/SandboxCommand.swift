#if canImport(Glibc)
import Glibc
#endif
import Sandbox

/// `payql sandbox`: the four providers' simulators on one port (docs/sandbox.md).
enum SandboxCommand {
    static let usage = """
    usage: payql sandbox [--host 127.0.0.1] [--port 8090] [--webhook-url [provider=]URL ...]
                         [--latency-ms N] [--fault JSON ...] [--webhook-timeout-ms N] [--webhook-retries N]
                         [--razorpay-key-id ID] [--razorpay-key-secret S] [--razorpay-webhook-secret S]
                         [--cashfree-client-id ID] [--cashfree-client-secret S]
                         [--instamojo-client-id ID] [--instamojo-client-secret S] [--instamojo-salt S]
                         [--setu-client-id ID] [--setu-secret S] [--setu-partner-id N] [--setu-webhook-key K]
                         [--setu-partner-url URL] [--setu-billpay-api-key K]
    """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments, flags: ["help"])
        if options.wantsHelp || options.positional.first == "help" {
            print(usage)
            return 0
        }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'\n\(usage)") }
        let configuration = try configuration(from: options)
        let sandbox = try await SandboxServer.start(configuration)
        print("payql sandbox listening on \(sandbox.baseURL)")
        for provider in SandboxProvider.allCases {
            print("  \(provider.rawValue.padding(9)) \(sandbox.baseURL(for: provider))")
        }
        print("  control   \(sandbox.baseURL)/_sandbox (docs/sandbox.md)")
        flushStandardOutput()
        _ = await TerminationSignals.waitForTermination()
        await sandbox.shutdown()
        return 0
    }

    static func configuration(from options: Options) throws -> SandboxConfiguration {
        var configuration = SandboxConfiguration()
        configuration.host = options.string("host") ?? "127.0.0.1"
        configuration.port = try options.int("port", default: 8090)
        guard (0...65535).contains(configuration.port) else { throw UsageError("--port must be 0...65535") }
        var urls = options.all("webhook-url")
        if urls.isEmpty, let fromEnvironment = options.string("webhook-url") {
            urls = fromEnvironment.split(separator: ",").map(String.init)
        }
        for url in urls {
            let target = WebhookTarget(url)
            guard target.url.hasPrefix("http://") || target.url.hasPrefix("https://") else {
                throw UsageError("--webhook-url must be [provider=]http(s)://..., got '\(url)'")
            }
            configuration.webhookTargets.append(target)
        }
        let latency = try options.int("latency-ms", default: 0)
        guard (0...120_000).contains(latency) else { throw UsageError("--latency-ms must be 0...120000") }
        configuration.latency = .milliseconds(latency)
        let webhookTimeout = try options.int("webhook-timeout-ms", default: 5000)
        guard (1...120_000).contains(webhookTimeout) else { throw UsageError("--webhook-timeout-ms must be 1...120000") }
        configuration.webhookTimeout = .milliseconds(webhookTimeout)
        let retries = try options.int("webhook-retries", default: 0)
        guard (0...10).contains(retries) else { throw UsageError("--webhook-retries must be 0...10") }
        configuration.webhookRetries = retries
        var faults = options.all("fault")
        if faults.isEmpty, let fromEnvironment = options.string("fault") { faults = [fromEnvironment] }
        for text in faults {
            do {
                configuration.faults.append(try FaultRule(json: text))
            } catch {
                throw UsageError("--fault: \(error.description)")
            }
        }
        var credentials = SandboxCredentials.defaults
        let fields: [(String, WritableKeyPath<SandboxCredentials, String>)] = [
            ("razorpay-key-id", \.razorpayKeyID), ("razorpay-key-secret", \.razorpayKeySecret),
            ("razorpay-webhook-secret", \.razorpayWebhookSecret), ("cashfree-client-id", \.cashfreeClientID),
            ("cashfree-client-secret", \.cashfreeClientSecret), ("instamojo-client-id", \.instamojoClientID),
            ("instamojo-client-secret", \.instamojoClientSecret), ("instamojo-salt", \.instamojoPrivateSalt),
            ("setu-client-id", \.setuClientID), ("setu-secret", \.setuSecret), ("setu-partner-id", \.setuPartnerID),
            ("setu-webhook-key", \.setuWebhookKey), ("setu-billpay-api-key", \.setuBillPayAPIKey),
        ]
        for (name, keyPath) in fields {
            if let value = options.string(name) {
                guard !value.isEmpty else { throw UsageError("--\(name) must not be empty") }
                credentials[keyPath: keyPath] = value
            }
        }
        configuration.credentials = credentials
        if let partner = options.string("setu-partner-url") {
            guard partner.hasPrefix("http://") || partner.hasPrefix("https://") else {
                throw UsageError("--setu-partner-url must be http(s)://..., got '\(partner)'")
            }
            configuration.setuPartnerURL = partner
        }
        return configuration
    }

    private static func flushStandardOutput() {
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
