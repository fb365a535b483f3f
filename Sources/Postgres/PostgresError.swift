/// An error from the Postgres target: a failed statement, a lost connection,
/// a pool that could not hand out a connection in time, a value that could
/// not be decoded, a migration that does not match what was applied.
///
/// `code` is small and stable (switch on it); `sqlState` and `message` carry
/// PostgreSQL's own words. Bound values never appear: `query` is the query's
/// description, where every bind prints as `****`.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; match with `==`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case uniqueViolation, foreignKeyViolation, checkViolation, notNullViolation
            case serializationFailure, deadlockDetected, queryCanceled, lockNotAvailable
            case connectionFailure, timeout, poolClosed, invalidInput, decodingFailed
            case migrationFailed, checksumMismatch, embeddedClusterFailed, server, protocolViolation
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// SQLSTATE 23505: a unique or primary-key constraint rejected the row.
        public static let uniqueViolation = Code(.uniqueViolation)
        /// SQLSTATE 23503.
        public static let foreignKeyViolation = Code(.foreignKeyViolation)
        /// SQLSTATE 23514.
        public static let checkViolation = Code(.checkViolation)
        /// SQLSTATE 23502.
        public static let notNullViolation = Code(.notNullViolation)
        /// SQLSTATE 40001: retry the whole transaction (`withTransaction(maxAttempts:)` does).
        public static let serializationFailure = Code(.serializationFailure)
        /// SQLSTATE 40P01: retry the whole transaction.
        public static let deadlockDetected = Code(.deadlockDetected)
        /// SQLSTATE 57014: cancelled by `statement_timeout` or a cancel request.
        public static let queryCanceled = Code(.queryCanceled)
        /// SQLSTATE 55P03 (`NOWAIT`, `lock_timeout`).
        public static let lockNotAvailable = Code(.lockNotAvailable)
        /// The connection could not be opened or was lost (SQLSTATE class 08, or libpq reported it).
        public static let connectionFailure = Code(.connectionFailure)
        /// No connection became available within the pool's acquire timeout.
        public static let timeout = Code(.timeout)
        /// The pool was shut down.
        public static let poolClosed = Code(.poolClosed)
        /// A value PostgreSQL cannot take (e.g. a NUL byte in text), or a bad URL/option; nothing was sent.
        public static let invalidInput = Code(.invalidInput)
        /// A column could not be decoded as the requested Swift type (type mismatch, NULL, bad text).
        public static let decodingFailed = Code(.decodingFailed)
        /// A migration file is malformed or failed to apply.
        public static let migrationFailed = Code(.migrationFailed)
        /// An already-applied migration was edited since it was applied.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// The embedded cluster could not be initialised, started or stopped.
        public static let embeddedClusterFailed = Code(.embeddedClusterFailed)
        /// Any other error reported by the server: see `sqlState`.
        public static let server = Code(.server)
        /// libpq returned something this wrapper does not handle (e.g. COPY).
        public static let protocolViolation = Code(.protocolViolation)

        /// A bounded label, fit for a metric.
        public var description: String { base.rawValue }

        /// The code for a SQLSTATE.
        static func forSQLState(_ state: String) -> Code {
            switch state {
            case "23505": return .uniqueViolation
            case "23503": return .foreignKeyViolation
            case "23514": return .checkViolation
            case "23502": return .notNullViolation
            case "40001": return .serializationFailure
            case "40P01": return .deadlockDetected
            case "57014": return .queryCanceled
            case "55P03": return .lockNotAvailable
            case "57P01", "57P02", "57P03": return .connectionFailure
            default: return state.hasPrefix("08") ? .connectionFailure : .server
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The five-character SQLSTATE when the server (or libpq) gave one.
    public var sqlState: String?
    /// The primary message: libpq's or the server's words, or this wrapper's.
    public var message: String
    /// The server's DETAIL, if any. May echo column values of the failing row.
    public var detail: String?
    /// The server's HINT, if any.
    public var hint: String?
    /// The constraint named by the server (unique/foreign key/check violations).
    public var constraint: String?
    /// The query's description (binds as `****`), when a statement failed.
    public var query: String?

    /// Creates an error.
    public init(
        _ code: Code, message: String, sqlState: String? = nil, detail: String? = nil,
        hint: String? = nil, constraint: String? = nil, query: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.query = query
    }

    /// True for failures worth retrying as a whole transaction (serialization failure, deadlock).
    public var isTransientTransactionFailure: Bool {
        code == .serializationFailure || code == .deadlockDetected
    }

    /// `code: message [SQLSTATE] (query)`; never contains bound values.
    public var description: String {
        var text = "postgres \(code): \(message)"
        if let sqlState { text += " [\(sqlState)]" }
        if let constraint { text += " constraint=\(constraint)" }
        if let query { text += " in query: \(query)" }
        return text
    }
}
