internal import CLibPQ

/// What a server answered to `PQpingParams` (libpq's `pg_isready`): a real
/// start-up handshake on the socket, not a look at a pid file.
enum ServerPing: Equatable {
    /// Accepting connections.
    case accepting
    /// Up but refusing connections for now (starting, recovering, shutting down).
    case rejecting
    /// Nothing answered (no server on that socket), or the parameters were unusable.
    case noResponse

    /// Pings the server on `socketDirectory`/`port` as `user`, waiting at most about two seconds.
    /// Runs on a thread of its own: libpq blocks while it connects.
    static func ping(socketDirectory: String, port: Int, user: String) async -> ServerPing {
        let parameters = [
            ("host", socketDirectory), ("port", String(port)), ("user", user), ("dbname", "postgres"), ("connect_timeout", "2"),
        ]
        return await onDedicatedThread(name: "payql-postgres-ping") {
            let answer = withCStrings(parameters.map(\.0)) { keywords in
                withCStrings(parameters.map(\.1)) { values in PQpingParams(keywords, values, 0) }
            }
            switch answer {
            case PQPING_OK: return .accepting
            case PQPING_REJECT: return .rejecting
            default: return .noResponse
            }
        }
    }
}
