import Synchronization

/// An async HTTP/1.1 and HTTP/2 client over the libcurl multi interface.
///
/// One client owns one I/O thread and one libcurl multi handle: every request
/// runs on that thread, its connections are pooled and reused across requests
/// (HTTP/2 is negotiated over TLS when the server offers it), and the calling
/// task only awaits. Create one client per process (or per upstream with its own
/// limits), share it, and call ``shutdown()`` before dropping it.
///
/// ```swift
/// let client = try HTTPClient()
/// var request = HTTPClientRequest(method: "POST", url: "https://api.example.com/v1/orders",
///                                 headers: [("Content-Type", "application/json")], body: Array(json.utf8))
/// request.retry = .idempotent()          // only because the request carries an idempotency key
/// request.deadline = .now + .seconds(10)
/// let response = try await client.execute(request)
/// await client.shutdown()
/// ```
///
/// This target owns libcurl: no other target imports `CCurl`, and no libcurl type
/// appears in this API.
public final class HTTPClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: HTTPClientConfiguration
    /// The I/O thread and its multi handle (internal for the lifecycle tests).
    let loop: CurlEventLoop

    /// Creates a client and starts its I/O thread.
    /// - Throws: ``HTTPClientError`` with code `.transport` when libcurl or the thread cannot start.
    public init(configuration: HTTPClientConfiguration = .init()) throws {
        self.configuration = configuration
        loop = try CurlEventLoop(configuration: configuration)
    }

    /// If ``shutdown()`` was never called, the I/O thread is asked to stop here without
    /// waiting: it frees its connections and the multi handle a moment later. No
    /// request can be in flight at this point (each holds the client). Relying on this
    /// is a bug: call ``shutdown()``, which also waits until everything is freed.
    deinit {
        loop.stop(nil)
    }

    /// Stops the client: requests still queued or in flight fail with
    /// ``HTTPClientError/Code/shutdown``, later ones too; returns once the I/O thread
    /// has closed every connection and freed libcurl's handles. Safe to call twice.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            loop.stop(continuation)
        }
    }

    /// New connections opened so far (the sum of libcurl's `CURLINFO_NUM_CONNECTS`),
    /// to check connection reuse.
    public var connectionsOpened: Int { loop.connectionsOpened }

    /// Sends `request` and returns the response, whatever its status, repeating it
    /// only as its ``HTTPClientRequest/retry`` policy allows (see ``RetryPolicy``).
    ///
    /// Cancelling the calling task aborts the transfer at once (the connection is
    /// closed, not reused) and throws `.cancelled`.
    /// - Throws: ``HTTPClientError`` when no response came (after the allowed attempts).
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let clock = ContinuousClock()
        var attempt = 0
        // The previous attempt's outcome, returned if a sleep overshoots the deadline.
        var previous: Result<HTTPClientResponse, HTTPClientError>?
        while true {
            attempt += 1
            if Task.isCancelled {
                throw HTTPClientError(code: .cancelled, message: "the calling task was cancelled (\(Transfer.redact(request.url)))", attempts: attempt - 1)
            }
            var timeout = request.timeout
            if let deadline = request.deadline {
                let remaining = clock.now.duration(to: deadline)
                guard remaining > .zero else {
                    if let previous { return try previous.get() }
                    throw HTTPClientError(code: .timeout, message: "the deadline had passed before the request started (\(Transfer.redact(request.url)))", attempts: 0)
                }
                timeout = min(timeout, remaining)
            }

            let outcome = await perform(request, timeout: timeout)
            let remaining = request.deadline.map { clock.now.duration(to: $0) }
            let delay: Duration?
            switch outcome {
            case .success(var response):
                response.attempts = attempt
                delay = RetryPlanner.delay(
                    policy: request.retry, attempt: attempt, status: response.status,
                    retryAfter: RetryPlanner.retryAfter(response), remaining: remaining
                )
                guard delay != nil else { return response }
                previous = .success(response)
            case .failure(var error):
                error.attempts = attempt
                delay = RetryPlanner.delay(policy: request.retry, attempt: attempt, error: error.code, remaining: remaining)
                guard delay != nil else { throw error }
                previous = .failure(error)
            }
            if let delay, delay > .zero {
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw HTTPClientError(code: .cancelled, message: "the calling task was cancelled while waiting to retry (\(Transfer.redact(request.url)))", attempts: attempt)
                }
            }
        }
    }

    /// One attempt: builds the transfer, hands it to the I/O thread and waits for it,
    /// aborting it if the calling task is cancelled.
    private func perform(_ request: HTTPClientRequest, timeout: Duration) async -> Result<HTTPClientResponse, HTTPClientError> {
        let transfer: Transfer
        do {
            transfer = try Transfer(request: request, timeout: timeout, configuration: configuration)
        } catch {
            return .failure(error)
        }
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                if transfer.cancelRequested.load(ordering: .acquiring) {
                    transfer.complete(.failure(HTTPClientError(code: .cancelled, message: "the calling task was cancelled (\(transfer.label))")))
                } else if !loop.submit(transfer) {
                    transfer.complete(.failure(HTTPClientError(code: .shutdown, message: "the HTTP client was shut down (\(transfer.label))")))
                }
            }
        } onCancel: {
            // The flag covers a transfer not yet added; the queued cancel covers one in flight.
            transfer.cancelRequested.store(true, ordering: .releasing)
            loop.cancel(transfer)
        }
    }
}
