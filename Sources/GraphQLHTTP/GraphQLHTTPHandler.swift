public import GraphQL
public import HTTPServer
public import JSON
public import Metrics
import Support
import Synchronization

/// Serves GraphQL over HTTP (GraphQL-over-HTTP draft, graphql-http audits) plus
/// the operations endpoints `/healthz`, `/readyz`, `/metrics` and `/schema.graphql`.
///
/// Everything before execution — routing, negotiation, decoding, persisted
/// queries, the document cache, validation, limits — runs synchronously, so
/// requests refused there (and the operations endpoints) are answered on the
/// server thread without suspending. With an `.immediate` context provider (the
/// default) execution starts there too: a query whose resolvers all return at
/// once is answered with no task; work that must wait continues in a task.
public final class GraphQLHTTPHandler: HTTPHandler {
    /// The schema served.
    public let schema: GraphQLSchema
    /// How it is served.
    public let configuration: GraphQLHTTPConfiguration
    /// Where request metrics go; others may add theirs to the same registry.
    public let metrics: MetricsRegistry
    /// Persisted documents (register trusted documents here for allow-list mode).
    public let persistedQueries: PersistedQueryStore
    /// The engine: document cache (parsed, validated, with execution plans) and execution.
    public let engine: GraphQLEngine

    let readinessChecks: [ReadinessCheck]
    let contextProvider: GraphQLContextProvider
    let authorizer: OperationAuthorizer?
    private let extensions: ResponseExtensions?
    let executionScope: ExecutionScope?
    let rootValue: any Sendable
    /// Where subscription events come from (nil: subscriptions are refused).
    let broker: (any SubscriptionBroker)?
    /// Subscriptions being streamed (heartbeats, the gauge).
    let liveSubscriptions: OpenSubscriptions
    private let latency: Histogram
    /// GraphQL requests being executed (an atomic, rendered at scrape time).
    private let inFlight = AtomicCount()

