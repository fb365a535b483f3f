public import GraphQL
public import JSON
import Postgres

/// A top-level GraphQL error with one of the contract's `extensions.code`s
/// (UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED, BAD_USER_INPUT, INTERNAL).
/// Business failures are ``UserError``s in payloads instead.
public struct GatewayRequestError: Error, Sendable, GraphQLReportableError, CustomStringConvertible {
    /// The `extensions.code`.
    public var code: String
    /// The message shown to the client (never a secret, never a SQL text).
    public var message: String

    public var graphQLMessage: String { message }
    public var graphQLExtensions: JSONObject { ["code": .string(code)] }
    public var description: String { "\(code): \(message)" }

    /// The caller's scopes do not include any of `required`.
    static func forbidden(_ what: String, required: Set<ApiScope>) -> GatewayRequestError {
        GatewayRequestError(code: "FORBIDDEN", message: "\(what) needs one of the scopes \(required.sorted().map(\.rawValue).joined(separator: ", ")).")
    }

    /// Something that should not happen; details go to the log, not the client.
    static func `internal`(_ message: String) -> GatewayRequestError {
        GatewayRequestError(code: "INTERNAL", message: "Internal error (\(message)).")
    }

    /// A database failure: during an outage (restart, fail-over) a clear "retry", otherwise a bare INTERNAL.
    static func database(_ error: PostgresError) -> GatewayRequestError {
        OutageRetry.isOutage(error)
            ? GatewayRequestError(code: "INTERNAL", message: "The database is unavailable (restarting or unreachable); retry the request with the same idempotency key.")
            : .internal("database")
    }

    /// An argument in the right format but unusable (e.g. `first` above 100).
    static func badInput(_ message: String) -> GatewayRequestError {
        GatewayRequestError(code: "BAD_USER_INPUT", message: message)
    }
}
