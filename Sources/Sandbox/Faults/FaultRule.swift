/// One injected fault: which requests it hits and what happens to them.
public struct FaultRule: Sendable, Equatable {
    /// What the fault does to a matching request.
    public enum Kind: Sendable, Equatable {
        /// Wait, then answer normally.
        case latency(Duration)
        /// Hold the request without answering for this long (bounded by
        /// `FaultRule.maximumTimeout`), then close the connection.
        case timeout(Duration)
        /// Answer with this 5xx status and the provider's server-error body.
        case serverError(status: Int)
        /// Answer 429 with `Retry-After: seconds` and the provider's throttling body.
        case rateLimited(retryAfterSeconds: Int)
        /// Answer 200 with a truncated JSON body.
        case malformedBody
        /// Close the connection without answering.
        case dropConnection
        /// Do the work (the simulator creates the order, the refund, …), then lose its answer:
        /// the client cannot tell whether anything happened, as after a real timeout or 5xx.
        case afterWork(LostAnswer)
    }

    /// How an answer is lost after the work was done (`*_after` kinds).
    public enum LostAnswer: Sendable, Equatable {
        /// Close the connection without answering (`drop_after`).
        case drop
        /// Hold the connection for this long (bounded by `FaultRule.maximumTimeout`), then close it (`timeout_after`).
        case timeout(Duration)
        /// Answer this 5xx status with the provider's server-error body (`status_after`).
        case serverError(status: Int)
        /// Answer 200 with the real answer's body cut in half (`malformed_after`).
        case malformed
        /// Answer the real status with the real answer's values replaced at random by ones no provider
        /// documents, some members dropped, the body still JSON (`hostile_after`; ``HostileAnswer``).
        case hostile(seed: UInt64)
    }

    /// The longest a `timeout` fault holds a request.
    public static let maximumTimeout: Duration = .seconds(120)

    /// `METHOD /path` or `/path`; `*` is one segment, a final `**` any rest.
    public var route: String
    /// What happens to a matching request.
    public var kind: Kind
    /// Apply to the next N matching requests only; nil = until removed.
    public var times: Int?

    /// A rule for `route` (see `route` for the pattern syntax); `times` nil = until removed.
    public init(route: String, kind: Kind, times: Int? = nil) {
        self.route = route
        self.kind = kind
        self.times = times
    }
}

/// Why a fault rule given as JSON or text was refused.
public struct FaultRuleError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the rule, fit to show the user.
    public let description: String
}

extension FaultRule {
    /// Parses the JSON form used by `POST /_sandbox/faults` and `--fault`:
    /// `{"route":"POST /razorpay/v1/orders","kind":"status","status":503,"times":1}`.
    public init(json text: String) throws(FaultRuleError) {
        guard let value = try? Wire.parse(text), let object = value.objectValue else {
            throw FaultRuleError(description: "a fault rule must be a JSON object")
        }
        try self.init(object: object)
    }

