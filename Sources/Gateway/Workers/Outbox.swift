public import Foundation
import JSON
public import Postgres

/// What an outbox message asks for; picks the ``OutboxHandler`` that delivers it
/// (`merchant.webhook`, `setu.payment_event`, …). Lower case, digits, `_` and `.`, at most 63 characters
/// (the table's CHECK).
public struct OutboxKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The stored name.
    public let rawValue: String

    /// A kind named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// The object a message is about. Messages of one kind about one object are delivered in the
/// order they were enqueued (a message waits while an earlier one is still PENDING).
public struct OutboxObject: Sendable, Hashable {
    /// The object's type, as GraphQL names it (`Order`, `Refund`, `BillPayment`).
    public var type: String
    /// Its row id.
    public var id: UUID

    /// The object `id` of `type` (letters only, at most 40: the table's CHECK).
    public init(type: String, id: UUID) {
        self.type = type
        self.id = id
    }

    /// An order.
    public static func order(_ id: UUID) -> OutboxObject { OutboxObject(type: "Order", id: id) }
}

/// Enqueues work to do after a commit (docs/DESIGN.md, "The outbox").
///
/// ```swift
/// try await pool.withTransaction { connection in
///     // … the state change, on `connection` …
///     try await Outbox.enqueue(kind: OutboxKind(rawValue: "setu.payment_event"), object: OutboxObject(type: "BillPayment", id: bill.id),
///                              orderID: bill.orderID, payload: body, on: connection)
/// }
/// ```
/// The row commits or rolls back with the change: a message exists exactly when the change
/// does. A worker (``OutboxWorker``) later claims it and calls the handler registered for its
/// kind until the handler says delivered or refused, or the give-up horizon passes.
public enum Outbox {
    /// Inserts a PENDING message, due now, on `connection` (inside the caller's transaction).
    ///   - id: the message's public id (merchant webhooks use it as the event id); a fresh one by default.
    ///   - orderID: the order it concerns, if any (the delivery log lists by order).
    ///   - payload: JSON the handler reads; never put a secret in it (it is stored as is).
    /// Returns the message's id. Throws the database's error (the caller's transaction then rolls back).
    @discardableResult
    public static func enqueue(kind: OutboxKind, object: OutboxObject, orderID: UUID? = nil, payload: PostgresJSONB,
                               id: UUID = UUID(), on connection: PostgresConnection) async throws -> UUID {
        _ = try await connection.query("""
            INSERT INTO outbox (uuid, kind, object_type, object_id, order_id, payload)
            VALUES (\(id), \(kind.rawValue), \(object.type), \(object.id), \(orderID), \(payload))
            """)
        return id
    }
}

/// One message as a handler sees it.
public struct OutboxMessage: Sendable {
    /// The public id (given to ``Outbox/enqueue(kind:object:orderID:payload:id:on:)``).
    public var id: UUID
    /// Enqueue order (ascending across the table).
    public var sequence: Int64
    public var kind: OutboxKind
    public var object: OutboxObject
    public var orderID: UUID?
    /// The JSON text stored at enqueue (as PostgreSQL prints jsonb).
    public var payload: PostgresJSONB
    /// Attempts so far, this one included (1 on the first).
    public var attempts: Int
    public var createdAt: PostgresTimestamp
}

/// What a handler did with a message.
public struct OutboxResult: Sendable, Equatable {
    /// The three ends of an attempt.
    public enum Disposition: Sendable, Equatable {
        /// Done: never sent again (unless OPS asks).
        case delivered
        /// Not done; try again on the schedule (until the give-up horizon).
        case retry
        /// The receiver refused it for good (e.g. a 4xx that repeating cannot fix): given up now.
        case refused
    }

    public var disposition: Disposition
    /// Why it was not delivered (stored, shown to OPS: never a secret). At most 1000 characters are kept.
    public var error: String?
    /// The receiver's HTTP status, when there was one.
    public var statusCode: Int?
    /// Where the attempt went (a URL without credentials), for the log.
    public var target: String?

    /// Delivered.
    public static func delivered(statusCode: Int? = nil, target: String? = nil) -> OutboxResult {
        OutboxResult(disposition: .delivered, error: nil, statusCode: statusCode, target: target)
    }

