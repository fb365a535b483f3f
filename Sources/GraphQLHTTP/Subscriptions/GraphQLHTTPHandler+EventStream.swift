import GraphQL
import HTTPServer
import JSON
import Support
import Synchronization

/// GraphQL over Server-Sent Events, "distinct connections" mode (graphql-sse's
/// PROTOCOL.md): `POST /graphql` with `Accept: text/event-stream` answers
/// `text/event-stream`, one `event: next` per execution result and `event: complete`
/// at the end. Errors found before the stream starts (authentication, scopes,
/// validation, limits, too many subscriptions) are ordinary GraphQL-over-HTTP
/// responses with their status, so that a client sees a refusal as one.
extension GraphQLHTTPHandler {
    /// Whether `Accept` lists `text/event-stream` with a non-zero q-value.
    static func acceptsEventStream(_ accept: String?) -> Bool {
        guard let accept, accept.utf8.count >= 17 else { return false }
        if accept == "text/event-stream" { return true }
        for range in accept.split(separator: ",") {
            let media = MediaRange(String(range))
            if media.type == "text", media.subtype == "event-stream", media.q > 0 { return true }
        }
        return false
    }

    /// The headers of every event stream.
    static let eventStreamHeaders: HTTPHeaders = [
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        // Proxies such as nginx would otherwise buffer the events.
        "x-accel-buffering": "no",
    ]

    /// Runs `prepared` as an event stream: a subscription stays open and is executed
    /// again after each event its root resolver watches; a query or mutation sends its
    /// one result and completes.
    func executeEventStream(_ prepared: Prepared, request: HTTPRequest) async -> (HTTPResponse, String) {
        let context: any Sendable
        switch await admit(prepared, request: request) {
        case .allowed(let admitted): context = admitted
        case .refused(let response, let outcome): return (response, outcome)
        }
        let stream = HTTPResponseStream(maxBufferedBytes: configuration.eventStreams.maxBufferedBytes)
        var response = HTTPResponse.streaming(headers: Self.eventStreamHeaders, stream: stream)
        response.logFields = [("operation", prepared.operationLabel)]
        guard prepared.summary.kind == .subscription, let broker else {
            let (body, outcome) = encode(await run(prepared, context: context, rootValue: rootValue), prepared: prepared)
            stream.write(EventStreamFormat.next(body))
            stream.write(EventStreamFormat.complete)
            stream.finish()
            return (response, outcome)
        }
        let live = liveSubscriptions
        let subscription = LiveSubscription(context: context, rootFields: prepared.summary.rootFields, stream: stream) { subscription in
            await self.runLive(subscription, prepared: prepared)
        }
        do {
            try broker.admit(subscription)
        } catch {
            _ = subscription.markEnded()
            return (Self.respondHTTPError(error, mediaType: prepared.mediaType, operation: prepared.operationLabel),
                    error.status >= 500 ? "server_error" : "request_error")
        }
        subscription.setWatcher { topic, subscription in broker.watch(topic, for: subscription) }
        live.add(subscription)
        // Whatever ends the stream (complete, the client leaving, a slow reader, shutdown) ends the subscription.
        stream.setOnClose { _ in
            _ = subscription.markEnded()
            live.remove(subscription)
            broker.remove(subscription)
        }
        await subscription.runFirst()
        return (response, "ok")
    }

    /// One execution of a live subscription, written as `next`; `complete` follows when
    /// its resolver said the object is final, watched nothing, or the first result has no
    /// data (refused: unknown id, another customer's object — nothing to wait for). A later
    /// failed re-read (the database restarting) is sent and the stream stays open.
    func runLive(_ subscription: LiveSubscription, prepared: Prepared) async {
        guard !subscription.isEnded else { return }
        let result = await run(prepared, context: subscription.context, rootValue: subscription)
        guard !subscription.isEnded else { return }
        let (body, _) = encode(result, prepared: prepared)
        guard subscription.stream.write(EventStreamFormat.next(body)) == .written else { return }
        let first = subscription.countResult()
        let refused = first && !result.errors.isEmpty && (result.data.map { Array($0) == Array("null".utf8) } ?? true)
        if subscription.takeCompleteRequest() || subscription.topics.isEmpty || refused {
            subscription.end(error: nil)
        }
    }

    /// Executes on the execution scope (if any).
    func run(_ prepared: Prepared, context: any Sendable, rootValue: any Sendable) async -> EncodedResponse {
        let engine = self.engine
        let request = prepared.graphQLRequest
        let document = prepared.prepared
        if let executionScope {
            return await executionScope.run {
                await engine.executeEncoded(document, request: request, context: context, rootValue: rootValue)
            }
        }
        return await engine.executeEncoded(document, request: request, context: context, rootValue: rootValue)
    }

    /// The result's JSON (errors annotated as in plain responses) and its outcome label.
    func encode(_ result: EncodedResponse, prepared: Prepared) -> ([UInt8], String) {
        let (response, outcome) = respond(result, prepared: prepared)
        return (response.body, outcome)
    }
}

/// The subscriptions being streamed: one heartbeat task writes a comment line to all
/// of them every interval (none per subscriber), and `/metrics` counts them.
final class OpenSubscriptions: Sendable {
    private let table = Locked<[UInt64: LiveSubscription]>([:])
    private let heartbeatStarted = Atomic<Bool>(false)
    /// Between two heartbeats.
    let heartbeat: Duration

    init(heartbeat: Duration) {
        self.heartbeat = max(.milliseconds(10), heartbeat)
    }

    /// Open subscriptions.
    var count: Int { table.withLock { $0.count } }

    func add(_ subscription: LiveSubscription) {
        table.withLock { $0[subscription.id] = subscription }
        guard heartbeatStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let interval = heartbeat
        // Holds the table weakly: it ends with the handler.
        Task.detached { [weak self] in
            while true {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                self.beat()
            }
        }
    }

    func remove(_ subscription: LiveSubscription) {
        _ = table.withLock { $0.removeValue(forKey: subscription.id) }
    }

    /// Writes a heartbeat to every open stream (a full buffer drops that subscriber).
    func beat() {
        let all = table.withLock { Array($0.values) }
        for subscription in all where !subscription.isEnded {
            subscription.stream.write(EventStreamFormat.heartbeat)
        }
    }
}