    /// A handler for `schema`.
    /// - Parameters:
    ///   - metrics: registry to record into (and to serve at `/metrics`).
    ///   - readiness: checks `/readyz` runs; all must pass.
    ///   - context: builds each request's resolver context (e.g. from its API
    ///     key); throwing refuses the request with that error's status. With an
    ///     `.immediate` provider, queries that need no waiting are answered on the
    ///     server thread.
    ///   - rootValue: what root resolvers receive as `source`.
    ///   - authorizer: checked with the context before each operation runs (scopes per root field).
    ///   - extensions: added to every executed operation's response (needs the async path: set with an `.async` context).
    ///   - executionScope: wraps each execution on the async path (e.g. the database's I/O executor).
    ///   - subscriptions: where subscription events come from; without it, subscriptions are refused.
    public init(
        schema: GraphQLSchema, configuration: GraphQLHTTPConfiguration = .init(), metrics: MetricsRegistry = MetricsRegistry(),
        readiness: [ReadinessCheck] = [],
        context: GraphQLContextProvider = .none,
        rootValue: any Sendable = JSONValue.null,
        authorizer: OperationAuthorizer? = nil,
        extensions: ResponseExtensions? = nil,
        executionScope: ExecutionScope? = nil,
        subscriptions: (any SubscriptionBroker)? = nil
    ) {
        self.schema = schema
        self.configuration = configuration
        self.metrics = metrics
        self.persistedQueries = PersistedQueryStore(
            mode: configuration.persistedQueries, capacity: configuration.persistedQueryCapacity,
            maxBytes: configuration.persistedQueryMaxBytes)
        self.engine = GraphQLEngine(
            schema: schema, limits: configuration.parserLimits, cacheCapacity: max(1, configuration.documentCacheCapacity),
            cacheMaxBytes: configuration.documentCacheMaxBytes)
        self.readinessChecks = readiness
        self.contextProvider = context
        self.rootValue = rootValue
        self.authorizer = authorizer
        self.extensions = extensions
        self.executionScope = executionScope
        self.broker = subscriptions
        self.liveSubscriptions = OpenSubscriptions(heartbeat: configuration.eventStreams.heartbeatInterval)
        let live = self.liveSubscriptions
        metrics.addCollector {
            """
            # HELP payql_subscriptions_open Subscriptions streamed over Server-Sent Events right now.
            # TYPE payql_subscriptions_open gauge
            payql_subscriptions_open \(live.count)
            """
        }
        let latency = metrics.histogram(
            "payql_graphql_request_duration_seconds", help: "GraphQL request latency by operation name and outcome.",
            labels: ["operation", "outcome"])
        self.latency = latency
        // The request counter is read off the histogram's counts: one update per request, not two.
        metrics.addCollector {
            var text = "# HELP payql_graphql_requests_total GraphQL requests by operation name and outcome.\n"
            text += "# TYPE payql_graphql_requests_total counter\n"
            for series in latency.counts() {
                text += "payql_graphql_requests_total\(LabelSet.text(latency.labels, series.labels)) \(series.count)\n"
            }
            return text
        }
        let inFlight = self.inFlight
        metrics.addCollector {
            """
            # HELP payql_graphql_requests_in_flight GraphQL requests being executed.
            # TYPE payql_graphql_requests_in_flight gauge
            payql_graphql_requests_in_flight \(inFlight.value.load(ordering: .relaxed))
            """
        }
        let documents = engine.cache
        metrics.addCollector {
            guard let documents else { return "" }
            let (hits, misses) = documents.statistics
            return """
            # HELP payql_graphql_document_cache_hits_total Documents found already parsed and validated.
            # TYPE payql_graphql_document_cache_hits_total counter
            payql_graphql_document_cache_hits_total \(hits)
            # HELP payql_graphql_document_cache_misses_total Documents parsed and validated.
            # TYPE payql_graphql_document_cache_misses_total counter
            payql_graphql_document_cache_misses_total \(misses)
            # HELP payql_graphql_document_cache_entries Documents held in the cache.
            # TYPE payql_graphql_document_cache_entries gauge
            payql_graphql_document_cache_entries \(documents.count)
            # HELP payql_graphql_document_cache_bytes Estimated bytes held by the document cache (texts, trees, errors, plans).
            # TYPE payql_graphql_document_cache_bytes gauge
            payql_graphql_document_cache_bytes \(documents.bytes)
            # HELP payql_graphql_document_cache_max_bytes The document cache's byte bound.
            # TYPE payql_graphql_document_cache_max_bytes gauge
            payql_graphql_document_cache_max_bytes \(documents.maxBytes)
            # HELP payql_graphql_document_cache_too_large_total Documents prepared but not cached: each alone exceeded the byte bound.
            # TYPE payql_graphql_document_cache_too_large_total counter
            payql_graphql_document_cache_too_large_total \(documents.tooLargeToCache)
            """
        }
        let persisted = persistedQueries
        metrics.addCollector {
            let (registered, automatic) = persisted.count
            let (registeredBytes, automaticBytes) = persisted.bytes
            return """
            # HELP payql_graphql_persisted_queries_entries Persisted documents held, by kind (registered: allow-listed at start; automatic: APQ).
            # TYPE payql_graphql_persisted_queries_entries gauge
            payql_graphql_persisted_queries_entries{kind="registered"} \(registered)
            payql_graphql_persisted_queries_entries{kind="automatic"} \(automatic)
            # HELP payql_graphql_persisted_queries_bytes Bytes counted for persisted documents, by kind (automatic ones are bounded).
            # TYPE payql_graphql_persisted_queries_bytes gauge
            payql_graphql_persisted_queries_bytes{kind="registered"} \(registeredBytes)
            payql_graphql_persisted_queries_bytes{kind="automatic"} \(automaticBytes)
            # HELP payql_graphql_persisted_queries_max_bytes The byte bound of automatic persisted queries.
            # TYPE payql_graphql_persisted_queries_max_bytes gauge
            payql_graphql_persisted_queries_max_bytes \(persisted.maxBytes)
            """
        }
    }

    // MARK: HTTPHandler

