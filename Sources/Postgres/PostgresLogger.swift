/// Where the Postgres target reports what it does. Passed in by the caller
/// (the executable decides the format); never created inside the library.
/// Messages never contain passwords or bound values.
public struct PostgresLogger: Sendable {
    /// Severity.
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        /// Severity order: debug < info < warning < error.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let handler: (@Sendable (Level, String) -> Void)?

    /// A logger that hands each message to `handler`.
    public init(_ handler: @escaping @Sendable (Level, String) -> Void) { self.handler = handler }

    private init() { handler = nil }

    /// Discards everything.
    public static let disabled = PostgresLogger()

    func log(_ level: Level, _ message: @autoclosure () -> String) {
        handler?(level, message())
    }
}
