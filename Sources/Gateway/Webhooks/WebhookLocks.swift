import Foundation
import PaymentsCore
import Postgres
import Providers

/// The orders and payments a batch of webhook deliveries touches, locked (`FOR UPDATE`) for the
/// rest of its transaction and kept as they are now: read for the whole batch in two statements,
/// then updated in memory by each delivery's effect, so later deliveries of the batch need no read.
///
/// Only rows this transaction locked are kept, so nothing else can change them behind it; code
/// that changes them without returning the new row (refunds, bill confirmations) calls
/// ``forgetPayments()`` / ``forgetOrder(_:)`` and they are read again when next needed.
struct WebhookLocks: Sendable {
    /// A provider's id for one of its objects.
    struct Key: Hashable, Sendable {
        var provider: ProviderName
        var id: String
    }

    /// Orders by provider order id; nil: looked for and absent.
    private var orders: [Key: OrderRecord?] = [:]
    /// Payments by provider payment id; nil: looked for and absent.
    private var payments: [Key: PaymentRecord?] = [:]
    /// ``forgetPayments()`` was called since this copy was made (``fork(for:)``).
    private var forgotPayments = false

    /// Nothing known yet.
    init() {}

    /// Locks and reads, in two statements, every order and payment `events` name (orders first, each
    /// set in (provider, id) order, so concurrent batches lock in one order and cannot deadlock each other).
    /// Each statement looks its keys up one by one on the unique index of (provider, provider's id): a
    /// lateral subquery per key, kept from being flattened into a join by its `LIMIT 1` (the key is
    /// unique), so the plan is an index probe per key whatever the table's statistics say — the same
    /// statement as `provider = ANY(…) AND id = ANY(…)` was planned, with statistics taken while the table
    /// was small (a table filling faster than autovacuum analyzes it), as a scan of every row of the
    /// provider: ~1.1 ms a batch at 5,000 payments, finding none (the benchmark's new payments).
    mutating func prefetch(_ events: [WebhookEvent], on connection: PostgresConnection) async throws {
        var orderKeys: Set<Key> = []
        var paymentKeys: Set<Key> = []
        for event in events where event.provider != .setu {
            if let order = event.orderID { orderKeys.insert(Key(provider: event.provider, id: order)) }
            if let payment = event.paymentID, event.refundID == nil, event.refundReference == nil {
                paymentKeys.insert(Key(provider: event.provider, id: payment))
            }
        }
        if !orderKeys.isEmpty {
            let keys = Self.sorted(orderKeys)
            let rows = try await connection.query("""
                SELECT \(sql: OrderStore.columns)
                FROM unnest(\(keys.map(\.provider.rawValue))::text[], \(keys.map(\.id))::text[]) AS wanted (wanted_provider, wanted_id)
                CROSS JOIN LATERAL (SELECT * FROM orders WHERE provider = wanted_provider AND provider_order_id = wanted_id LIMIT 1) AS found
                FOR UPDATE OF found
                """)
            for key in orderKeys { orders[key] = .some(nil) }
            for row in rows {
                let order = try OrderStore.record(row)
                if let id = order.providerOrderID, case let key = Key(provider: order.provider, id: id), orderKeys.contains(key) { orders[key] = order }
            }
        }
        if !paymentKeys.isEmpty {
            let keys = Self.sorted(paymentKeys)
            let rows = try await connection.query("""
                SELECT \(sql: PaymentStore.paymentColumns)
                FROM unnest(\(keys.map(\.provider.rawValue))::text[], \(keys.map(\.id))::text[]) AS wanted (wanted_provider, wanted_id)
                CROSS JOIN LATERAL (SELECT * FROM payments WHERE provider = wanted_provider AND provider_payment_id = wanted_id LIMIT 1) AS found
                FOR UPDATE OF found
                """)
            for key in paymentKeys { payments[key] = .some(nil) }
            for row in rows {
                let payment = try PaymentStore.payment(row)
                let key = Key(provider: payment.provider, id: payment.providerPaymentID)
                if paymentKeys.contains(key) { payments[key] = payment }
            }
        }
    }

