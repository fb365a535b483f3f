public import Foundation
public import GraphQL
import JSON
public import Postgres
import Synchronization

/// What every resolver of one request shares: the caller, the HTTP
/// `Idempotency-Key` header, and the time spent waiting on providers and the
/// database (reported in `extensions.timing`).
public final class GatewayRequestContext: Sendable {
    /// Who is calling.
    public let principal: Principal
    /// The `Idempotency-Key` request header, when sent.
    public let idempotencyHeader: String?
    /// Nanoseconds spent in provider calls.
    let providerNanoseconds = Atomic<Int64>(0)
    /// Time spent in PostgreSQL by this request's resolvers (bound around each one, see ``ResolverSet``).
    let databaseTime = PostgresTimeAccount()

    /// A context for `principal`.
    public init(principal: Principal, idempotencyHeader: String?) {
        self.principal = principal
        self.idempotencyHeader = idempotencyHeader
    }

    /// Runs `body`, adding its duration to the provider time.
    func timingProvider<T>(_ body: () async throws -> T) async rethrows -> T {
        let started = ContinuousClock.now
        defer { providerNanoseconds.add(Self.nanoseconds(since: started), ordering: .relaxed) }
        return try await body()
    }

    /// `extensions.timing`: total, provider and database milliseconds, and the gateway's own
    /// share (total − provider). Database time sums concurrent statements.
    func timing(total: Duration) -> JSONObject {
        let (seconds, attoseconds) = total.components
        let totalNanoseconds = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        let provider = providerNanoseconds.load(ordering: .relaxed)
        return [
            "totalMs": .double(Self.milliseconds(totalNanoseconds)),
            "providerMs": .double(Self.milliseconds(provider)),
            "databaseMs": .double(Self.milliseconds(databaseTime.nanoseconds)),
            "gatewayMs": .double(Self.milliseconds(max(0, totalNanoseconds - provider))),
        ]
    }

    /// The members of `extensions` this context adds, `"timing":{...}` (the object
    /// ``timing(total:)`` gives, in the same text), written straight into a response body:
    /// no objects and no buffer made per request (see `ResponseExtensions(writingMembers:)`).
    func writeTiming(total: Duration, into body: inout [UInt8]) {
        let (seconds, attoseconds) = total.components
        let totalNanoseconds = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        let provider = providerNanoseconds.load(ordering: .relaxed)
        body.append(contentsOf: #""timing":{"totalMs":"#.utf8)
        Self.writeMilliseconds(totalNanoseconds, into: &body)
        body.append(contentsOf: #","providerMs":"#.utf8)
        Self.writeMilliseconds(provider, into: &body)
        body.append(contentsOf: #","databaseMs":"#.utf8)
        Self.writeMilliseconds(databaseTime.nanoseconds, into: &body)
        body.append(contentsOf: #","gatewayMs":"#.utf8)
        Self.writeMilliseconds(max(0, totalNanoseconds - provider), into: &body)
        body.append(UInt8(ascii: "}"))
    }

    /// ``milliseconds(_:)`` as JSON writes it (a `Double`'s shortest form: a short string, held inline).
    private static func writeMilliseconds(_ nanoseconds: Int64, into body: inout [UInt8]) {
        var text = milliseconds(nanoseconds).description
        text.withUTF8 { body.append(contentsOf: $0) }
    }

    /// Milliseconds with microsecond precision.
    static func milliseconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 1000) / 1000 }

    static func nanoseconds(since started: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - started
        let (seconds, attoseconds) = elapsed.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }
}

extension ResolveInput {
    /// The request's context; a resolver running without one is a wiring bug, reported as INTERNAL.
    var gateway: GatewayRequestContext {
        get throws(GatewayRequestError) {
            guard let context = context as? GatewayRequestContext else { throw GatewayRequestError.internal("no request context") }
            return context
        }
    }
}
