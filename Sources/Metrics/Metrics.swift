#if canImport(Glibc)
import Glibc
#endif
import Support
import Synchronization

/// Prometheus metrics that any part of the server can add to; `render()` gives
/// the text exposition format (version 0.0.4) served at `/metrics`.
///
/// Label values come from requests (operation names), so each metric keeps at
/// most `maxSeriesPerMetric` label sets; further ones are counted under the
/// value `__other__` so that a hostile client cannot grow memory without bound.
public final class MetricsRegistry: Sendable {
    /// Label sets kept per metric before folding into `__other__`.
    public let maxSeriesPerMetric: Int
    private let metrics = Locked<[any RenderableMetric]>([])
    private let collectors = Locked<[@Sendable () -> String]>([])

    /// An empty registry.
    public init(maxSeriesPerMetric: Int = 500) {
        self.maxSeriesPerMetric = maxSeriesPerMetric
    }

    /// A new counter (monotonic).
    public func counter(_ name: String, help: String, labels: [String] = []) -> Counter {
        let metric = Counter(name: name, help: help, labelNames: labels, maxSeries: maxSeriesPerMetric)
        metrics.withLock { $0.append(metric) }
        return metric
    }

    /// A new gauge (goes up and down).
    public func gauge(_ name: String, help: String, labels: [String] = []) -> Gauge {
        let metric = Gauge(name: name, help: help, labelNames: labels, maxSeries: maxSeriesPerMetric)
        metrics.withLock { $0.append(metric) }
        return metric
    }

    /// A new histogram with upper bucket bounds `buckets` (seconds for latencies).
    public func histogram(
        _ name: String, help: String, labels: [String] = [],
        buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    ) -> Histogram {
        let metric = Histogram(name: name, help: help, labelNames: labels, buckets: buckets.sorted(), maxSeries: maxSeriesPerMetric)
        metrics.withLock { $0.append(metric) }
        return metric
    }

    /// Adds text produced at scrape time (already in exposition format), for
    /// figures read from elsewhere such as a connection pool.
    public func addCollector(_ collector: @escaping @Sendable () -> String) {
        collectors.withLock { $0.append(collector) }
    }

    /// The exposition text of every metric.
    public func render() -> String {
        var output = ""
        for metric in metrics.withLock({ $0 }) { metric.render(into: &output) }
        for collector in collectors.withLock({ $0 }) {
            var text = collector()
            if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
            output += text
        }
        return output
    }
}

protocol RenderableMetric: Sendable {
    func render(into output: inout String)
}

/// Label handling shared by the metric kinds (and by collectors that print their own series).
public enum LabelSet {
    static func key(_ values: [String], names: [String]) -> [String] {
        var values = values
        if values.count < names.count { values += Array(repeating: "", count: names.count - values.count) }
        if values.count > names.count { values.removeLast(values.count - names.count) }
        return values
    }

    /// `{name="value",...}` in the exposition format (empty without labels); values escaped.
    public static func text(_ names: [String], _ values: [String], extra: (String, String)? = nil) -> String {
        var pairs = zip(names, values).map { "\($0)=\"\(escape($1))\"" }
        if let extra { pairs.append("\(extra.0)=\"\(extra.1)\"") }
        return pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}"
    }

    static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if value == .infinity { return "+Inf" }
        return String(value)
    }
}

/// A monotonically increasing count per label set.
public final class Counter: RenderableMetric {
    let name: String
    let help: String
    let labelNames: [String]
    let maxSeries: Int
    private let values = Locked<[[String]: Double]>([:])

    init(name: String, help: String, labelNames: [String], maxSeries: Int) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.maxSeries = maxSeries
    }

    /// Adds `amount` (≥ 0) to the series with these label values.
    public func increment(_ labels: [String] = [], by amount: Double = 1) {
        let key = LabelSet.key(labels, names: labelNames)
        values.withLock { values in
            if values[key] == nil, values.count >= maxSeries {
                values[key.map { _ in "__other__" }, default: 0] += max(0, amount)
            } else {
                values[key, default: 0] += max(0, amount)
            }
        }
    }

    /// The current value of a series.
    public func value(_ labels: [String] = []) -> Double {
        values.withLock { $0[LabelSet.key(labels, names: labelNames)] ?? 0 }
    }

    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        let snapshot = values.withLock { $0 }
        for (key, value) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            output += "\(name)\(LabelSet.text(labelNames, key)) \(LabelSet.format(value))\n"
        }
    }
}

/// A value that goes up and down per label set.
public final class Gauge: RenderableMetric {
    let name: String
    let help: String
    let labelNames: [String]
    let maxSeries: Int
    private let values = Locked<[[String]: Double]>([:])

    init(name: String, help: String, labelNames: [String], maxSeries: Int) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.maxSeries = maxSeries
    }

    /// Adds `amount` (may be negative).
    public func add(_ amount: Double, _ labels: [String] = []) {
        let key = LabelSet.key(labels, names: labelNames)
        values.withLock { values in
            guard values[key] != nil || values.count < maxSeries else { return }
            values[key, default: 0] += amount
        }
    }

    /// Sets the series to `value`.
    public func set(_ value: Double, _ labels: [String] = []) {
        let key = LabelSet.key(labels, names: labelNames)
        values.withLock { values in
            guard values[key] != nil || values.count < maxSeries else { return }
            values[key] = value
        }
    }

    /// The current value of a series.
    public func value(_ labels: [String] = []) -> Double {
        values.withLock { $0[LabelSet.key(labels, names: labelNames)] ?? 0 }
    }

    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
        let snapshot = values.withLock { $0 }
        if snapshot.isEmpty, labelNames.isEmpty { output += "\(name) 0\n" }
        for (key, value) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            output += "\(name)\(LabelSet.text(labelNames, key)) \(LabelSet.format(value))\n"
        }
    }
}

