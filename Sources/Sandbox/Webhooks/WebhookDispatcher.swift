import Support

/// Sends webhooks to the configured targets and keeps a log of every attempt.
///
/// Control-endpoint webhooks are awaited (the caller sees the first attempt);
/// webhooks caused by API calls (refunds) go out in tracked background tasks
/// that `shutdown()` waits for. A failed attempt (no answer or not 2xx) is
/// retried `retries` times with doubling delays, as the providers retry
/// (at-least-once delivery); pending retries are cancelled at shutdown.
final class WebhookDispatcher: Sendable {
    private let targets: [WebhookTarget]
    private let timeout: Duration
    private let retries: Int
    private let retryDelay: Duration
    private let transport: any WebhookTransport
    private let deliveries = Locked<[WebhookDelivery]>([])
    private let background = Locked<(next: Int, tasks: [Int: Task<Void, Never>], retries: [Int: Task<Void, Never>], closed: Bool)>(
        (0, [:], [:], false))

    /// The log keeps at most this many deliveries (oldest dropped first).
    static let logLimit = 1000

    init(targets: [WebhookTarget], timeout: Duration, retries: Int = 0, retryDelay: Duration = .seconds(1),
         transport: any WebhookTransport) {
        self.targets = targets
        self.timeout = timeout
        // `payql sandbox` allows 0...10; a configuration built in code is clamped, so `retries + 1` cannot overflow.
        self.retries = min(max(0, retries), 100)
        self.retryDelay = retryDelay
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
                let delivery = await send(provider: message.provider, event: message.event, url: url,
                                          headers: message.headers, body: message.body, attempt: 1)
                results.append(delivery)
                if !delivery.succeeded, retries > 0 { scheduleRetries(after: delivery) }
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
                          headers: original.headers, body: original.body, attempt: original.attempt)
    }

    /// Retries a failed delivery in the background: attempt n waits `retryDelay · 2^(n-2)`.
    private func scheduleRetries(after first: WebhookDelivery) {
        background.withLock { state in
            guard !state.closed else { return }
            let key = state.next
            state.next += 1
            state.retries[key] = Task { [self] in
                var delay = self.retryDelay
                for attempt in 2...(self.retries + 1) {
                    do { try await Task.sleep(for: delay) } catch { break }
                    // Cashfree numbers its attempts in a header that is not signed.
                    let headers = first.headers.map { header in
                        header.name.lowercased() == "x-webhook-attempt" ? (name: header.name, value: String(attempt)) : header
                    }
                    let delivery = await self.send(provider: first.provider, event: first.event, url: first.url,
                                                   headers: headers, body: first.body, attempt: attempt)
                    if delivery.succeeded || Task.isCancelled { break }
                    // Doubling stops at an hour: a configuration asking for many retries never overflows `Duration`.
                    delay = delay < .seconds(1800) ? delay * 2 : max(delay, .seconds(3600))
                }
                self.background.withLock { _ = $0.retries.removeValue(forKey: key) }
            }
        }
    }

    /// One call from the sandbox (playing the provider) to the partner's API, logged
    /// like a webhook; answers the partner's status and body, or the failure.
    func call(provider: SandboxProvider, event: String, url: String, headers: [(name: String, value: String)],
              body: [UInt8]) async -> (delivery: WebhookDelivery, answer: [UInt8]) {
        var status: Int?
        var failure: String?
        var answer: [UInt8] = []
        do {
            (status, answer) = try await transport.post(url: url, headers: headers, body: body, timeout: timeout)
        } catch {
            failure = String(describing: error)
        }
        let delivery = record(provider: provider, event: event, url: url, status: status, failure: failure,
                              headers: headers, body: body, attempt: 1)
        return (delivery, answer)
    }

    /// Every attempt so far, oldest first.
    func log() -> [WebhookDelivery] { deliveries.withLock { $0 } }

    func clearLog() { deliveries.withLock { $0.removeAll() } }

    /// Cancels pending retries, waits for background deliveries, then closes the transport.
    func shutdown() async {
        let (tasks, retrying) = background.withLock { state -> ([Task<Void, Never>], [Task<Void, Never>]) in
            state.closed = true
            return (Array(state.tasks.values), Array(state.retries.values))
        }
        for task in retrying { task.cancel() }
        for task in tasks + retrying { await task.value }
        await transport.shutdown()
    }

    private func send(provider: SandboxProvider, event: String, url: String,
                      headers: [(name: String, value: String)], body: [UInt8], attempt: Int) async -> WebhookDelivery {
        var status: Int?
        var failure: String?
        do {
            status = try await transport.post(url: url, headers: headers, body: body, timeout: timeout).status
        } catch {
            failure = String(describing: error)
        }
        return record(provider: provider, event: event, url: url, status: status, failure: failure,
                      headers: headers, body: body, attempt: attempt)
    }

    private func record(provider: SandboxProvider, event: String, url: String, status: Int?, failure: String?,
                        headers: [(name: String, value: String)], body: [UInt8], attempt: Int) -> WebhookDelivery {
        let delivery = WebhookDelivery(id: "whd_" + Identifiers.base62(12), provider: provider, event: event, url: url,
                                       status: status, error: failure, headers: headers, body: body, attempt: attempt)
        deliveries.withLock { list in
            list.append(delivery)
            if list.count > Self.logLimit { list.removeFirst(list.count - Self.logLimit) }
        }
        return delivery
    }
}