    public func respondImmediately(to request: inout HTTPRequest) -> HTTPResponse? {
        if let explorer = explorerResponse(request) { return explorer }
        if request.path == configuration.path {
            let started = request.received
            switch prepare(request) {
            case .respond(let response, let operation, let outcome):
                record(operation: operation, outcome: outcome, since: started)
                return response
            case .execute(let prepared):
                guard case .immediate(let makeContext) = contextProvider, !prepared.eventStream else {
                    request.handoff = Handoff.prepared(prepared)
                    return nil
                }
                switch executeImmediately(prepared, request: request, makeContext: makeContext) {
                case .answered(let response, let outcome):
                    record(prepared.labels, outcome: outcome, since: started)
                    return response
                case .pending(let execution):
                    request.handoff = Handoff.pending(prepared, execution)
                    return nil
                }
            }
        }
        switch request.path {
        case "/readyz" where !readinessChecks.isEmpty: return nil
        default: return operationsEndpoint(request)
        }
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.path == configuration.path else {
            if request.path == "/readyz" { return await readyz(request) }
            return operationsEndpoint(request)
        }
        inFlight.value.add(1, ordering: .relaxed)
        defer { inFlight.value.subtract(1, ordering: .relaxed) }
        switch request.handoff as? Handoff {
        case .prepared(let prepared)? where prepared.eventStream:
            let (response, outcome) = await executeEventStream(prepared, request: request)
            record(prepared.labels, outcome: outcome, since: prepared.started)
            return response
        case .prepared(let prepared)?:
            let (response, outcome) = await execute(prepared, request: request)
            record(prepared.labels, outcome: outcome, since: prepared.started)
            return response
        case .pending(let prepared, let execution)?:
            let (response, outcome) = respond(await execution.finishEncoded(), prepared: prepared)
            record(prepared.labels, outcome: outcome, since: prepared.started)
            return response
        case nil:
            break
        }
        let started = request.received
        switch prepare(request) {
        case .respond(let response, let operation, let outcome):
            record(operation: operation, outcome: outcome, since: started)
            return response
        case .execute(let prepared):
            let (response, outcome) = prepared.eventStream
                ? await executeEventStream(prepared, request: request) : await execute(prepared, request: request)
            record(prepared.labels, outcome: outcome, since: started)
            return response
        }
    }

    // MARK: Steps

    struct Prepared: Sendable {
        /// When the request arrived (its latency is measured from here).
        var started: ContinuousClock.Instant
        var text: String
        var prepared: PreparedDocument
        var parameters: GraphQLRequestParameters
        var mediaType: GraphQLMediaType
        /// The operation's metric labels and log fields (made once per selected operation).
        var labels: OperationLabels
        var summary: OperationSummary
        /// Answered as a Server-Sent Events stream (`Accept: text/event-stream`).
        var eventStream = false

        /// The operation's name for metrics and logs (`anonymous` without one).
        var operationLabel: String { labels.label }

        /// The request as the engine takes it.
        var graphQLRequest: GraphQLRequest {
            GraphQLRequest(query: text, operationName: parameters.operationName, variables: parameters.variables)
        }
    }

    /// What the fast path leaves for `handle(_:)`.
    enum Handoff: Sendable {
        /// Prepared, not executed (the context provider is async).
        case prepared(Prepared)
        /// Started on the server thread; its async work remains.
        case pending(Prepared, PendingExecution)
    }

    enum Immediate {
        case answered(HTTPResponse, outcome: String)
        case pending(PendingExecution)
    }

    enum Preparation {
        case respond(HTTPResponse, operation: String, outcome: String)
        case execute(Prepared)
    }

