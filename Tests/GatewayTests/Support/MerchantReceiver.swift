import Crypto
import Foundation
@testable import Gateway
import HTTPServer
import JSON
import PaymentsCore
import Synchronization

/// A merchant's webhook endpoint on loopback: records every POST (checking `PayQL-Signature`
/// with `secret`), answers with the status `respond` picks (200 unless told), optionally after a pause.
final class MerchantReceiver: Sendable {
    /// One POST as received.
    struct Received: Sendable {
        var eventID: String
        var type: String
        var orderID: String?
        var body: [UInt8]
        var signatureValid: Bool
        var signatureTimestamp: Int64?
        var answered: Int
    }

    let server: HTTPServer
    let secret: String
    private let received = Mutex<[Received]>([])
    private let inFlight = Atomic<Int>(0)
    private let respond: Mutex<@Sendable (Int, JSONValue) -> Int>
    private let pause: Duration

    /// `http://127.0.0.1:PORT/hooks`
    var url: String { "http://127.0.0.1:\(server.port)/hooks" }

    init(secret: String = "whsec_test_0123456789", pause: Duration = .zero,
         respond: @escaping @Sendable (_ index: Int, _ event: JSONValue) -> Int = { _, _ in 200 }) throws {
        self.secret = secret
        self.pause = pause
        self.respond = Mutex(respond)
        let box = Mutex<MerchantReceiver?>(nil)
        server = try HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2), handler: ClosureHandler { request in
            guard let receiver = box.withLock({ $0 }) else { return HTTPResponse(status: 503) }
            return await receiver.handle(request)
        })
        box.withLock { $0 = self }
    }

    /// Sets how later requests are answered.
    func answer(_ respond: @escaping @Sendable (_ index: Int, _ event: JSONValue) -> Int) { self.respond.withLock { $0 = respond } }

    private func handle(_ request: HTTPRequest) async -> HTTPResponse {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        if pause > .zero { try? await Task.sleep(for: pause) }
        let event = (try? JSONParser.parse(request.body)) ?? .null
        let (valid, timestamp) = Self.verify(header: request.headers["payql-signature"] ?? "", body: request.body, secret: secret)
        let status = received.withLock { all -> Int in
            let status = respond.withLock { $0 }(all.count, event)
            all.append(Received(eventID: event["id"]?.stringValue ?? "", type: event["type"]?.stringValue ?? "",
                                orderID: event["data"]?["orderId"]?.stringValue, body: request.body, signatureValid: valid,
                                signatureTimestamp: timestamp, answered: status))
            return status
        }
        return HTTPResponse(status: status, body: Array("ok".utf8))
    }

    /// The documented verification (docs/api.md): recompute the HMAC over `t + "." + body`, compare in constant time.
    static func verify(header: String, body: [UInt8], secret: String) -> (Bool, Int64?) {
        var timestamp: Int64?
        var signature: String?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signature = pair[1] }
        }
        guard let timestamp, let signature, let given = Encoding.bytes(hex: signature) else { return (false, timestamp) }
        let expected = Crypto.hmac(.sha256, key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
        return (Crypto.constantTimeEquals(expected, given), timestamp)
    }

    var all: [Received] { received.withLock { $0 } }
    var busy: Int { inFlight.load(ordering: .relaxed) }

    func shutdown() async { await server.shutdown(gracePeriod: .seconds(1)) }
}

extension GatewayHarness {
    /// Runs `body` with a PayQL whose merchant notifications go to `receiver`.
    static func withMerchant(_ receiver: MerchantReceiver, _ body: (GatewayHarness) async throws -> Void) async throws {
        var configuration = GatewayConfiguration()
        configuration.merchantWebhooks = MerchantWebhookConfiguration(url: receiver.url, secret: Secret(receiver.secret))
        do {
            try await run(configuration: configuration, body)
        } catch {
            await receiver.shutdown()
            throw error
        }
        await receiver.shutdown()
    }

    /// An outbox worker over this harness's gateway on `clock` (fast schedule: 10 s, then 60 s); not started.
    func outboxWorker(clock: TestClock = TestClock(), adjust: (inout OutboxConfiguration) -> Void = { _ in }) -> OutboxWorker {
        var configuration = OutboxConfiguration()
        configuration.now = { clock.now() }
        configuration.interval = .milliseconds(20)
        configuration.schedule = OutboxSchedule(delays: [.seconds(10), .seconds(60)])
        adjust(&configuration)
        return OutboxWorker(gateway: gateway, client: client, configuration: configuration)
    }

    /// Runs `worker` pass by pass until a pass claims nothing.
    func drain(_ worker: OutboxWorker) async throws {
        for _ in 0..<100 where try await worker.runOnce() > 0 {}
    }
}
