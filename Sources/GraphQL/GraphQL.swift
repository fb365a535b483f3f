/// PayQL's GraphQL engine: language, schema, validation, execution and
/// introspection, written to the GraphQL specification. Imports the standard
/// library, PayQL's `JSON` values and `Support`'s lock boxes only: no Foundation,
/// no Glibc, no I/O.
///
/// ``GraphQLEngine`` is the front door: one per schema, shared by every request.
public import JSON
import Synchronization

/// One GraphQL request as a client sends it.
public struct GraphQLRequest: Sendable {
    /// The document text.
    public var query: String
    /// The operation to run, when the document holds several.
    public var operationName: String?
    /// The variables' JSON values.
    public var variables: JSONObject

    /// Creates a request.
    public init(query: String, operationName: String? = nil, variables: JSONObject = [:]) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
    }
}

/// The response of one request (`{"errors": [...], "data": {...}}`).
public typealias GraphQLResponse = ExecutionResult

/// Parses (through a bounded document cache), validates and executes requests
/// against one schema.
public final class GraphQLEngine: Sendable {
    /// The schema requests run against.
    public let schema: GraphQLSchema
    /// Parser limits for request documents (size, tokens, depth).
    public let limits: ParserLimits
    /// Parsed and validated documents by text; `nil` disables caching.
    public let cache: DocumentCache?
    /// The most validation errors reported for one document.
    public let maxValidationErrors: Int

    /// Creates an engine; `cacheCapacity` 0 disables the document cache, which
    /// holds at most `cacheCapacity` documents and `cacheMaxBytes` estimated bytes.
    public init(
        schema: GraphQLSchema, limits: ParserLimits = ParserLimits(), cacheCapacity: Int = 1_000,
        cacheMaxBytes: Int = DocumentCache.defaultMaxBytes, maxValidationErrors: Int = 100
    ) {
        self.schema = schema
        self.limits = limits
        self.cache = cacheCapacity > 0 ? DocumentCache(capacity: cacheCapacity, maxBytes: cacheMaxBytes) : nil
        self.maxValidationErrors = maxValidationErrors
    }

    /// The parsed and validated document for `text`, from the cache when possible.
    public func prepare(_ text: String) -> PreparedDocument {
        guard let cache else { return prepareUncached(text) }
        return cache.document(for: text) { prepareUncached(text) }
    }

    /// Parses and validates `text` without the cache.
    public func prepareUncached(_ text: String) -> PreparedDocument {
        let document: Document
        do {
            document = try Parser.parse(text, limits: limits)
        } catch {
            return PreparedDocument(document: nil, errors: [error])
        }
        let errors = validate(schema: schema, document: document, maxErrors: maxValidationErrors)
        return PreparedDocument(document: document, errors: errors)
    }

    /// Runs one request: prepare (cached), select the operation, coerce variables, execute.
    ///
    /// - Parameters:
    ///   - context: the host's per-request value, handed to every resolver.
    ///   - rootValue: the `source` of root fields.
    ///   - loaders: the request's batch loaders (fresh by default).
    public func execute(
        _ request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) async -> GraphQLResponse {
        let prepared = prepare(request.query)
        return await execute(prepared, request: request, context: context, rootValue: rootValue, loaders: loaders)
    }

    /// Runs a request whose document is already prepared (e.g. a persisted query).
    public func execute(
        _ prepared: PreparedDocument,
        request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) async -> GraphQLResponse {
        switch executeImmediately(prepared, request: request, context: context, rootValue: rootValue, loaders: loaders) {
        case .finished(let response): return response
        case .pending(let execution): return await execution.finish()
        }
    }
}

extension GraphQLEngine {
    /// Runs a prepared request as far as it goes without waiting. A query whose
    /// resolvers all return at once is finished here, on the caller's thread, with
    /// no task created; otherwise (async or deferred resolvers, mutations) the
    /// started execution is handed back to be finished in a task. Resolvers run
    /// exactly once either way.
    public func executeImmediately(
        _ prepared: PreparedDocument,
        request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) -> ImmediateExecution {
        guard prepared.errors.isEmpty, let document = prepared.document else {
            return .finished(GraphQLResponse(data: nil, errors: prepared.errors))
        }
        let executionRequest = ExecutionRequest(
            document: document, operationName: request.operationName, variables: request.variables,
            context: context, rootValue: rootValue, loaders: loaders)
        switch startExecution(schema: schema, request: executionRequest, plans: prepared.plans, output: TreeOutput()) {
        case .failed(let errors): return .finished(GraphQLResponse(data: nil, errors: errors))
        case .finished(let executor): return .finished(executor.result())
        case .running(let running): return .pending(PendingExecution(.tree(running)))
        }
    }