    init(object: WireObject) throws(FaultRuleError) {
        guard let route = object["route"]?.stringValue, !route.isEmpty else {
            throw FaultRuleError(description: "fault rule needs \"route\", e.g. \"POST /razorpay/v1/orders\"")
        }
        guard RoutePattern(route) != nil else {
            throw FaultRuleError(description: "route must be 'METHOD /path' or '/path', got '\(route)'")
        }
        func integer(_ key: String) throws(FaultRuleError) -> Int? {
            guard let raw = object[key], !raw.isNull else { return nil }
            guard let text = raw.numberText, let value = Int(text) else {
                throw FaultRuleError(description: "\"\(key)\" must be an integer")
            }
            return value
        }
        let kind: Kind
        let name = object["kind"]?.stringValue
        switch name {
        case "latency":
            guard let ms = try integer("ms"), ms >= 0, ms <= 120_000 else {
                throw FaultRuleError(description: "latency needs \"ms\" between 0 and 120000")
            }
            kind = .latency(.milliseconds(ms))
        case "timeout", "timeout_after":
            let ms = try integer("ms") ?? 30_000
            guard ms > 0, ms <= 120_000 else { throw FaultRuleError(description: "timeout \"ms\" must be 1...120000") }
            kind = name == "timeout" ? .timeout(.milliseconds(ms)) : .afterWork(.timeout(.milliseconds(ms)))
        case "status", "status_after":
            let status = try integer("status") ?? 500
            guard (500...599).contains(status) else { throw FaultRuleError(description: "\"status\" must be 500...599") }
            kind = name == "status" ? .serverError(status: status) : .afterWork(.serverError(status: status))
        case "rate_limit":
            let seconds = try integer("retry_after") ?? 1
            guard (0...3600).contains(seconds) else { throw FaultRuleError(description: "\"retry_after\" must be 0...3600") }
            kind = .rateLimited(retryAfterSeconds: seconds)
        case "malformed":
            kind = .malformedBody
        case "drop":
            kind = .dropConnection
        case "malformed_after":
            kind = .afterWork(.malformed)
        case "drop_after":
            kind = .afterWork(.drop)
        case "hostile_after":
            let seed = try integer("seed") ?? 1
            guard seed >= 0 else { throw FaultRuleError(description: "\"seed\" must be 0 or more") }
            kind = .afterWork(.hostile(seed: UInt64(seed)))
        default:
            throw FaultRuleError(description: "\"kind\" must be latency, timeout, status, rate_limit, malformed, drop, "
                                 + "drop_after, timeout_after, status_after, malformed_after or hostile_after")
        }
        let times = try integer("times")
        if let times, times < 1 { throw FaultRuleError(description: "\"times\" must be at least 1") }
        self.init(route: route, kind: kind, times: times)
    }

    var wire: WireObject {
        var object: WireObject = ["route": .string(route)]
        switch kind {
        case .latency(let d): object["kind"] = "latency"; object["ms"] = .int(d.milliseconds)
        case .timeout(let d): object["kind"] = "timeout"; object["ms"] = .int(d.milliseconds)
        case .serverError(let status): object["kind"] = "status"; object["status"] = .int(Int64(status))
        case .rateLimited(let seconds): object["kind"] = "rate_limit"; object["retry_after"] = .int(Int64(seconds))
        case .malformedBody: object["kind"] = "malformed"
        case .dropConnection: object["kind"] = "drop"
        case .afterWork(.drop): object["kind"] = "drop_after"
        case .afterWork(.timeout(let d)): object["kind"] = "timeout_after"; object["ms"] = .int(d.milliseconds)
        case .afterWork(.serverError(let status)): object["kind"] = "status_after"; object["status"] = .int(Int64(status))
        case .afterWork(.malformed): object["kind"] = "malformed_after"
        case .afterWork(.hostile(let seed)): object["kind"] = "hostile_after"; object["seed"] = .number(String(seed))
        }
        object["times"] = times.map { .int(Int64($0)) } ?? .null
        return object
    }
}

extension Duration {
    /// Whole milliseconds, saturating at `Int64`'s bounds (a rule built in code may hold any duration).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAdding) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowAdding ? (seconds < 0 ? .min : .max) : total
    }
}

/// A parsed route pattern.
struct RoutePattern: Sendable, Equatable {
    let method: String?
    let segments: [String]

    init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let pathText: Substring
        switch parts.count {
        case 1: method = nil; pathText = parts[0]
        case 2: method = parts[0] == "*" ? nil : parts[0].uppercased(); pathText = parts[1]
        default: return nil
        }
        guard pathText.hasPrefix("/") else { return nil }
        segments = pathText.split(separator: "/").map(String.init)
        if let index = segments.firstIndex(of: "**"), index != segments.count - 1 { return nil }
    }

    func matches(method: String, path: String) -> Bool {
        if let wanted = self.method, wanted != method { return false }
        let actual = path.split(separator: "/")
        var i = 0
        for pattern in segments {
            if pattern == "**" { return true }
            guard i < actual.count else { return false }
            if pattern != "*" && pattern != actual[i] { return false }
            i += 1
        }
        return i == actual.count
    }
}