    func prepare(_ request: HTTPRequest) -> Preparation {
        guard request.method == "GET" || request.method == "POST" else {
            return httpError(GraphQLHTTPError(
                status: 405, code: "METHOD_NOT_ALLOWED", message: "GraphQL is served over GET (queries) and POST.",
                headers: ["allow": "GET, POST"]), mediaType: .json)
        }
        let accept = request.headers["accept"]
        let acceptsEventStream = request.method == "POST" && Self.acceptsEventStream(accept)
        let negotiated = GraphQLMediaType.negotiate(accept: accept)
        guard let mediaType = negotiated ?? (acceptsEventStream ? .graphQLResponseJSON : nil) else {
            return httpError(GraphQLHTTPError(
                status: 406, code: "NOT_ACCEPTABLE",
                message: "Accept must allow application/graphql-response+json or application/json (or text/event-stream, POST)."),
                mediaType: .json)
        }
        let parameters: GraphQLRequestParameters
        do {
            if request.method == "POST" {
                try Self.checkContentType(request.headers["content-type"])
                parameters = try GraphQLRequestParameters.decode(jsonBody: request.body)
            } else {
                parameters = try GraphQLRequestParameters.decode(queryItems: request.queryItems)
            }
        } catch {
            return httpError(error, mediaType: mediaType)
        }
        let label = Self.label(parameters.operationName)
        let resolution: PersistedQueryResolution
        do {
            resolution = try persistedQueries.resolve(parameters)
        } catch {
            switch error {
            case .http(let failure): return httpError(failure, mediaType: mediaType, operation: label)
            case .request(let failure): return requestError([failure.errorJSON], mediaType: mediaType, operation: label)
            }
        }
        let text = resolution.text
        let prepared = engine.prepare(text)
        guard let document = prepared.document else {
            return requestError(prepared.errors.map { annotate($0, code: "GRAPHQL_PARSE_FAILED") }, mediaType: mediaType, operation: label)
        }
        if !prepared.errors.isEmpty {
            return requestError(prepared.errors.map { annotate($0, code: "GRAPHQL_VALIDATION_FAILED") }, mediaType: mediaType, operation: label)
        }
        // The engine selects the operation once per (document, name) and keeps it with the
        // document; its measure and root fields are remembered on it as this layer's note.
        let resolved: KnownOperation
        switch prepared.selectOperation(named: parameters.operationName, schema: schema) {
        case .success(let selected):
            resolved = known(selected, in: document, variables: parameters.variables)
        case .failure(let error):
            return requestError([annotate(error, code: "OPERATION_RESOLUTION_FAILURE")], mediaType: mediaType, operation: label)
        }
        let kind = resolved.kind
        let measure = resolved.measure
        let operationLabel = resolved.labels.label
        if request.method == "GET", kind != .query {
            return httpError(GraphQLHTTPError(
                status: 405, code: "METHOD_NOT_ALLOWED",
                message: "Only queries may be sent with GET; send \(kind.rawValue) operations with POST.",
                headers: ["allow": "POST"]), mediaType: mediaType, operation: operationLabel)
        }
        // Subscriptions stream over SSE; queries and mutations do when the client takes nothing else.
        let eventStream = acceptsEventStream && (kind == .subscription || negotiated == nil)
        if kind == .subscription, !eventStream || broker == nil {
            return requestError([GraphQLHTTPError(
                status: 400, code: "SUBSCRIPTIONS_NOT_SUPPORTED",
                message: broker == nil ? "Subscriptions are not served by this server."
                    : "Subscriptions are served over Server-Sent Events only: POST with Accept: text/event-stream.").errorJSON],
                mediaType: mediaType, operation: operationLabel)
        }
        if !configuration.introspection, measure.selectsSchemaIntrospection {
            return requestError([GraphQLHTTPError(
                status: 400, code: "INTROSPECTION_DISABLED",
                message: "GraphQL introspection with __schema is not allowed on this server; __type still works.").errorJSON],
                mediaType: mediaType, operation: operationLabel)
        }
        if let exceeded = OperationAnalysis.check(measure, against: configuration.operationLimits) {
            return requestError([exceeded.errorJSON], mediaType: mediaType, operation: operationLabel)
        }
        // Only now, parsed, validated and within the limits, may an offered APQ text be kept.
        if let offered = resolution.offered { persistedQueries.store(offered) }
        return .execute(Prepared(
            started: request.received, text: text, prepared: prepared, parameters: parameters, mediaType: mediaType, labels: resolved.labels,
            summary: OperationSummary(kind: kind, rootFields: resolved.rootFields), eventStream: eventStream))
    }

    /// What this layer remembers about a selected operation (the engine keeps it with
    /// the operation, so it lives exactly as long as the cached document).
    struct KnownOperation: Sendable {
        var kind: OperationType
        /// The operation's own name (nil for an anonymous one).
        var name: String?
        var measure: OperationMeasure
        /// The root fields selected, for the authorizer.
        var rootFields: [String]
        /// Its metric labels and log fields. A selected operation's name is the one requested
        /// (an anonymous one is selected only when no name is requested), so they are its own.
        var labels: OperationLabels
    }

    /// The operation's kind, name, measure and root fields: remembered from an earlier
    /// request while the variables that gave list sizes have the same values, else
    /// measured now and remembered for the next request.
    private func known(_ selected: SelectedOperation, in document: Document, variables: JSONObject) -> KnownOperation {
        if let known = selected.note(as: KnownOperation.self),
           known.measure.sizeVariables.members.allSatisfy({ OperationAnalysis.sizeKey(variables[$0]) == $1 }) {
            return known
        }
        let operation = selected.operation
        let measure = OperationAnalysis.measure(
            operation, in: document, schema: schema, variables: variables, limits: configuration.operationLimits)
        let name = operation.name?.value
        let known = KnownOperation(kind: selected.kind, name: name, measure: measure,
                                   rootFields: OperationSummary.rootFields(of: operation, in: document),
                                   labels: selected.note(as: KnownOperation.self)?.labels ?? OperationLabels(label: Self.label(name)))
        selected.remember(known)
        return known
    }

