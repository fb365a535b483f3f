public import HTTPServer
import JSON

/// Builds each GraphQL request's resolver context (for instance the caller
/// resolved from its API key). Throwing refuses the request with that error's
/// status and code.
public enum GraphQLContextProvider: Sendable {
    /// A context computed without waiting. Queries whose resolvers all return at
    /// once are then executed and answered on the server thread, with no task.
    case immediate(@Sendable (HTTPRequest) throws(GraphQLHTTPError) -> any Sendable)
    /// A context that needs to wait (a database or network look-up): every
    /// request is executed in a task.
    case async(@Sendable (HTTPRequest) async throws(GraphQLHTTPError) -> any Sendable)

    /// `JSONValue.null` for every request.
    public static let none = GraphQLContextProvider.immediate { _ in JSONValue.null }

    /// The context for `request`.
    func context(for request: HTTPRequest) async throws(GraphQLHTTPError) -> any Sendable {
        switch self {
        case .immediate(let make): return try make(request)
        case .async(let make): return try await make(request)
        }
    }
}
