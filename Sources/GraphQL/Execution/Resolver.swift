public import JSON

/// Computes a field's value from its parent value (`source`), its coerced
/// arguments and the request's context.
///
/// A `.sync` resolver runs inline: no task, no suspension. It may still hand
/// back ``Deferred`` work (for instance from ``BatchLoader/load(_:)``), which the
/// executor awaits together with the other pending fields of the request, so a
/// list of N items loading a related object makes one batch call, not N.
/// An `.async` resolver always becomes pending work.
public struct FieldResolver: Sendable {
    enum Body: Sendable {
        case sync(@Sendable (ResolveInput) throws -> (any Sendable)?)
        case async(@Sendable (ResolveInput) async throws -> (any Sendable)?)
    }

    let body: Body

    /// A resolver that returns its value (or a ``Deferred``) immediately.
    public static func sync(_ body: @escaping @Sendable (ResolveInput) throws -> (any Sendable)?) -> FieldResolver {
        FieldResolver(body: .sync(body))
    }

    /// A resolver that may suspend.
    public static func async(_ body: @escaping @Sendable (ResolveInput) async throws -> (any Sendable)?) -> FieldResolver {
        FieldResolver(body: .async(body))
    }
}

/// A value that is not known yet: the executor runs `run` concurrently with the
/// request's other pending work. Returned by sync resolvers (and allowed as a list
/// item) to defer without paying for an async call when the value is at hand.
public struct Deferred: Sendable {
    /// Produces the value; `nil` means null.
    public let run: @Sendable () async throws -> (any Sendable)?

    /// Wraps async work.
    public init(_ run: @escaping @Sendable () async throws -> (any Sendable)?) { self.run = run }
}

/// Picks the concrete object type of a value of an interface or union type:
/// returns the object type's name. Without a resolver the executor reads a
/// `__typename` property (`JSONValue` objects, `[String: any Sendable]`) or asks
/// ``GraphQLTypeNamed``.
public struct TypeResolver: Sendable {
    let body: @Sendable (_ value: any Sendable, _ info: ResolveInfo) throws -> String?

    /// Creates a type resolver.
    public init(_ body: @escaping @Sendable (_ value: any Sendable, _ info: ResolveInfo) throws -> String?) {
        self.body = body
    }
}

/// A resolver value that knows its GraphQL object type (used for interfaces and unions).
public protocol GraphQLTypeNamed: Sendable {
    /// The name of the object type this value is an instance of.
    var graphQLTypeName: String { get }
}

/// A resolver value whose fields the default resolver can read by name.
public protocol GraphQLFieldReadable: Sendable {
    /// The value of field `name`, or `nil` for null.
    func graphQLField(_ name: String) -> (any Sendable)?
}

/// Everything a resolver gets: the parent value, the arguments and the request.
public struct ResolveInput: Sendable {
    /// The parent object's value (for root fields, the executor's root value).
    public let source: any Sendable
    /// The field's arguments, coerced to their types, defaults applied, in definition order.
    public let arguments: JSONObject
    /// Details about the field and the request.
    public let info: ResolveInfo

    /// The host's per-request context (for example the authenticated principal).
    public var context: any Sendable { info.request.context }

    /// The per-request batch loaders.
    public var loaders: LoaderStore { info.request.loaders }

    /// The argument `name`, or `nil` when absent or null.
    public subscript(argument name: String) -> JSONValue? {
        guard let value = arguments[name], value != .null else { return nil }
        return value
    }
}

/// Details about the field being resolved.
public struct ResolveInfo: Sendable {
    /// A view of the field's plan, kept valid by ``owner``.
    let field: FieldPlan
    /// The operation's plan, which owns ``field``'s storage: held for as long as a resolver keeps this value.
    let owner: OperationPlan
    /// Where the value goes in the response.
    public let path: ResponsePath
    let request: RequestScope

    /// The field's name in the schema.
    public var fieldName: String { field.fieldName }
    /// The parent object type's name.
    public var parentType: String { field.parentTypeName }
    /// The field's type.
    public var returnType: GraphQLTypeReference { field.type }
    /// The schema being executed.
    public var schema: GraphQLSchema { request.schema }
    /// The operation's coerced variable values.
    public var variables: JSONObject { request.variables }
    /// The host's per-request context.
    public var context: any Sendable { request.context }
    /// The field's key in the response (its alias, or its name).
    public var responseKey: String { field.responseKey }
    /// The field nodes merged into this response key, in document order (for look-ahead).
    public var fieldNodes: [Field] { field.nodes }
}

/// A position in the response: field keys and list indices from the root.
public final class ResponsePath: Sendable {
    /// The enclosing path; `nil` at the root field.
    public let parent: ResponsePath?
    /// This step.
    public let key: PathElement
    /// The executor's encoding of the step (a list index, or a negative field plan number).
    let step: Int

    /// Creates a path step.
    public init(parent: ResponsePath?, key: PathElement) {
        self.parent = parent
        self.key = key
        self.step = Int.min
    }

    init(parent: ResponsePath?, key: PathElement, step: Int) {
        self.parent = parent
        self.key = key
        self.step = step
    }

    /// The steps from the root, as they appear in an error's `path`.
    public var components: [PathElement] {
        var keys: [PathElement] = []
        var node: ResponsePath? = self
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    /// The path as JSON (`["order", "payments", 0, "id"]`).
    public var json: JSONValue {
        .array(components.map {
            switch $0 {
            case .key(let name): return .string(name)
            case .index(let index): return .int(Int64(index))
            }
        })
    }
}

/// Per-request state shared by every resolver of one execution.
final class RequestScope: Sendable {
    let schema: GraphQLSchema
    let context: any Sendable
    let variables: JSONObject
    let loaders: LoaderStore

    init(schema: GraphQLSchema, context: any Sendable, variables: JSONObject, loaders: LoaderStore) {
        self.schema = schema
        self.context = context
        self.variables = variables
        self.loaders = loaders
    }
}