    /// Executes on the calling (server) thread as far as the operation goes without waiting.
    private func executeImmediately(
        _ prepared: Prepared, request: HTTPRequest,
        makeContext: @Sendable (HTTPRequest) throws(GraphQLHTTPError) -> any Sendable
    ) -> Immediate {
        let context: any Sendable
        do {
            context = try makeContext(request)
        } catch {
            let failure = Self.respondHTTPError(error, mediaType: prepared.mediaType, operation: prepared.operationLabel)
            return .answered(failure, outcome: error.status >= 500 ? "server_error" : "request_error")
        }
        if let refusal = authorizer?.check(context, prepared.summary, request) {
            return .answered(Self.respondHTTPError(refusal, mediaType: prepared.mediaType, operation: prepared.operationLabel), outcome: "request_error")
        }
        inFlight.value.add(1, ordering: .relaxed)
        defer { inFlight.value.subtract(1, ordering: .relaxed) }
        let started = engine.executeImmediatelyEncoded(
            prepared.prepared, request: prepared.graphQLRequest, context: context, rootValue: rootValue)
        switch started {
        case .finished(let result):
            let (response, outcome) = respond(result, prepared: prepared)
            return .answered(response, outcome: outcome)
        case .pending(let execution):
            return .pending(execution)
        }
    }

    /// The request's context for `prepared`, or the answer refusing it (authentication
    /// failed, or the authorizer does not allow the operation) with its outcome label.
    enum Admission {
        case allowed(any Sendable)
        case refused(HTTPResponse, outcome: String)
    }

    /// Authenticates the request and checks the operation against the authorizer.
    func admit(_ prepared: Prepared, request: HTTPRequest) async -> Admission {
        let context: any Sendable
        do {
            context = try await contextProvider.context(for: request)
        } catch {
            let failure = Self.respondHTTPError(error, mediaType: prepared.mediaType, operation: prepared.operationLabel)
            return .refused(failure, outcome: error.status >= 500 ? "server_error" : "request_error")
        }
        if let refusal = authorizer?.check(context, prepared.summary, request) {
            return .refused(Self.respondHTTPError(refusal, mediaType: prepared.mediaType, operation: prepared.operationLabel),
                            outcome: "request_error")
        }
        return .allowed(context)
    }

    func execute(_ prepared: Prepared, request: HTTPRequest) async -> (HTTPResponse, String) {
        let context: any Sendable
        switch await admit(prepared, request: request) {
        case .allowed(let admitted): context = admitted
        case .refused(let response, let outcome): return (response, outcome)
        }
        let engine = self.engine
        let rootValue = self.rootValue
        let result: EncodedResponse
        if let executionScope {
            result = await executionScope.run {
                await engine.executeEncoded(prepared.prepared, request: prepared.graphQLRequest, context: context, rootValue: rootValue)
            }
        } else {
            result = await engine.executeEncoded(prepared.prepared, request: prepared.graphQLRequest, context: context, rootValue: rootValue)
        }
        var (response, outcome) = respond(result, prepared: prepared)
        extensions?.apply(context, ContinuousClock.now - prepared.started, to: &response.body)
        return (response, outcome)
    }

    /// Turns an execution's encoded response into the HTTP response: no `data`
    /// means a request error (variable coercion, ...), 400 under graphql-response+json.
    /// The bytes written during execution are sent as they are (no result tree).
    func respond(_ result: EncodedResponse, prepared: Prepared) -> (HTTPResponse, String) {
        let outcome: String
        let body: [UInt8]
        if result.hasData {
            outcome = result.errors.isEmpty ? "ok" : "errors"
            body = result.body { self.sanitize($0.jsonValue) }
        } else {
            outcome = "request_error"
            body = result.body { self.annotate($0, code: "BAD_USER_INPUT") }
        }
        let status = !result.hasData && prepared.mediaType == .graphQLResponseJSON ? 400 : 200
        var response = HTTPResponse(status: status, headers: prepared.mediaType.responseHeaders, body: body)
        response.logFields = prepared.labels.logFields
        return (response, outcome)
    }