    /// Try again later.
    public static func retry(_ error: String, statusCode: Int? = nil, target: String? = nil) -> OutboxResult {
        OutboxResult(disposition: .retry, error: error, statusCode: statusCode, target: target)
    }

    /// Refused for good.
    public static func refused(_ error: String, statusCode: Int? = nil, target: String? = nil) -> OutboxResult {
        OutboxResult(disposition: .refused, error: error, statusCode: statusCode, target: target)
    }
}

/// Delivers the messages of one kind. `deliver` must finish by `deadline` (the worker cancels
/// it then and counts a retry) and must not throw: failures are ``OutboxResult/retry(_:statusCode:target:)``.
public struct OutboxHandler: Sendable {
    /// The kind it delivers.
    public var kind: OutboxKind
    /// One attempt at `message`; finish by `deadline`.
    public var deliver: @Sendable (_ message: OutboxMessage, _ deadline: ContinuousClock.Instant) async -> OutboxResult

    /// A handler for `kind`.
    public init(kind: OutboxKind, deliver: @escaping @Sendable (_ message: OutboxMessage, _ deadline: ContinuousClock.Instant) async -> OutboxResult) {
        self.kind = kind
        self.deliver = deliver
    }
}

/// When a message is tried again: the n-th delay after the n-th failed attempt, the last repeated.
public struct OutboxSchedule: Sendable, Equatable {
    /// Delay after attempt 1, 2, …; never empty.
    public var delays: [Duration]

    /// A schedule from `delays` (empty: every 5 minutes).
    public init(delays: [Duration]) {
        self.delays = delays.isEmpty ? [.seconds(300)] : delays
    }

    /// 10 s, 30 s, 1 min, 2 min, 5 min, 10 min, 30 min, then every hour.
    public static let standard = OutboxSchedule(delays: [
        .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600), .seconds(1800), .seconds(3600),
    ])

    /// The wait after attempt `attempt` (1-based; 0 and below read as 1).
    public func delay(afterAttempt attempt: Int) -> Duration {
        delays[min(max(attempt, 1), delays.count) - 1]
    }
}

/// How an ``OutboxWorker`` works; every value has a documented default (docs/api.md, "The outbox").
public struct OutboxConfiguration: Sendable {
    /// How often an idle worker looks for due messages. Default 1 s.
    public var interval: Duration = .seconds(1)
    /// Messages claimed per query. Default 20.
    public var batchSize: Int = 20
    /// Messages of one batch delivered at the same time. Default 4.
    public var concurrency: Int = 4
    /// The most one attempt may take (the handler's deadline). Default 15 s.
    public var attemptTimeout: Duration = .seconds(15)
    /// How long a claim keeps a message from other workers: longer than an attempt, so a live
    /// worker's message is never sent twice; after a crash, the message is sent again when it ends.
    /// Default 60 s.
    public var lease: Duration = .seconds(60)
    /// When to try again after each failed attempt.
    public var schedule: OutboxSchedule = .standard
    /// A message not delivered this long after it was enqueued (or redelivery was asked) is given up. Default 24 h.
    public var giveUpAfter: Duration = .seconds(24 * 3600)
    /// The most a database step may take before the worker stops waiting for it. Default 30 s.
    public var databaseTimeout: Duration = .seconds(30)
    /// Delivered and given-up messages older than this (by creation) are deleted; nil keeps them
    /// for good. Default 30 days: the delivery log (`merchantWebhookDeliveries`) reaches that far back.
    public var retention: Duration? = .seconds(30 * 86_400)
    /// How often a worker looks for messages past the retention. Default 10 minutes.
    public var purgeInterval: Duration = .seconds(600)
    /// Now; tests pass a clock they move.
    public var now: @Sendable () -> PostgresTimestamp = { PostgresTimestamp(Date()) }

    /// The defaults.
    public init() {}
}

extension OutboxKind {
    /// A merchant notification (``MerchantWebhooks``).
    public static let merchantWebhook = OutboxKind(rawValue: "merchant.webhook")
}
