import Metrics
import Postgres
import Support

/// The Gateway's figures on `/metrics` beyond provider calls (docs/operations.md, "Metrics"):
///
/// - `payql_webhook_events_total{provider, result}`: every delivery to `/webhooks/{provider}`, by what
///   PayQL did with it (`applied`, `unmatched`, `ignored`, `duplicate`, `rejected`, `unknown_provider`, `error`);
/// - `payql_db_pool_connections{state}` and `payql_db_pool_waiters`: the PostgreSQL pool, read at scrape time;
/// - `payql_reconciler_backlog`, `payql_reconciler_oldest_due_seconds`, `payql_orders_needing_reconciliation`,
///   `payql_outbox_depth{kind}`, `payql_outbox_oldest_age_seconds{kind}`: read from the database at scrape time
///   with two bounded statements in one transaction (a 2 s statement timeout, each count capped at `countCap`),
///   at most once per `refreshInterval` however often the endpoint is scraped.
///   Shared by every instance on the database: the figures are the database's, not this instance's.
final class GatewayMetrics: Sendable {
    /// Counts above this are reported as this (a count must not scan a whole table at scrape time).
    static let countCap: Int64 = 100_000
    /// Database-derived gauges are re-read at most this often.
    let refreshInterval: Duration
    private let pool: PostgresPool
    private let webhookEvents: Counter
    private let backlog: Gauge
    private let oldestDue: Gauge
    private let flagged: Gauge
    private let refreshFailures: Counter
    private let outboxDepth: Gauge
    private let outboxAge: Gauge
    /// Outbox kinds seen pending before: set back to 0 when none is pending any more.
    private let outboxKinds = Locked<Set<String>>([])
    /// When the database gauges were last read (nil: never), so bursts of scrapes cost one statement.
    private let lastRefresh = Locked<ContinuousClock.Instant?>(nil)
    /// How long after creation the reconciler first looks at an order (its default `creationGrace`).
    private let creationGraceSeconds: Int64

    init(registry: MetricsRegistry, pool: PostgresPool, refreshInterval: Duration = .seconds(1)) {
        self.pool = pool
        self.refreshInterval = refreshInterval
        creationGraceSeconds = ReconcilerConfiguration().creationGrace.components.seconds
        webhookEvents = registry.counter("payql_webhook_events_total", help: "Provider webhook deliveries by provider and result.",
                                         labels: ["provider", "result"])
        backlog = registry.gauge("payql_reconciler_backlog",
                                 help: "Open or flagged orders whose reconciliation is due now (capped at \(Self.countCap)).")
        oldestDue = registry.gauge("payql_reconciler_oldest_due_seconds",
                                   help: "How long the longest-waiting due order has been due (0 when none).")
        flagged = registry.gauge("payql_orders_needing_reconciliation",
                                 help: "Orders flagged needsReconciliation (an unknown provider outcome; capped at \(Self.countCap)).")
        outboxDepth = registry.gauge("payql_outbox_depth", help: "Outbox messages not yet delivered, by kind (capped at \(Self.countCap)).",
                                     labels: ["kind"])
        outboxAge = registry.gauge("payql_outbox_oldest_age_seconds",
                                   help: "Age of the oldest undelivered outbox message, by kind.", labels: ["kind"])
        refreshFailures = registry.counter("payql_metrics_refresh_failures_total",
                                           help: "Scrapes whose database figures could not be read (the last values were served).")
        registry.addCollector { [pool] in
            let statistics = pool.statistics
            var text = "# HELP payql_db_pool_connections PostgreSQL pool connections by state.\n"
            text += "# TYPE payql_db_pool_connections gauge\n"
            for (state, value) in [("idle", statistics.idle), ("leased", statistics.leased), ("shared", statistics.shared),
                                   ("opening", statistics.opening)] {
                text += "payql_db_pool_connections{state=\"\(state)\"} \(value)\n"
            }
            text += "# HELP payql_db_pool_waiters Tasks waiting for a PostgreSQL connection.\n"
            text += "# TYPE payql_db_pool_waiters gauge\n"
            text += "payql_db_pool_waiters \(statistics.waiting)\n"
            return text
        }
    }

    /// Counts one webhook delivery. `provider` is one PayQL knows (or `unknown`), so the label set stays small.
    func webhook(provider: String, result: String) {
        webhookEvents.increment([provider, result])
    }

    /// Re-reads the database gauges unless that was done within `refreshInterval`; on failure the last
    /// values stay and `payql_metrics_refresh_failures_total` counts it.
    func refresh() async {
        let now = ContinuousClock.now
        let due = lastRefresh.withLock { last in
            if let last, now - last < refreshInterval { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            let figures = try await pool.withTransaction { connection in
                _ = try await connection.query("SET LOCAL statement_timeout = 2000")
                // orders_reconcile_idx's predicate (migration 0002), so only open or flagged orders are read.
                let orders = try await connection.query("""
                    SELECT
                      (SELECT count(*) FROM (SELECT 1 FROM orders
                         WHERE (needs_reconciliation OR status IN ('CREATED', 'ATTEMPTED', 'PENDING'))
                           AND coalesce(reconcile_after, created_at + make_interval(secs => \(creationGraceSeconds))) <= now()
                         LIMIT \(Self.countCap)) AS due),
                      (SELECT coalesce(extract(epoch FROM now() - min(coalesce(reconcile_after,
                                created_at + make_interval(secs => \(creationGraceSeconds))))), 0)::float8 FROM orders
                         WHERE (needs_reconciliation OR status IN ('CREATED', 'ATTEMPTED', 'PENDING'))
                           AND coalesce(reconcile_after, created_at + make_interval(secs => \(creationGraceSeconds))) <= now()),
                      (SELECT count(*) FROM (SELECT 1 FROM orders
                         WHERE needs_reconciliation AND (needs_reconciliation OR status IN ('CREATED', 'ATTEMPTED', 'PENDING'))
                         LIMIT \(Self.countCap)) AS flagged)
                    """).single((Int64, Double, Int64).self)
                // outbox_due_idx's predicate (migration 0009): only undelivered messages are read.
                let outbox = try await connection.query("""
                    SELECT kind, count(*), extract(epoch FROM now() - min(created_at))::float8
                    FROM (SELECT kind, created_at FROM outbox WHERE state = 'PENDING' LIMIT \(Self.countCap)) AS pending
                    GROUP BY kind
                    """).decode((String, Int64, Double).self)
                return (orders, outbox)
            }
            let (orders, outbox) = figures
            let pendingKinds = Set(outbox.map(\.0))
            let emptied = outboxKinds.withLock { known in
                let emptied = known.subtracting(pendingKinds)
                known.formUnion(pendingKinds)
                return emptied
            }
            for (kind, depth, age) in outbox {
                outboxDepth.set(Double(depth), [kind])
                outboxAge.set(max(0, age), [kind])
            }
            for kind in emptied {
                outboxDepth.set(0, [kind])
                outboxAge.set(0, [kind])
            }
            guard let (dueCount, oldestSeconds, flaggedCount) = orders else { return }
            backlog.set(Double(dueCount))
            oldestDue.set(max(0, oldestSeconds))
            flagged.set(Double(flaggedCount))
        } catch {
            refreshFailures.increment()
        }
    }
}
