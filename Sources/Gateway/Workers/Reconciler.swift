public import Foundation
import Postgres

/// Something the reconciler did, for the caller's log and for tests.
public enum ReconcilerEvent: Sendable {
    /// Orders claimed by one query (their ids).
    case claimed([UUID])
    /// An order was re-read from its provider: its status and whether it still needs reconciliation.
    case synced(order: UUID, status: String, needsReconciliation: Bool, providerErrors: [String])
    /// An order stayed open past expiry + grace and is now EXPIRED.
    case expired(order: UUID)
    /// A step failed (database or provider wiring); the order is looked at again when its lease ends.
    case failed(order: UUID?, message: String)
}

/// Re-reads open orders from their provider until they are final (API README decision 1):
/// orders whose creation or verification had an unknown outcome (`needsReconciliation`),
/// every order in CREATED, ATTEMPTED or PENDING, and every order with a PENDING refund (the
/// re-read settles it: ``RefundReconciliation``), on a backoff schedule, until the
/// provider says final or the order is past its expiry (or creation + 24 h) + 24 h, when it
/// becomes EXPIRED. A lost creation is found again by its receipt (``OrderService/sync``).
///
/// Work is shared through the database (``ReconcileStore``): any number of reconcilers,
/// in one process or many, claim disjoint orders, and no order is re-read twice for one
/// due time. Owns one task between ``start()`` and ``shutdown()``.
public final class Reconciler: Sendable {
    private let orders: OrderService
    /// UPI collects nobody reads are checked here too (each at most once per its next check).
    private let collects: UpiCollectService?
    private let store: ReconcileStore
    private let configuration: ReconcilerConfiguration
    private let report: @Sendable (ReconcilerEvent) -> Void
    private let loop = WorkerLoop()

    /// A reconciler for `gateway`'s orders; `report` hears what it does (log it; it carries no secret).
    public convenience init(gateway: Gateway, configuration: ReconcilerConfiguration = .init(),
                            report: @escaping @Sendable (ReconcilerEvent) -> Void = { _ in }) {
        self.init(orders: gateway.services.orders, pool: gateway.services.pool, configuration: configuration,
                  collects: gateway.services.upiCollects, report: report)
    }

    init(orders: OrderService, pool: PostgresPool, configuration: ReconcilerConfiguration, collects: UpiCollectService? = nil,
         report: @escaping @Sendable (ReconcilerEvent) -> Void) {
        self.orders = orders
        self.collects = collects
        store = ReconcileStore(pool: pool)
        self.configuration = configuration
        self.report = report
    }

    /// Starts the background loop (once; later calls do nothing).
    public func start() {
        loop.start(interval: configuration.interval) { [self] in
            let claimed: Int
            do {
                claimed = try await runOnce()
            } catch {
                // Cut short by shutdown: not a failure.
                if !loop.isStopping { report(.failed(order: nil, message: "claiming due orders: \(error)")) }
                claimed = 0
            }
            // Pending UPI collects whose check is due (their own lease keeps two workers off one).
            await collects?.checkDue(limit: max(1, configuration.batchSize))
            // A full batch means more are due: go on at once; otherwise wait.
            return claimed >= configuration.batchSize
        }
    }

    /// Stops the loop: no new claims; an order being re-read is abandoned (its lease ends and
    /// another worker takes it). Returns once the loop has ended.
    public func shutdown() async {
        await loop.shutdown(cancellingWork: true)
    }

    /// Claims the orders due now (one batch) and reconciles each; returns how many were claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        let now = configuration.now()
        let claims = try await store.claim(now: now, createdBefore: now.adding(.zero - configuration.creationGrace),
                                           leaseEnd: now.adding(configuration.lease), limit: max(1, configuration.batchSize))
        guard !claims.isEmpty else { return 0 }
        report(.claimed(claims.map(\.order.id)))
        await WorkerLoop.forEach(claims, width: configuration.concurrency) { [self] claim in await reconcile(claim) }
        return claims.count
    }

    private func reconcile(_ claim: ReconcileStore.Claim) async {
        let now = configuration.now()
        var order = claim.order
        do {
            switch ReconcilePolicy.before(candidate(order, attempts: claim.attempts, pendingRefunds: claim.pendingRefunds), now: now, configuration) {
            case .done:
                try await store.release(claim, next: nil)
                return
            case .wait(let until):
                try await store.release(claim, next: until)
                return
            case .sync(let last):
                if order.providerOrderID == nil, !order.needsReconciliation {
                    // Flagged now, or finished meanwhile by its createOrder call: either way read it again.
                    var current = try await store.flagUnfinishedCreation(orderID: order.id)
                    if current == nil { current = try await orders.orders.find(id: order.id) }
                    guard let current else {
                        try await store.release(claim, next: nil)
                        return
                    }
                    order = current
                }
                let context = GatewayRequestContext(principal: Self.principal, idempotencyHeader: nil)
                let synced = try await orders.sync(order: order, context: context, source: "RECONCILER")
                order = synced.order
                report(.synced(order: order.id, status: order.status.rawValue, needsReconciliation: order.needsReconciliation,
                               providerErrors: synced.userErrors.map(\.description)))
                let pendingRefunds = try await store.hasPendingRefunds(orderID: order.id)
                switch ReconcilePolicy.after(candidate(order, attempts: claim.attempts, pendingRefunds: pendingRefunds), now: configuration.now(),
                                             last: last, configuration) {
                case .done:
                    try await store.release(claim, next: nil)
                case .again(let at):
                    try await store.release(claim, next: at)
                case .expire:
                    try await store.expire(orderID: order.id)
                    try await store.release(claim, next: nil)
                    report(.expired(order: order.id))
                }
            }
        } catch {
            // The lease keeps the order away from other workers until it ends; then it is tried again.
            // Cut short by shutdown, it is not a failure.
            if !loop.isStopping {
                report(.failed(order: order.id, message: "\(error)"))
            }
        }
    }

    private func candidate(_ order: OrderRecord, attempts: Int, pendingRefunds: Bool) -> ReconcileCandidate {
        ReconcileCandidate(status: order.status, needsReconciliation: order.needsReconciliation, hasProviderOrder: order.providerOrderID != nil,
                           createdAt: order.createdAt, expiresAt: order.expiresAt, attempts: attempts, pendingRefunds: pendingRefunds)
    }

    /// Who the reconciler acts as in the services (no API key: the all-zero id, OPS scope).
    private static let principal = Principal(apiKeyID: UUID(uuid: UUID.zero), scopes: [.ops], session: nil)
}
