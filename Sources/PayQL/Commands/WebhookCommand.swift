#if canImport(Glibc)
import Glibc
#endif
import Providers
import PaymentsCore
import Support

/// `payql webhook verify --provider NAME --secret-env VAR [--header 'Name: value' ...] < body`
///
/// Checks a provider webhook the way the gateway does, for people debugging
/// deliveries: prints `valid` (exit 0) or `invalid: reason` (exit 1). The body is
/// read raw from standard input (signatures cover the exact bytes). The secret —
/// Razorpay webhook secret, Cashfree client secret, Instamojo private salt, Setu
/// webhook key — is read from the environment variable named by `--secret-env`,
/// never from the command line, where it would land in shell history and `ps`.
enum WebhookCommand {
    static let usage = """
    usage: payql webhook verify --provider razorpay|cashfree|instamojo|setu --secret-env VAR \\
                                [--header 'Name: value' ...] < body
    """

    /// Largest body read from standard input.
    static let maximumBodyBytes = 16 << 20

    static func run(_ arguments: [String], streams: StandardStreams) async throws -> Int32 {
        let options = try Options(arguments)
        if options.wantsHelp || options.positional.first == "help" {
            print(usage)
            return 0
        }
        guard options.positional == ["verify"] else { throw UsageError("expected 'verify'\n\(usage)") }
        for forbidden in ["secret", "key", "salt"] where !options.all(forbidden).isEmpty {
            throw UsageError("--\(forbidden) is not accepted: put the secret in an environment variable and pass --secret-env VAR")
        }
        guard let providerName = options.all("provider").last else { throw UsageError("--provider is required\n\(usage)") }
        guard let provider = ProviderName(rawValue: providerName.lowercased()) else {
            throw UsageError("unknown provider '\(providerName)' (razorpay, cashfree, instamojo, setu)")
        }
        guard let variable = options.all("secret-env").last, !variable.isEmpty else {
            throw UsageError("--secret-env VAR is required (the environment variable holding the secret)\n\(usage)")
        }
        guard let value = Environment.get(variable), !value.isEmpty else {
            throw UsageError("environment variable \(variable) is not set or empty")
        }
        var headers: [(name: String, value: String)] = []
        for header in options.all("header") {
            guard let colon = header.firstIndex(of: ":") else { throw UsageError("--header must look like 'Name: value', got '\(header)'") }
            let name = String(header[..<colon]).trimmingSpaces()
            guard !name.isEmpty else { throw UsageError("--header has an empty name: '\(header)'") }
            headers.append((name, String(header[header.index(after: colon)...]).trimmingSpaces()))
        }
        guard !streams.inputWasClosed else {
            throw UsageError("standard input is closed: give the webhook's raw body on standard input (payql webhook verify ... < body)")
        }
        let body = try readStandardInput()
        guard !body.isEmpty else {
            throw UsageError("standard input is empty: give the webhook's raw body on standard input (payql webhook verify ... < body)")
        }
        let verdict = Webhooks.verify(provider: provider, request: WebhookRequest(headers: headers, body: body), secret: Secret(value))
        print(verdict.description)
        return verdict.isValid ? 0 : 1
    }

    /// All of standard input, as bytes.
    static func readStandardInput() throws -> [UInt8] {
        var body: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count == 0 { return body }
            if count < 0 {
                if errno == EINTR { continue }
                throw UsageError("cannot read the body from standard input: \(String(cString: strerror(errno)))")
            }
            body.append(contentsOf: buffer[0..<count])
            if body.count > maximumBodyBytes { throw UsageError("the body is larger than \(maximumBodyBytes) bytes") }
        }
    }
}
