#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Gateway

/// The development keys `payql serve` makes on first start with the sandbox (or `--dev-keys true`): one
/// SECRET, one PUBLISHABLE and one OPS key, written to `<dir>/dev-keys` (mode 0600)
/// and printed with a first call to try. Kept across restarts while they still work.
enum DevKeys {
    static func announce(keys: APIKeys, graphQLURL: String, sandboxURL: String?, directory: String) async throws {
        let path = directory + "/dev-keys"
        var secret = existingSecretKey(at: path)
        if let current = secret, try await keys.authenticate(current) == nil { secret = nil }
        if secret == nil {
            let made = [
                try await keys.create(name: "dev secret", scopes: [.secret]),
                try await keys.create(name: "dev publishable", scopes: [.publishable]),
                try await keys.create(name: "dev ops", scopes: [.ops]),
            ]
            let text = """
                # PayQL development keys (sandbox). Send as: Authorization: Bearer <key>
                PAYQL_SECRET_KEY=\(made[0].key)
                PAYQL_PUBLISHABLE_KEY=\(made[1].key)
                PAYQL_OPS_KEY=\(made[2].key)

                """
            try write(text, to: path, directory: directory)
            secret = made[0].key
        }
        guard let secret else { return }
        let opsURL = graphQLURL.hasSuffix("/graphql") ? String(graphQLURL.dropLast("/graphql".count)) + "/ops" : graphQLURL
        print("""
            PayQL is serving the payments API at \(graphQLURL)\(sandboxURL.map { " (providers: the sandbox at \($0))" } ?? "").
            Ops page: \(opsURL) (sign in with PAYQL_OPS_KEY from \(path)).
            Development keys: \(path) (SECRET, PUBLISHABLE, OPS). Try:
              curl -s \(graphQLURL) -H 'content-type: application/json' -H "authorization: Bearer $(grep SECRET \(path) | cut -d= -f2)" \\
                -d '{"query":"mutation { createOrder(input: {amount: {amount: \\"50000\\"}, provider: RAZORPAY}) { order { id receipt providerOrderId status } userErrors { code message } } }"}'
            """)
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
    }

    private static func existingSecretKey(at path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("PAYQL_SECRET_KEY=") {
            return String(line.dropFirst("PAYQL_SECRET_KEY=".count))
        }
        return nil
    }

    /// Writes `text` readable by the owner only (created with mode 0600, never world-readable for a
    /// moment) and whole: into a temporary file first, renamed over `path`, so a reader never sees half.
    static func write(_ text: String, to path: String, directory: String) throws {
        mkdir(directory, 0o700)
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw UsageError("cannot write \(temporary): errno \(errno)") }
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw UsageError("cannot write \(path)")
        }
    }
}
