internal import CCurl
internal import CPayQLShims
import Support
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The I/O thread that owns one libcurl multi handle and drives every transfer on it.
///
/// Hand-over: tasks append transfers (and cancellations) to `shared` under its
/// mutex and call `curl_multi_wakeup`, libcurl's one thread-safe multi call; the
/// thread takes both lists under the same mutex, adds or removes the easy
/// handles, runs `curl_multi_perform`, completes finished transfers through their
/// continuations and sleeps in `curl_multi_poll`. Every other use of the multi
/// handle happens on the thread. The table of active transfers is a local
/// variable of ``run()``, so nothing else can even see it.
///
/// Stopping: ``stop(_:)`` sets a flag; the thread fails what is queued or in
/// flight with ``HTTPClientError/Code/shutdown``, sets `stopped` under the mutex,
/// frees the multi handle and resumes whoever waits for it. Wake-ups are issued
/// while holding the mutex and only while not `stopped`, so none can reach a
/// freed multi handle.
final class CurlEventLoop: Sendable {
    private struct Shared: Sendable {
        var added: [Transfer] = []
        var cancelled: [Transfer] = []
        var stopping = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The `CURLM *`; see the type's comment for which thread may use it for what.
    private let multi: MultiHandle
    private let shared = Locked(Shared())
    private let connections = Atomic<Int>(0)

    /// Creates the multi handle with the configuration's limits and starts the thread.
    init(configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        guard curlGlobalInitialized else {
            throw HTTPClientError(code: .transport, message: "curl_global_init failed")
        }
        guard let handle = curl_multi_init() else {
            throw HTTPClientError(code: .transport, message: "curl_multi_init failed (out of memory?)")
        }
        multi = MultiHandle(handle)
        let perHost = max(1, configuration.maxConnectionsPerHost)
        let total = max(perHost, configuration.maxTotalConnections)
        do {
            // Without MAXCONNECTS the idle cache shrinks as handles are removed and
            // connections get closed and reopened (docs/toolchain-facts.md §2: up to 7x more connects).
            try multi.set(CURLMOPT_MAXCONNECTS, total)
            try multi.set(CURLMOPT_MAX_TOTAL_CONNECTIONS, total)
            try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
            try multi.set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        } catch {
            multi.free()
            throw error
        }

        // The thread owns a +1 reference to the loop until `run()` returns.
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let loop = Unmanaged<CurlEventLoop>.fromOpaque(context).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<CurlEventLoop>.fromOpaque(context).release()
            multi.free()
            throw HTTPClientError(code: .transport, message: "pthread_create failed: \(String(cString: strerror(created)))")
        }
        pthread_detach(thread)
    }

    /// New connections opened so far (sum of `CURLINFO_NUM_CONNECTS` over finished transfers).
    var connectionsOpened: Int { connections.load(ordering: .relaxed) }

