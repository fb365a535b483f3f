import Synchronization

/// Sends webhooks to the configured targets and keeps a log of every attempt.
///
/// Control-endpoint webhooks are awaited (the caller sees the result);
/// webhooks caused by API calls (refunds) go out in tracked background tasks
/// that `shutdown()` waits for.
final class WebhookDispatcher: Sendable {
    private let targets: [WebhookTarget]
    private let timeout: Duration
    private let transport: any WebhookTransport
    private let deliveries = Mutex<[WebhookDelivery]>([])
    private let background = Mutex<(next: Int, tasks: [Int: Task<Void, Never>], closed: Bool)>((0, [:], false))

    /// The log keeps at most this many deliveries (oldest dropped first).
    static let logLimit = 1000

    init(targets: [WebhookTarget], timeout: Duration, transport: any WebhookTransport) {
        self.targets = targets
        self.timeout = timeout
        self.transport = transport
    }

    /// The URLs a message goes to: configured targets for its provider, plus
    /// the order's own URL when it is on loopback; duplicates removed.
    func urls(for message: WebhookMessage) -> [String] {
        var urls: [String] = []
        for target in targets {
            if let url = target.url(for: message.provider), !urls.contains(url) { urls.append(url) }
        }
        if let own = message.orderURL, isLoopbackURL(own), !urls.contains(own) { urls.append(own) }
        return urls
    }

    /// Delivers the messages in order (each to all its URLs) and returns the attempts.
    func deliver(_ messages: [WebhookMessage]) async -> [WebhookDelivery] {
        var results: [WebhookDelivery] = []
        for message in messages {
            for url in urls(for: message) {
                results.append(await send(provider: message.provider, event: message.event, url: url,
                                          headers: message.headers, body: message.body))
            }
        }
        return results
    }

    /// Delivers in a background task tracked until `shutdown()`.
    func deliverInBackground(_ messages: [WebhookMessage]) {
        guard !messages.isEmpty else { return }
        background.withLock { state in
            guard !state.closed else { return }
            let key = state.next
            state.next += 1
            state.tasks[key] = Task { [self] in
                _ = await self.deliver(messages)
                self.background.withLock { _ = $0.tasks.removeValue(forKey: key) }
            }
        }
    }

    /// Sends a logged delivery again, byte for byte.
    func redeliver(id: String) async -> WebhookDelivery? {
        guard let original = deliveries.withLock({ list in list.first { $0.id == id } }) else { return nil }
        return await send(provider: original.provider, event: original.event, url: original.url,
                          headers: original.headers, body: original.body)
    }

    /// Every attempt so far, oldest first.
    func log() -> [WebhookDelivery] { deliveries.withLock { $0 } }

    func clearLog() { deliveries.withLock { $0.removeAll() } }

    /// Waits for background deliveries, then closes the transport.
    func shutdown() async {
        let tasks = background.withLock { state -> [Task<Void, Never>] in
            state.closed = true
            return Array(state.tasks.values)
        }
        for task in tasks { await task.value }
        await transport.shutdown()
    }

    private func send(provider: SandboxProvider, event: String, url: String,
                      headers: [(name: String, value: String)], body: [UInt8]) async -> WebhookDelivery {
        var status: Int?
        var failure: String?
        do {
            status = try await transport.post(url: url, headers: headers, body: body, timeout: timeout)
        } catch {
            failure = String(describing: error)
        }
        let delivery = WebhookDelivery(id: "whd_" + Identifiers.base62(12), provider: provider, event: event, url: url,
                                       status: status, error: failure, headers: headers, body: body)
        deliveries.withLock { list in
            list.append(delivery)
            if list.count > Self.logLimit { list.removeFirst(list.count - Self.logLimit) }
        }
        return delivery
    }
}
