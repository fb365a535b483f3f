import Foundation
import Gateway
import Postgres

/// `payql keys create|list|revoke`: API keys (stored as hashes; a key is printed once).
enum KeysCommand {
    static let usage = """
    usage: payql keys create --scope SECRET|PUBLISHABLE|OPS [--scope ...] [--name NAME]
           payql keys list
           payql keys revoke KEY_ID
           (each also takes [--database-url URL | --data-dir .payql/postgres])
    create prints the new key once on standard output; PayQL keeps only its SHA-256.
    Send it as 'Authorization: Bearer <key>'. revoke takes the id create and list print.
    """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let options = try Options(arguments)
        if options.wantsHelp || options.positional.first == "help" {
            print(usage)
            return 0
        }
        guard let action = options.positional.first else { throw UsageError(usage) }
        let scopes = try options.all("scope").map { name -> ApiScope in
            guard let scope = ApiScope(rawValue: name.uppercased()) else {
                throw UsageError("--scope must be SECRET, PUBLISHABLE or OPS, got '\(name)'")
            }
            return scope
        }
        switch action {
        case "create":
            guard !scopes.isEmpty else { throw UsageError("keys create needs at least one --scope\n\(usage)") }
            guard options.positional.count == 1 else { throw UsageError("unexpected argument '\(options.positional[1])'") }
        case "list":
            guard options.positional.count == 1 else { throw UsageError("unexpected argument '\(options.positional[1])'") }
        case "revoke":
            guard options.positional.count == 2, UUID(uuidString: options.positional[1]) != nil else {
                throw UsageError("keys revoke takes one key id (a UUID, as keys list prints it)")
            }
        default:
            throw UsageError("unknown keys action '\(action)'\n\(usage)")
        }
        let logger = PostgresLogger { level, message in
            if level >= .warning { printError("payql keys: \(message)") }
        }
        let session = try await DatabaseSession.open(options, logger: logger)
        let outcome: Result<Int32, any Error>
        do {
            _ = try await session.migrate()
            let keys = APIKeys(pool: session.pool)
            outcome = .success(try await perform(action, options: options, scopes: scopes, keys: keys))
        } catch {
            outcome = .failure(error)
        }
        await session.close()
        return try outcome.get()
    }

    private static func perform(_ action: String, options: Options, scopes: [ApiScope], keys: APIKeys) async throws -> Int32 {
        switch action {
        case "create":
            let created = try await keys.create(name: options.string("name") ?? "", scopes: scopes)
            print(created.key)
            printError("payql keys: created \(created.id.uuidString.lowercased()) with \(created.scopes.map(\.rawValue).joined(separator: ", ")); the key is shown only now")
            return 0
        case "list":
            for key in try await keys.list() {
                let state = key.revokedAt.map { "revoked \($0)" } ?? "active"
                print("\(key.id.uuidString.lowercased())  \(key.prefix)…  \(key.scopes.map(\.rawValue).joined(separator: ","))  \(key.createdAt)  \(state)  \(key.name)")
            }
            return 0
        default:
            guard let id = UUID(uuidString: options.positional[1]) else { return 2 }
            guard try await keys.revoke(id: id) else {
                printError("payql keys: no active key \(options.positional[1])")
                return 1
            }
            print("revoked \(id.uuidString.lowercased())")
            return 0
        }
    }
}
