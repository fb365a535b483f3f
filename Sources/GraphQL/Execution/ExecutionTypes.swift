public import JSON

/// The result of executing an operation: `data` and the errors met on the way.
public struct ExecutionResult: Sendable, Equatable {
    /// The data; `nil` when execution did not start (request errors), `.null` when a
    /// non-null root field failed.
    public var data: JSONValue?
    /// Errors in the order they were found.
    public var errors: [GraphQLError]

    /// Creates a result.
    public init(data: JSONValue?, errors: [GraphQLError] = []) {
        self.data = data
        self.errors = errors
    }

    /// The response map, `errors` first when present (as graphql-js serialises it).
    public var json: JSONValue {
        var object = JSONObject(capacity: 2)
        if !errors.isEmpty { object.append("errors", .array(errors.map(\.jsonValue))) }
        if let data { object.append("data", data) }
        return .object(object)
    }
}

/// An error a resolver can throw to control its GraphQL error's message and
/// `extensions` (for example `extensions.code`). Any other error is reported
/// with `String(describing:)` as its message.
public protocol GraphQLReportableError: Error {
    /// The message shown to the client.
    var graphQLMessage: String { get }
    /// The error's `extensions` entry.
    var graphQLExtensions: JSONObject { get }
}

/// What the executor needs about one request.
public struct ExecutionRequest: Sendable {
    /// The (valid) document.
    public var document: Document
    /// The operation to run; required when the document holds several.
    public var operationName: String?
    /// The raw variable values (coerced against the operation's definitions).
    public var variables: JSONObject
    /// The host's per-request context, handed to every resolver.
    public var context: any Sendable
    /// The value root fields get as `source`.
    public var rootValue: any Sendable
    /// The request's batch loaders (a fresh store by default).
    public var loaders: LoaderStore

    /// Creates a request.
    public init(
        document: Document,
        operationName: String? = nil,
        variables: JSONObject = [:],
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) {
        self.document = document
        self.operationName = operationName
        self.variables = variables
        self.context = context
        self.rootValue = rootValue
        self.loaders = loaders
    }
}

/// An error raised while completing a field's value; becomes a located GraphQL error.
struct FieldError: Error {
    var message: String
    var extensions: JSONObject = [:]

    init(_ message: String, extensions: JSONObject = [:]) {
        self.message = message
        self.extensions = extensions
    }

    init(wrapping error: any Error) {
        switch error {
        case let field as FieldError: self = field
        case let graphQL as GraphQLError: self.init(graphQL.message, extensions: graphQL.extensions)
        case let reportable as any GraphQLReportableError: self.init(reportable.graphQLMessage, extensions: reportable.graphQLExtensions)
        case let coercion as ScalarCoercionError: self.init(coercion.message)
        default: self.init(String(describing: error))
        }
    }
}

/// Several request errors at once (for example every invalid variable).
public struct GraphQLRequestErrors: Error, Sendable, Equatable {
    /// The errors, in the order found.
    public var errors: [GraphQLError]

    /// Wraps errors.
    public init(errors: [GraphQLError]) { self.errors = errors }
}