    /// Queues a transfer; false when the loop is stopping (the transfer was not taken).
    func submit(_ transfer: Transfer) -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else { return false }
            let wake = shared.added.isEmpty && shared.cancelled.isEmpty
            shared.added.append(transfer)
            if wake { _ = curl_multi_wakeup(multi.pointer) }
            return true
        }
    }

    /// Asks the thread to abort a transfer (if it is still running) with `.cancelled`.
    func cancel(_ transfer: Transfer) {
        shared.withLock { shared in
            guard !shared.stopping else { return }
            let wake = shared.added.isEmpty && shared.cancelled.isEmpty
            shared.cancelled.append(transfer)
            if wake { _ = curl_multi_wakeup(multi.pointer) }
        }
    }

    /// Stops the thread; `waiter` (if any) is resumed once the multi handle is freed.
    func stop(_ waiter: CheckedContinuation<Void, Never>?) {
        let alreadyStopped = shared.withLock { shared -> Bool in
            if shared.stopped { return true }
            if let waiter { shared.stopWaiters.append(waiter) }
            if !shared.stopping {
                shared.stopping = true
                _ = curl_multi_wakeup(multi.pointer)
            }
            return false
        }
        if alreadyStopped { waiter?.resume() }
    }

    /// The thread's body.
    private func run() {
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        let handle = multi.pointer
        while true {
            let (added, cancelled, stopping) = shared.withLock { shared in
                defer {
                    shared.added.removeAll(keepingCapacity: true)
                    shared.cancelled.removeAll(keepingCapacity: true)
                }
                return (shared.added, shared.cancelled, shared.stopping)
            }
            for transfer in added {
                if stopping {
                    transfer.complete(.failure(shutdownError(transfer)))
                } else if transfer.cancelRequested.load(ordering: .acquiring) {
                    transfer.complete(.failure(cancelledError(transfer)))
                } else {
                    let code = curl_multi_add_handle(handle, transfer.easy)
                    if code == CURLM_OK {
                        active[transfer.easy] = transfer
                    } else {
                        transfer.complete(.failure(HTTPClientError(
                            code: .transport,
                            message: "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code))) (\(transfer.label))"
                        )))
                    }
                }
            }
            for transfer in cancelled {
                guard active.removeValue(forKey: transfer.easy) != nil else { continue }
                _ = curl_multi_remove_handle(handle, transfer.easy)
                record(transfer)
                transfer.complete(.failure(cancelledError(transfer)))
            }
            if stopping { break }

            var running: Int32 = 0
            _ = curl_multi_perform(handle, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(handle, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE else { continue }
                var result = CURLE_OK
                guard let easy = cpayql_curl_message_easy(message, &result),
                      let transfer = active.removeValue(forKey: easy) else { continue }
                _ = curl_multi_remove_handle(handle, easy)
                record(transfer)
                transfer.complete(transfer.outcome(result))
            }
            // Sleeps until a socket is ready, libcurl's next timeout, or a wake-up.
            if curl_multi_poll(handle, nil, 0, 1000, nil) != CURLM_OK {
                // Only out of memory or a broken handle get here; do not spin on it.
                usleep(1000)
            }
        }

        for (easy, transfer) in active {
            _ = curl_multi_remove_handle(handle, easy)
            transfer.complete(.failure(shutdownError(transfer)))
        }
        active.removeAll()
        let waiters = shared.withLock { shared in
            shared.stopped = true
            defer { shared.stopWaiters.removeAll() }
            return shared.stopWaiters
        }
        multi.free()
        for waiter in waiters { waiter.resume() }
    }

    private func record(_ transfer: Transfer) {
        let opened = transfer.newConnections
        if opened > 0 { connections.add(opened, ordering: .relaxed) }
    }

    private func cancelledError(_ transfer: Transfer) -> HTTPClientError {
        HTTPClientError(code: .cancelled, message: "the calling task was cancelled (\(transfer.label))")
    }

    private func shutdownError(_ transfer: Transfer) -> HTTPClientError {
        HTTPClientError(code: .shutdown, message: "the HTTP client was shut down (\(transfer.label))")
    }
}

/// Owner of the `CURLM *`.
///
/// `@unchecked Sendable` because the pointer is shared between threads, with the
/// rules of ``CurlEventLoop``: only `curl_multi_wakeup` (thread-safe by libcurl's
/// contract, and only while the loop's mutex shows it not stopped) is called off
/// the I/O thread; `free()` runs once, on the I/O thread, after its last use.
private final class MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    func set(_ option: CURLMoption, _ value: Int) throws(HTTPClientError) {
        let code = cpayql_curl_multi_setopt_long(pointer, option, value)
        guard code == CURLM_OK else {
            throw HTTPClientError(code: .transport, message: "curl_multi_setopt(\(option.rawValue)): \(String(cString: curl_multi_strerror(code)))")
        }
    }

    func free() {
        _ = curl_multi_cleanup(pointer)
    }
}
