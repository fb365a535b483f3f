import GraphQL
import JSON
import Postgres

/// Collects the Gateway's resolvers, wrapping each field that carries
/// `@requiresScope` with its check (object fields: null + FORBIDDEN field error;
/// root fields are checked before execution, see ``ScopeRequirements``), and
/// answers every root field nobody resolves with a clear NOT_IMPLEMENTED error.
struct ResolverSet {
    private(set) var resolvers = SchemaResolvers()
    private(set) var registered: Set<String> = []
    let scopes: ScopeRequirements

    init(scopes: ScopeRequirements) {
        self.scopes = scopes
        Scalars.register(in: &resolvers)
    }

    /// A synchronous resolver (no waiting).
    mutating func sync(_ type: String, _ field: String, _ body: @escaping @Sendable (ResolveInput) throws -> (any Sendable)?) {
        let guardedBody = guarded(type, field, body)
        add(type, field, .sync { input in
            let value = try guardedBody(input)
            // A batch load runs when awaited: bind the request's database clock around it.
            guard let deferred = value as? Deferred, let account = (input.context as? GatewayRequestContext)?.databaseTime else { return value }
            return Deferred { try await PostgresTimeAccount.$current.withValue(account) { try await deferred.run() } }
        })
    }

    /// An asynchronous resolver.
    mutating func async(_ type: String, _ field: String, _ body: @escaping @Sendable (ResolveInput) async throws -> (any Sendable)?) {
        let required = objectFieldScopes(type, field)
        add(type, field, .async { input in
            if let required { try Self.check(input, required, type, field) }
            let account = (input.context as? GatewayRequestContext)?.databaseTime
            do {
                return try await PostgresTimeAccount.$current.withValue(account) { try await body(input) }
            } catch let error as PostgresError {
                // Never the driver's text (socket paths, SQL) to the client: a clear INTERNAL error.
                throw GatewayRequestError.database(error)
            }
        })
    }

    mutating func resolveType(_ type: String, _ resolver: TypeResolver) { resolvers.resolveType(type, resolver) }

    private mutating func add(_ type: String, _ field: String, _ resolver: FieldResolver) {
        registered.insert("\(type).\(field)")
        resolvers.field(type, field, resolver)
    }

    private func guarded(_ type: String, _ field: String, _ body: @escaping @Sendable (ResolveInput) throws -> (any Sendable)?)
        -> @Sendable (ResolveInput) throws -> (any Sendable)? {
        guard let required = objectFieldScopes(type, field) else { return body }
        return { input in
            try Self.check(input, required, type, field)
            return try body(input)
        }
    }

    /// Scopes of a non-root field (root fields are checked once per operation).
    private func objectFieldScopes(_ type: String, _ field: String) -> Set<ApiScope>? {
        guard !["Query", "Mutation", "Subscription"].contains(type) else { return nil }
        return scopes.fields["\(type).\(field)"]
    }

    private static func check(_ input: ResolveInput, _ required: Set<ApiScope>, _ type: String, _ field: String) throws {
        guard try input.gateway.principal.holdsAny(of: required) else { throw GatewayRequestError.forbidden("\(type).\(field)", required: required) }
    }

    /// Guards the scoped object fields that have no resolver of their own (they read their view's member).
    mutating func guardUnresolvedScopedFields() {
        for (key, _) in scopes.fields where !registered.contains(key) {
            let parts = key.split(separator: ".")
            guard parts.count == 2, !["Query", "Mutation", "Subscription"].contains(String(parts[0])) else { continue }
            let field = String(parts[1])
            sync(String(parts[0]), field) { input in (input.source as? any GraphQLFieldReadable)?.graphQLField(field) }
        }
    }

    /// Every root field of `type` without a resolver fails with NOT_IMPLEMENTED (instead of a puzzling null error).
    mutating func notImplemented(rootFields: [String], of type: String) {
        for field in rootFields where !registered.contains("\(type).\(field)") {
            sync(type, field) { _ in
                throw GatewayRequestError(code: "NOT_IMPLEMENTED", message: "\(type).\(field) is in the contract but not available in this version of PayQL yet.")
            }
        }
    }
}
