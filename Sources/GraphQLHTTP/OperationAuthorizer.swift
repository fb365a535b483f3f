public import GraphQL
public import HTTPServer
public import JSON

/// What an authorizer sees of an operation before it runs.
public struct OperationSummary: Sendable, Equatable {
    /// Query, mutation or subscription.
    public var kind: OperationType
    /// The root fields it selects (through fragments too), each once, in document order; `__typename` excluded.
    public var rootFields: [String]

    /// Creates the value from its fields.
    public init(kind: OperationType, rootFields: [String]) {
        self.kind = kind
        self.rootFields = rootFields
    }

    /// The root field names `operation` selects in `document`, following fragment
    /// spreads and inline fragments (validated documents have no fragment cycles;
    /// a spread is still visited once).
    static func rootFields(of operation: OperationDefinition, in document: Document) -> [String] {
        var fragments: [String: FragmentDefinition] = [:]
        for definition in document.definitions {
            if case .fragment(let fragment) = definition { fragments[fragment.name.value] = fragment }
        }
        var names: [String] = []
        var seen: Set<String> = []
        var visited: Set<String> = []
        func walk(_ selectionSet: SelectionSet) {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field):
                    let name = field.name.value
                    if !name.hasPrefix("__"), seen.insert(name).inserted { names.append(name) }
                case .inlineFragment(let inline):
                    walk(inline.selectionSet)
                case .fragmentSpread(let spread):
                    guard visited.insert(spread.name.value).inserted, let fragment = fragments[spread.name.value] else { continue }
                    walk(fragment.selectionSet)
                }
            }
        }
        walk(operation.selectionSet)
        return names
    }
}

/// Decides, once per request and before execution, whether the caller may run the
/// operation (e.g. API-key scopes per root field). Returning an error refuses the
/// whole operation with that error's status and code; nothing is executed.
public struct OperationAuthorizer: Sendable {
    let check: @Sendable (_ context: any Sendable, _ operation: OperationSummary, _ request: HTTPRequest) -> GraphQLHTTPError?

    /// An authorizer running `check` with the request's resolver context.
    public init(_ check: @escaping @Sendable (_ context: any Sendable, _ operation: OperationSummary, _ request: HTTPRequest) -> GraphQLHTTPError?) {
        self.check = check
    }
}

/// Adds an `extensions` entry to each executed operation's response, computed from
/// the request's context once execution is over (e.g. timings). Returning nil adds nothing.
public struct ResponseExtensions: Sendable {
    /// Writes the members of the `extensions` object (`"name":value,...`) at the end of
    /// the body; false when it wrote nothing.
    typealias MemberWriter = @Sendable (_ context: any Sendable, _ elapsed: Duration, _ body: inout [UInt8]) -> Bool

    let make: (@Sendable (_ context: any Sendable, _ elapsed: Duration) -> JSONObject?)?
    let writeMembers: MemberWriter?

    /// Extensions from the context and the time since the request arrived.
    public init(_ make: @escaping @Sendable (_ context: any Sendable, _ elapsed: Duration) -> JSONObject?) {
        self.make = make
        self.writeMembers = nil
    }

    /// Extensions written as JSON straight into the response body (no objects built
    /// per request): `write` appends the members of the `extensions` object,
    /// `"name":value` separated by commas, and returns false when it adds none (it
    /// must then append nothing). The caller checks nothing of what is written: it
    /// must be valid JSON.
    public init(writingMembers write: @escaping @Sendable (_ context: any Sendable, _ elapsed: Duration, _ body: inout [UInt8]) -> Bool) {
        self.make = nil
        self.writeMembers = write
    }

    /// Adds this request's `extensions` to `body` (a JSON object) before its closing brace,
    /// in place: the engine leaves room at the end of the body for it (the response is
    /// not copied for it: this runs for every executed operation).
    func apply(_ context: any Sendable, _ elapsed: Duration, to body: inout [UInt8]) {
        if let make {
            if let added = make(context, elapsed) { Self.append(added, to: &body) }
            return
        }
        guard let writeMembers, body.last == UInt8(ascii: "}") else { return }
        let end = body.count
        body.removeLast()
        if body.count > 1 { body.append(UInt8(ascii: ",")) }
        body.append(contentsOf: "\"extensions\":{".utf8)
        if writeMembers(context, elapsed, &body) {
            body.append(contentsOf: "}}".utf8)
        } else {
            body.removeLast(body.count - (end - 1))
            body.append(UInt8(ascii: "}"))
        }
    }

    /// Adds `"extensions": extensions` to `body` (a JSON object) before its closing brace, in
    /// place (the response body is not copied for it: this runs for every executed operation).
    static func append(_ extensions: JSONObject, to body: inout [UInt8]) {
        guard body.last == UInt8(ascii: "}") else { return }
        body.removeLast()
        if body.count > 1 { body.append(UInt8(ascii: ",")) }
        body.append(contentsOf: "\"extensions\":".utf8)
        JSONWriter.write(.object(extensions), into: &body)
        body.append(UInt8(ascii: "}"))
    }
}

/// Runs each operation's execution inside a scope the host chooses — e.g. on the
/// database pool's I/O executor, so resolvers that mostly wait for PostgreSQL
/// make no thread hop per statement.
public struct ExecutionScope: Sendable {
    let run: @Sendable (_ body: @Sendable () async -> EncodedResponse) async -> EncodedResponse

    /// A scope calling `run` with the execution to perform.
    public init(_ run: @escaping @Sendable (_ body: @Sendable () async -> EncodedResponse) async -> EncodedResponse) {
        self.run = run
    }
}