    /// ``executeImmediately(_:request:context:rootValue:loaders:)`` writing the
    /// response as JSON while executing, without building a result tree: what a
    /// server should call. `EncodedResponse.body(errorJSON:)` gives the bytes
    /// `JSONWriter.write(response.json)` would give for the tree; a pending
    /// execution is finished with ``PendingExecution/finishEncoded()``.
    public func executeImmediatelyEncoded(
        _ prepared: PreparedDocument,
        request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) -> ImmediateEncodedExecution {
        guard prepared.errors.isEmpty, let document = prepared.document else {
            return .finished(EncodedResponse(errors: prepared.errors))
        }
        let executionRequest = ExecutionRequest(
            document: document, operationName: request.operationName, variables: request.variables,
            context: context, rootValue: rootValue, loaders: loaders)
        switch startExecution(schema: schema, request: executionRequest, plans: prepared.plans, output: ByteOutput.response()) {
        case .failed(let errors): return .finished(EncodedResponse(errors: errors))
        case .finished(let executor): return .finished(executor.encoded())
        case .running(let running): return .pending(PendingExecution(.bytes(running)))
        }
    }

    /// Runs one request (prepared through the cache) to its encoded response.
    public func executeEncoded(
        _ request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) async -> EncodedResponse {
        await executeEncoded(prepare(request.query), request: request, context: context, rootValue: rootValue, loaders: loaders)
    }

    /// Runs a request whose document is already prepared to its encoded response
    /// (the bytes twin of ``execute(_:request:context:rootValue:loaders:)``).
    public func executeEncoded(
        _ prepared: PreparedDocument,
        request: GraphQLRequest,
        context: any Sendable = JSONValue.null,
        rootValue: any Sendable = JSONValue.null,
        loaders: LoaderStore = LoaderStore()
    ) async -> EncodedResponse {
        switch executeImmediatelyEncoded(prepared, request: request, context: context, rootValue: rootValue, loaders: loaders) {
        case .finished(let response): return response
        case .pending(let execution): return await execution.finishEncoded()
        }
    }
}

/// What ``GraphQLEngine/executeImmediately(_:request:context:rootValue:loaders:)`` got to.
public enum ImmediateExecution: Sendable {
    /// The response, computed without waiting.
    case finished(GraphQLResponse)
    /// Work that must be awaited: call ``PendingExecution/finish()`` once.
    case pending(PendingExecution)
}

/// What ``GraphQLEngine/executeImmediatelyEncoded(_:request:context:rootValue:loaders:)`` got to.
public enum ImmediateEncodedExecution: Sendable {
    /// The response, computed without waiting.
    case finished(EncodedResponse)
    /// Work that must be awaited: call ``PendingExecution/finishEncoded()`` once.
    case pending(PendingExecution)
}

/// An execution started synchronously whose remaining work must be awaited.
///
/// The started execution is moved into a mutex at creation (region-checked
/// `sending`) and taken out exactly once, by the one `finish` call that gets it.
public final class PendingExecution: Sendable {
    /// A started execution building a tree or writing bytes.
    enum Started: ~Copyable {
        case tree(RunningExecution<TreeOutput>)
        case bytes(RunningExecution<ByteOutput>)
    }

    /// A `Synchronization.Mutex`, the one in the engine (everything else uses `Support.Locked`):
    /// the execution is noncopyable and not `Sendable`, and Mutex's `sending` transfer is what lets
    /// it be handed from the task that started it to the one that finishes it; no C library's
    /// thread ever touches it, so ThreadSanitizer's blind spot for Mutex (docs/toolchain-facts.md §1)
    /// does not apply.
    private let state: Mutex<Started?>

    init(_ started: consuming sending Started) {
        state = Mutex(started)
    }

    /// Awaits the remaining work and returns the response. A second call gets an error response.
    public func finish() async -> GraphQLResponse {
        guard let started = state.withLock({ $0.take() }) else { return Self.finishedTwice }
        switch consume started {
        case .tree(let running): return await running.finish().result()
        case .bytes(let running): return await running.finish().encoded().result
        }
    }

    /// Awaits the remaining work and returns the response as JSON bytes (see
    /// ``EncodedResponse``). A second call gets an error response.
    public func finishEncoded() async -> EncodedResponse {
        guard let started = state.withLock({ $0.take() }) else { return EncodedResponse(errors: Self.finishedTwice.errors) }
        switch consume started {
        case .tree(let running):
            let result = await running.finish().result()
            guard let data = result.data else { return EncodedResponse(errors: result.errors) }
            var body = Array("{\"data\":".utf8)
            JSONWriter.write(data, into: &body)
            body.append(UInt8(ascii: "}"))
            return EncodedResponse(body: body, errors: result.errors)
        case .bytes(let running):
            return await running.finish().encoded()
        }
    }

    private static let finishedTwice = GraphQLResponse(data: nil, errors: [GraphQLError("This execution was already finished.")])
}

/// Parses, validates and executes one request without a cache (graphql-js `graphql()`).
public func graphql(
    schema: GraphQLSchema,
    request: GraphQLRequest,
    context: any Sendable = JSONValue.null,
    rootValue: any Sendable = JSONValue.null
) async -> GraphQLResponse {
    let engine = GraphQLEngine(schema: schema, cacheCapacity: 0)
    return await engine.execute(request, context: context, rootValue: rootValue)
}