    /// The error as JSON with `extensions.code` set (kept when present); suggestions removed when introspection is off.
    func annotate(_ error: GraphQLError, code: String) -> JSONValue {
        var error = error
        if error.extensions["code"] == nil { error.extensions["code"] = .string(code) }
        return sanitize(error.jsonValue)
    }

    func sanitize(_ error: JSONValue) -> JSONValue {
        guard !configuration.introspection, case .object(var object) = error,
              case .string(let message)? = object["message"], let cut = message.utf8.firstRange(of: " Did you mean".utf8) else { return error }
        object["message"] = .string(String(decoding: message.utf8[..<cut.lowerBound], as: UTF8.self))
        return .object(object)
    }

    private func requestError(_ errors: [JSONValue], mediaType: GraphQLMediaType, operation: String = "anonymous") -> Preparation {
        var response = HTTPResponse(
            status: mediaType == .graphQLResponseJSON ? 400 : 200, headers: mediaType.responseHeaders,
            body: JSONWriter.write(["errors": .array(errors)]))
        response.logFields = [("operation", operation)]
        return .respond(response, operation: operation, outcome: "request_error")
    }

    private func httpError(_ error: GraphQLHTTPError, mediaType: GraphQLMediaType, operation: String = "anonymous") -> Preparation {
        .respond(Self.respondHTTPError(error, mediaType: mediaType, operation: operation), operation: operation,
                 outcome: error.status >= 500 ? "server_error" : "request_error")
    }

    static func respondHTTPError(_ error: GraphQLHTTPError, mediaType: GraphQLMediaType, operation: String) -> HTTPResponse {
        var headers: HTTPHeaders = ["content-type": mediaType.contentType]
        for field in error.headers { headers.add(name: field.name, value: field.value) }
        var response = HTTPResponse(status: error.status, headers: headers, body: JSONWriter.write(["errors": [error.errorJSON]]))
        response.logFields = [("operation", operation)]
        return response
    }

    /// POST bodies must be `application/json`, UTF-8 (the default) if a charset is given.
    static func checkContentType(_ value: String?) throws(GraphQLHTTPError) {
        if value == "application/json" || value == "application/json; charset=utf-8" { return }
        guard let value, !value.trimmedWhitespace.isEmpty else {
            throw GraphQLHTTPError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: "POST requests need Content-Type: application/json.")
        }
        let media = MediaRange(value)
        guard media.type == "application", media.subtype == "json" else {
            throw GraphQLHTTPError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE",
                                   message: "Unsupported Content-Type; POST requests must be application/json.")
        }
        if let charset = media.charset, charset != "utf-8", charset != "utf8" {
            throw GraphQLHTTPError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: "Only the utf-8 charset is supported.")
        }
    }

    private static func label(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "anonymous" }
        return name
    }

    private func record(operation: String, outcome: String, since started: ContinuousClock.Instant) {
        latency.observe(Self.seconds(since: started), [operation, outcome])
    }

    /// ``record(operation:outcome:since:)`` with the executed operation's prebuilt label arrays (no array per request).
    private func record(_ labels: OperationLabels, outcome: String, since started: ContinuousClock.Instant) {
        latency.observe(Self.seconds(since: started), labels.values(outcome: outcome))
    }

    private static func seconds(since started: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// An operation's label for metrics and logs with the arrays recording a request needs,
/// made once when the operation is first selected and kept with it (see
/// ``GraphQLHTTPHandler/KnownOperation``): a request then records its latency and log
/// fields without allocating them.
final class OperationLabels: Sendable {
    /// The operation's name, `anonymous` without one.
    let label: String
    /// `operation=<label>` for the request log.
    let logFields: [(name: String, value: String)]
    /// `[label, outcome]` for each outcome in ``outcomes``, in that order.
    private let byOutcome: [[String]]
    /// The outcomes a request records.
    static let outcomes = ["ok", "errors", "request_error", "server_error"]

    init(label: String) {
        self.label = label
        logFields = [("operation", label)]
        byOutcome = Self.outcomes.map { [label, $0] }
    }

    /// The latency histogram's label values for `outcome`.
    func values(outcome: String) -> [String] {
        for (index, known) in Self.outcomes.enumerated() where known == outcome { return byOutcome[index] }
        return [label, outcome]
    }
}
