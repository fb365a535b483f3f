import Support
import Synchronization

/// Routes requests: `/_sandbox/...` to the control API, `/{provider}/...` to
/// that provider's simulator after latency and fault injection.
final class SandboxRouter: Sendable {
    let simulators: [any ProviderSimulator]
    let faults: FaultTable
    let dispatcher: WebhookDispatcher
    let latency: Duration
    /// Where Setu's calls to the partner go (`{base}/setu/v1/...`).
    let setuPartnerURL: String?
    /// `http://host:port`, known once the socket is bound.
    let root = Locked<String>("")
    /// Set at shutdown: ends held `timeout` faults early.
    let stopping = Atomic<Bool>(false)

    init(simulators: [any ProviderSimulator], faults: FaultTable, dispatcher: WebhookDispatcher, latency: Duration,
         setuPartnerURL: String? = nil) {
        self.simulators = simulators
        self.faults = faults
        self.dispatcher = dispatcher
        self.latency = latency
        self.setuPartnerURL = setuPartnerURL
    }

    /// The context for one request: URLs in bodies follow the `Host` the client
    /// used (so `http://sandbox:8090` inside compose), else the bound address.
    func context(for request: SandboxRequest) -> SimulatorContext {
        var rootURL = root.withLock { $0 }
        if let host = request.header("host"), !host.isEmpty, host.count <= 255,
           host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]_".contains($0)) }) {
            rootURL = "http://" + host
        }
        return SimulatorContext(rootURL: rootURL, nowMilliseconds: Clock.nowMilliseconds())
    }

    func simulator(_ provider: SandboxProvider) -> (any ProviderSimulator)? {
        simulators.first { $0.provider == provider }
    }

    func handle(_ request: SandboxRequest) async -> SandboxResponse {
        if request.path == "/_sandbox" || request.path.hasPrefix("/_sandbox/") {
            return await control(request)
        }
        guard let (simulator, relativePath) = locate(request.path) else {
            return .json(.object(["error": .string("no such path; provider APIs live under /razorpay, /cashfree/pg, /instamojo, /setu (see docs/sandbox.md)")]),
                         status: 404)
        }
        if latency > .zero { await pause(latency) }
        let fault = faults.take(method: request.method, path: request.path)
        switch fault {
        case nil, .afterWork?:
            break
        case .latency(let delay)?:
            await pause(delay)
        case .timeout(let hold)?:
            await pause(min(hold, FaultRule.maximumTimeout))
            return .dropped
        case .serverError(let status)?:
            return simulator.serverError(status: status)
        case .rateLimited(let seconds)?:
            return simulator.rateLimited(retryAfterSeconds: seconds)
        case .malformedBody?:
            return SandboxResponse(status: 200, headers: [("Content-Type", "application/json")],
                                   body: Array("{\"id\": \"order_Malformed000001\", \"entity\": \"ord".utf8))
        case .dropConnection?:
            return .dropped
        }
        var inner = request
        inner.path = relativePath
        let result = simulator.handle(inner, context: context(for: request))
        dispatcher.deliverInBackground(result.webhooks)
        if case .afterWork(let loss)? = fault {
            return await lose(result.response, loss, simulator: simulator)
        }
        return result.response
    }

    /// What the client gets when an `*_after` fault loses the answer to work already done.
    private func lose(_ answer: SandboxResponse, _ loss: FaultRule.LostAnswer, simulator: any ProviderSimulator) async -> SandboxResponse {
        switch loss {
        case .drop:
            return .dropped
        case .timeout(let hold):
            await pause(min(hold, FaultRule.maximumTimeout))
            return .dropped
        case .serverError(let status):
            return simulator.serverError(status: status)
        case .malformed:
            // The real answer cut in half: a JSON object without its end never parses.
            return SandboxResponse(status: 200, headers: [("Content-Type", "application/json")],
                                   body: Array(answer.body.prefix(max(1, answer.body.count / 2))))
        case .hostile(let seed):
            var hostile = answer
            hostile.body = HostileAnswer.mutate(answer.body, seed: seed)
            return hostile
        }
    }

    /// The simulator for a path and the path below its base (`/razorpay/v1/orders` → `/v1/orders`).
    private func locate(_ path: String) -> (any ProviderSimulator, String)? {
        for simulator in simulators {
            let base = simulator.provider.basePath
            if path == base { return (simulator, "/") }
            if path.hasPrefix(base + "/") { return (simulator, String(path.dropFirst(base.count))) }
        }
        return nil
    }

    /// Sleeps in short slices so shutdown ends a held request promptly.
    /// At most an hour: whatever a rule or configuration holds, the deadline never overflows.
    func pause(_ duration: Duration) async {
        let end = ContinuousClock.now + min(duration, .seconds(3600))
        while !stopping.load(ordering: .relaxed) {
            let left = end - ContinuousClock.now
            if left <= .zero { return }
            try? await Task.sleep(for: min(left, .milliseconds(50)))
        }
    }
}