    /// The order `provider` knows as `id`, locked; nil when there is none. One absent at the
    /// prefetch is looked for again (it may have been created since).
    mutating func order(provider: ProviderName, id: String, on connection: PostgresConnection) async throws -> OrderRecord? {
        let key = Key(provider: provider, id: id)
        if case .some(.some(let order)) = orders[key] { return order }
        let found = try await connection.query("""
            SELECT \(sql: OrderStore.columns) FROM orders WHERE provider = \(provider.rawValue) AND provider_order_id = \(id) FOR UPDATE
            """).first.map(OrderStore.record)
        orders[key] = .some(found)
        return found
    }

    /// The payment `provider` knows as `id`, locked; nil when there is none (yet).
    mutating func payment(provider: ProviderName, id: String, on connection: PostgresConnection) async throws -> PaymentRecord? {
        let key = Key(provider: provider, id: id)
        if let known = payments[key] { return known }
        let found = try await PaymentStore.lockPayment(provider: provider, providerPaymentID: id, on: connection)
        payments[key] = .some(found)
        return found
    }

    /// `order` as it is now (after this transaction changed it).
    mutating func store(_ order: OrderRecord) {
        if let id = order.providerOrderID { orders[Key(provider: order.provider, id: id)] = order }
    }

    /// `payment` as it is now (after this transaction wrote it).
    mutating func store(_ payment: PaymentRecord) {
        payments[Key(provider: payment.provider, id: payment.providerPaymentID)] = payment
    }

    /// Payments may have changed behind the cache: read them again when next needed (still locked).
    mutating func forgetPayments() {
        payments = [:]
        forgotPayments = true
    }

    /// A copy for one delivery applied beside others (each touching its own order and payment), holding
    /// only what applying `event` reads: its order and its payment. (A copy of everything cost each
    /// delivery of a wave a copy of every order record once it stored its own: the wave's size squared.)
    func fork(for event: WebhookEvent) -> WebhookLocks {
        var copy = WebhookLocks()
        if let order = event.orderID, case let key = Key(provider: event.provider, id: order), let known = orders[key] {
            copy.orders[key] = .some(known)
        }
        if let payment = event.paymentID, case let key = Key(provider: event.provider, id: payment), let known = payments[key] {
            copy.payments[key] = .some(known)
        }
        return copy
    }

    /// Takes back from `fork` (a ``fork(for:)`` that applied `event`) what that event changed: its
    /// order and its payment as they are now, and whether payments must be read again.
    mutating func absorb(_ fork: WebhookLocks, appliedFor event: WebhookEvent) {
        if let order = event.orderID {
            let key = Key(provider: event.provider, id: order)
            orders[key] = fork.orders[key]
        }
        if let payment = event.paymentID {
            let key = Key(provider: event.provider, id: payment)
            payments[key] = fork.payments[key]
        }
        if fork.forgotPayments { forgetPayments() }
    }

    /// `keys` in the order every batch locks them: by provider, then by the provider's id. (The lookups run
    /// in the arrays' order, `unnest` feeding a nested loop, so each row is locked in this order.)
    static func sorted(_ keys: Set<Key>) -> [Key] {
        keys.sorted { ($0.provider.rawValue, $0.id) < ($1.provider.rawValue, $1.id) }
    }

    /// What is known now of the order `provider` knows as `id`: `.some(nil)` when it was looked for and is
    /// absent, nil when it was not looked for (no statement: ``WebhookBatchWriter`` predicts from it).
    func known(order id: String, provider: ProviderName) -> OrderRecord?? { orders[Key(provider: provider, id: id)] }

    /// What is known now of the payment `provider` knows as `id` (as ``known(order:provider:)``).
    func known(payment id: String, provider: ProviderName) -> PaymentRecord?? { payments[Key(provider: provider, id: id)] }

    /// `order` may have changed behind the cache: read it again when next needed (still locked).
    mutating func forgetOrder(_ order: OrderRecord) {
        if let id = order.providerOrderID { orders[Key(provider: order.provider, id: id)] = nil }
    }
}
