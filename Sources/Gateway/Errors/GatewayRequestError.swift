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

    /// A database failure: during an outage (restart, fail-over) a clear "retry"; a client's text that
    /// PostgreSQL cannot hold (U+0000, refused before it is sent, or in JSON) BAD_USER_INPUT — a filter
    /// value with it matches nothing stored and cannot be searched for; otherwise a bare INTERNAL.
    static func database(_ error: PostgresError) -> GatewayRequestError {
        if OutageRetry.isOutage(error) {
            return GatewayRequestError(code: "INTERNAL", message: "The database is unavailable (restarting or unreachable); retry the request with the same idempotency key.")
        }
        if error.code == .invalidInput || error.sqlState == "22P05" || error.sqlState == "22021" {
            return .badInput("A text argument contains the character U+0000, which PayQL cannot store or search for.")
        }
        return .internal("database")
    }

    /// An argument in the right format but unusable (e.g. `first` above 100).
    static func badInput(_ message: String) -> GatewayRequestError {
        GatewayRequestError(code: "BAD_USER_INPUT", message: message)
    }
}