/// Observations counted into cumulative buckets per label set.
///
/// Every request records one observation, from every server thread: the counts
/// are kept in shards, one per thread as far as there are shards (a thread keeps
/// the shard it was first given), so that two threads recording at once do not
/// wait for each other. Which label sets exist is shared (read-mostly) state.
public final class Histogram: RenderableMetric {
    let name: String
    let help: String
    let labelNames: [String]
    let buckets: [Double]
    let maxSeries: Int
    /// Label sets admitted so far (at most `maxSeries`, then `__other__`).
    private let admitted = ReadWriteLocked<Set<[String]>>([])
    private let shards: [Shard]

    /// One thread's share of the counts, behind a reader-writer pthread lock (server
    /// threads are libmicrohttpd's; docs/toolchain-facts.md §1).
    private typealias Shard = ReadWriteLocked<[[String]: Series]>

    struct Series {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        mutating func record(_ bucket: Int, _ value: Double) {
            counts[bucket] += 1
            sum += value
            count += 1
        }

        mutating func add(_ other: Series) {
            for index in counts.indices { counts[index] += other.counts[index] }
            sum += other.sum
            count += other.count
        }
    }

    init(name: String, help: String, labelNames: [String], buckets: [Double], maxSeries: Int) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets
        self.maxSeries = maxSeries
        self.shards = (0..<ThreadShard.count).map { _ in Shard([:]) }
    }

    /// Records one observation (seconds, for latencies).
    public func observe(_ value: Double, _ labels: [String] = []) {
        let key = LabelSet.key(labels, names: labelNames)
        let bucket = buckets.firstIndex { value <= $0 } ?? buckets.count
        shards[ThreadShard.current].write { series in
            // Updated in place: no copy of the series' counts per observation.
            if let index = series.index(forKey: key) {
                series.values[index].record(bucket, value)
                return
            }
            // New to this shard: admitted (or folded) by the shared list of label sets.
            let admittedKey = admit(key)
            series[admittedKey, default: Series(counts: Array(repeating: 0, count: buckets.count + 1))].record(bucket, value)
        }
    }

    /// `key` if it is, or can become, one of the `maxSeries` label sets; `__other__` values otherwise.
    private func admit(_ key: [String]) -> [String] {
        // Decided under the shared lock when it can be: a known set, or one past the limit
        // (hostile operation names must not make every thread queue for the write lock).
        let known: [String]? = admitted.read { admitted in
            if admitted.pointee.contains(key) { return key }
            return admitted.pointee.count >= maxSeries ? key.map { _ in "__other__" } : nil
        }
        if let known { return known }
        return admitted.write { admitted in
            if admitted.contains(key) { return key }
            let folded = admitted.count >= maxSeries ? key.map { _ in "__other__" } : key
            admitted.insert(folded)
            return folded
        }
    }

    /// Every shard's series added up.
    private func merged() -> [[String]: Series] {
        var total: [[String]: Series] = [:]
        for shard in shards {
            for (key, series) in shard.read({ $0.pointee }) {
                if total[key] == nil { total[key] = series } else { total[key]?.add(series) }
            }
        }
        return total
    }

    /// Every series' label values and observation count, sorted by labels.
    public func counts() -> [(labels: [String], count: UInt64)] {
        merged().map { (labels: $0.key, count: $0.value.count) }
            .sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }

    /// The label names, in order.
    public var labels: [String] { labelNames }

    /// Observations recorded for a series.
    public func count(_ labels: [String] = []) -> UInt64 {
        let key = LabelSet.key(labels, names: labelNames)
        return shards.reduce(0) { total, shard in total + (shard.read { $0.pointee[key]?.count } ?? 0) }
    }

    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        let snapshot = merged()
        for (key, entry) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var cumulative: UInt64 = 0
            for (index, bound) in buckets.enumerated() {
                cumulative += entry.counts[index]
                output += "\(name)_bucket\(LabelSet.text(labelNames, key, extra: ("le", LabelSet.format(bound)))) \(cumulative)\n"
            }
            cumulative += entry.counts[buckets.count]
            output += "\(name)_bucket\(LabelSet.text(labelNames, key, extra: ("le", "+Inf"))) \(cumulative)\n"
            output += "\(name)_sum\(LabelSet.text(labelNames, key)) \(entry.sum)\n"
            output += "\(name)_count\(LabelSet.text(labelNames, key)) \(entry.count)\n"
        }
    }
}

/// A small per-thread number for sharding counters: each thread gets the next
/// one on first use (round robin), kept in a pthread key for the thread's life.
enum ThreadShard {
    /// Shards per sharded counter: more than the server's threads on common machines.
    static let count = 16

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()
    private static let next = Atomic<Int>(0)

    /// The calling thread's shard, in `0..<count`.
    static var current: Int {
        guard let key else { return 0 }
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
        let shard = next.add(1, ordering: .relaxed).oldValue % count
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: shard + 1))
        return shard
    }
}
