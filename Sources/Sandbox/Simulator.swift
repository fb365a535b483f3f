/// What every provider simulator offers the router and the control API.
///
/// A simulator is pure logic over `SandboxRequest`: it keeps its state under a
/// lock, answers synchronously and returns the webhooks the call caused; the
/// router adds faults and latency and the dispatcher sends the webhooks.
protocol ProviderSimulator: Sendable {
    var provider: SandboxProvider { get }

    /// Answers an API request; `request.path` is relative to the provider's
    /// base path (`/v1/orders` for Razorpay, `/orders` for Cashfree).
    func handle(_ request: SandboxRequest, context: SimulatorContext) -> SimulatorResult

    /// Finishes an order for the control API (`paid`, `failed`, …).
    func complete(orderID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome

    /// The order as the simulator keeps it, with what the provider's own answers leave out
    /// (Razorpay's TPV `bank_account`); nil for an unknown order.
    func inspect(orderID: String) -> WireObject?

    /// The provider's answer to a request hit by a `status` fault.
    func serverError(status: Int) -> SandboxResponse

    /// The provider's answer to a request hit by a `rate_limit` fault.
    func rateLimited(retryAfterSeconds: Int) -> SandboxResponse

    /// Forgets all state.
    func reset()
}

extension ProviderSimulator {
    /// Simulators without an inspectable order say so.
    func inspect(orderID: String) -> WireObject? { nil }
}

/// Per-request facts the simulators need.
struct SimulatorContext: Sendable {
    /// `http://127.0.0.1:PORT` — the sandbox's own root, for URLs in bodies.
    let rootURL: String
    /// Now, in milliseconds since the epoch.
    let nowMilliseconds: Int64

    var now: Int64 { nowMilliseconds / 1000 }
}

/// A simulator's answer plus the webhooks it causes.
struct SimulatorResult: Sendable {
    var response: SandboxResponse
    var webhooks: [WebhookMessage] = []

    init(_ response: SandboxResponse, webhooks: [WebhookMessage] = []) {
        self.response = response
        self.webhooks = webhooks
    }
}

/// The result of a control-API completion.
enum ControlOutcome: Sendable {
    /// Done: the body fields to return (`order`, `payment`, …) and the webhooks to send.
    case done(WireObject, [WebhookMessage])
    /// Refused: HTTP status and a message.
    case refused(status: Int, message: String)
}

/// The outcome statuses the control API accepts, as given in the body.
func completionStatus(_ body: WireObject) -> String? {
    body["status"]?.stringValue?.lowercased()
}
