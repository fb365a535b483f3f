/// A signed webhook ready to send: the exact bytes and headers.
struct WebhookMessage: Sendable {
    let provider: SandboxProvider
    /// The provider's event name (`payment.captured`, `PAYMENT_SUCCESS_WEBHOOK`, `Credit`, `bill_payment_success`).
    let event: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// A URL carried by the order itself (Cashfree `notify_url`, Instamojo `webhook`);
    /// used in addition to the configured targets when it is a loopback URL.
    let orderURL: String?
}

/// One attempt to deliver a webhook, as recorded in the log.
struct WebhookDelivery: Sendable {
    let id: String
    let provider: SandboxProvider
    let event: String
    let url: String
    /// The HTTP status the receiver answered, nil if none.
    let status: Int?
    /// Why no answer came (connection refused, timeout, …).
    let error: String?
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// 1 for the first delivery, then 2, 3, … for retries.
    let attempt: Int

    /// Whether the receiver accepted it (any 2xx).
    var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

    /// The summary returned by the control API.
    var summary: WireObject {
        ["id": .string(id), "provider": .string(provider.rawValue), "event": .string(event), "url": .string(url),
         "attempt": .int(Int64(attempt)), "status": status.map { .int(Int64($0)) } ?? .null, "error": .string(error)]
    }

    /// Headers that carry a secret rather than a signature: shown as `****` in the log.
    static let secretHeaders: Set<String> = ["x-bill-webhook-api-key", "x-setu-billpay-api-key", "authorization"]

    /// The full record for `GET /_sandbox/webhooks` (body as text: all bodies here are UTF-8).
    var detail: WireObject {
        var object = summary
        object["headers"] = .object(WireObject(pairs: headers.map { header in
            (header.name, .string(Self.secretHeaders.contains(header.name.lowercased()) ? "****" : header.value))
        }))
        object["body"] = .string(String(decoding: body, as: UTF8.self))
        return object
    }
}

extension WireObject {
    init(pairs: [(String, Wire)]) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }
}

/// Sends one HTTP POST; answers the status code and body.
protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async throws
        -> (status: Int, body: [UInt8])
    func shutdown() async
}

/// Whether `url` is `http(s)://` on a loopback host (127.0.0.0/8, ::1, localhost).
func isLoopbackURL(_ url: String) -> Bool {
    let lower = url.lowercased()
    let rest: Substring
    if lower.hasPrefix("http://") { rest = lower.dropFirst(7) } else if lower.hasPrefix("https://") { rest = lower.dropFirst(8) } else { return false }
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if authority.contains("@") { return false }
    let host: Substring
    if authority.hasPrefix("[") {
        guard let close = authority.firstIndex(of: "]") else { return false }
        host = authority[authority.index(after: authority.startIndex)..<close]
    } else {
        host = authority.prefix { $0 != ":" }
    }
    if host == "localhost" || host == "::1" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
}
