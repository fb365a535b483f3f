import Support
import Synchronization

/// A parsed and validated document, ready to execute many times.
public final class PreparedDocument: Sendable {
    /// The parsed document; `nil` when the text did not parse.
    public let document: Document?
    /// Syntax or validation errors; empty when the document may be executed.
    public let errors: [GraphQLError]
    /// Execution plans of a valid document, shared by the requests that run it.
    let plans: PlanCache?

    /// Wraps a parse/validate outcome.
    public init(document: Document?, errors: [GraphQLError]) {
        self.document = document
        self.errors = errors
        self.plans = errors.isEmpty ? document.map(PlanCache.init(document:)) : nil
    }
}

/// Bytes held by one cache, shared with the plan caches of its documents so that
/// their plans are charged to the same budget.
final class ByteBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Bytes held now.
    var bytes: Int { used.load(ordering: .relaxed) }

    /// Charges `amount` if it fits under the limit; `false` (nothing charged) otherwise.
    func charge(_ amount: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            let (next, overflow) = current.addingReportingOverflow(amount)
            guard !overflow, next <= limit else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: next, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Charges `amount` whatever the limit (the caller evicts to get back under it).
    func force(_ amount: Int) { used.add(amount, ordering: .relaxed) }

    /// Gives back bytes charged earlier.
    func release(_ amount: Int) { used.subtract(amount, ordering: .relaxed) }
}

/// A bounded, thread-safe cache of prepared documents keyed by their text.
///
/// Bounded twice: by entries (`capacity`) and by estimated bytes (`maxBytes`),
/// which count each document's text, its syntax tree (by tokens read, see
/// ``estimatedBytes(text:prepared:)``), its errors, and the execution plans later
/// cached for it. A document that alone exceeds `maxBytes` is prepared but not
/// kept, so a client sending large or many distinct documents costs at most
/// `maxBytes` here, however many it sends.
///
/// The key is a 64-bit hash of the UTF-8 text; a hit compares the full
/// text, so a hash collision is a miss, never a wrong document. Eviction is the
/// CLOCK approximation of LRU: each entry has a reference bit set on every hit,
/// and the hand clears bits until it finds an entry not used since its last pass.
public final class DocumentCache: Sendable {
    /// One cached document; only its reference bit changes after insertion.
    private final class Entry: Sendable {
        let hash: UInt64
        let text: String
        let value: PreparedDocument
        /// Estimated bytes of the text, tree and errors (plans are charged separately).
        let cost: Int
        /// Set on every hit (under the shared lock, hence atomic), cleared by the CLOCK hand.
        let referenced: Atomic<Bool>

        init(hash: UInt64, text: String, value: PreparedDocument, cost: Int, referenced: Bool) {
            self.hash = hash
            self.text = text
            self.value = value
            self.cost = cost
            self.referenced = Atomic(referenced)
        }
    }

    private struct State: Sendable {
        /// Entries by slot; `nil` slots (after evictions to free bytes) are reused first.
        var entries: [Entry?] = []
        var free: [Int] = []
        var slots: [UInt64: Int] = [:]
        var hand = 0
        var count = 0
    }

    /// The most documents kept.
    public let capacity: Int
    /// The most estimated bytes kept (documents and their plans).
    public let maxBytes: Int
    /// Lookups (every request) share the lock; insertions and evictions take it alone.
    private let state = ReadWriteLocked(State())
    private let budget: ByteBudget
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let uncacheable = Atomic<Int>(0)

    /// Default byte bound: 64 MiB.
    public static let defaultMaxBytes = 64 << 20

    /// A cache holding at most `capacity` documents (at least one) and `maxBytes` estimated bytes.
    public init(capacity: Int, maxBytes: Int = DocumentCache.defaultMaxBytes) {
        self.capacity = max(1, capacity)
        self.maxBytes = max(0, maxBytes)
        self.budget = ByteBudget(limit: max(0, maxBytes))
    }

    /// What `text` prepared as `prepared` is estimated to hold in memory, in bytes:
    /// the UTF-8 text (shared with the document's source), the syntax tree at
    /// ``bytesPerToken`` per token read, and the error messages.
    public static func estimatedBytes(text: String, prepared: PreparedDocument) -> Int {
        var bytes = 256 + text.utf8.count
        bytes += (prepared.document?.tokenCount ?? 0) * bytesPerToken
        for error in prepared.errors { bytes += 128 + error.message.utf8.count }
        return bytes
    }

    /// Estimated bytes of syntax tree per token read.
    ///
    /// With ``bytesPerPlanToken``, calibrated on the release build: 200 documents of
    /// 12,000 tokens each, parsed, validated, planned and run once, grew the server's
    /// RSS by 106 bytes per token beyond their text (docs/http.md, "Caches bounded by bytes").
    public static let bytesPerToken = 64
    /// Estimated bytes of one cached execution plan per token of its document (charged per plan).
    public static let bytesPerPlanToken = 48
    /// Bytes of one cached plan beyond its per-token estimate.
    public static let bytesPerPlan = 256

    /// The prepared document for `text`, running `prepare` on a miss.
    ///
    /// `prepare` runs outside the lock, so two concurrent misses of the same text may
    /// both prepare it; the second result replaces the first (both are equal).
    public func document(for text: String, prepare: () -> PreparedDocument) -> PreparedDocument {
        let hash = DocumentCache.hash(text)
        let cached: PreparedDocument? = state.read { state in
            guard let slot = state.pointee.slots[hash], let entry = state.pointee.entries[slot] else { return nil }
            guard entry.text == text else { return nil }
            if !entry.referenced.load(ordering: .relaxed) { entry.referenced.store(true, ordering: .relaxed) }
            return entry.value
        }
        if let cached {
            hits.add(1, ordering: .relaxed)
            return cached
        }
        misses.add(1, ordering: .relaxed)
        let prepared = prepare()
        insert(hash: hash, text: text, value: prepared)
        return prepared
    }

    /// Number of documents held.
    public var count: Int { state.read { $0.pointee.count } }

    /// Estimated bytes held (documents and their cached plans); at most ``maxBytes``.
    public var bytes: Int { budget.bytes }

    /// Hits and misses since creation.
    public var statistics: (hits: Int, misses: Int) { (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed)) }

    /// Documents prepared but not kept because each alone exceeded ``maxBytes``.
    public var tooLargeToCache: Int { uncacheable.load(ordering: .relaxed) }

    private func insert(hash: UInt64, text: String, value: PreparedDocument) {
        let cost = DocumentCache.estimatedBytes(text: text, prepared: value)
        guard cost <= maxBytes else {
            uncacheable.add(1, ordering: .relaxed)
            return
        }
        state.write { state in
            if let slot = state.slots[hash] {
                // Same hash: the newer text wins the slot (collisions are vanishingly rare).
                remove(slot: slot, from: &state)
            }
            // Plans are charged without this lock: evict until the new entry fits, whatever they did meanwhile.
            budget.force(cost)
            while state.count > 0, state.count >= capacity || budget.bytes > maxBytes {
                evictOne(from: &state)
            }
            value.plans?.attach(
                to: budget, perPlan: (value.document?.tokenCount ?? 0) * DocumentCache.bytesPerPlanToken + DocumentCache.bytesPerPlan)
            let entry = Entry(hash: hash, text: text, value: value, cost: cost, referenced: false)
            let slot: Int
            if let reused = state.free.popLast() {
                slot = reused
                state.entries[slot] = entry
            } else {
                slot = state.entries.count
                state.entries.append(entry)
            }
            state.slots[hash] = slot
            state.count += 1
        }
    }

    /// Evicts the first entry, from the hand on, not referenced since the hand's last pass.
    private func evictOne(from state: inout State) {
        while true {
            if state.hand >= state.entries.count { state.hand = 0 }
            let slot = state.hand
            state.hand += 1
            guard let entry = state.entries[slot] else { continue }
            if entry.referenced.load(ordering: .relaxed) {
                entry.referenced.store(false, ordering: .relaxed)
                continue
            }
            remove(slot: slot, from: &state)
            return
        }
    }

    private func remove(slot: Int, from state: inout State) {
        guard let entry = state.entries[slot] else { return }
        state.entries[slot] = nil
        state.free.append(slot)
        state.slots[entry.hash] = nil
        state.count -= 1
        budget.release(entry.cost + (entry.value.plans?.detach() ?? 0))
    }

    /// A fast 64-bit hash of the UTF-8 bytes, eight at a time (FxHash-style
    /// rotate-xor-multiply). Not cryptographic: a hit always compares the full text.
    static func hash(_ text: String) -> UInt64 {
        var copy = text
        return copy.withUTF8 { bytes -> UInt64 in
            let multiplier: UInt64 = 0x517c_c1b7_2722_0a95
            var hash = UInt64(bytes.count) &* multiplier
            var offset = 0
            let raw = UnsafeRawBufferPointer(bytes)
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                hash = ((hash << 5) | (hash >> 59)) ^ word
                hash = hash &* multiplier
                offset += 8
            }
            while offset < raw.count {
                hash = (((hash << 5) | (hash >> 59)) ^ UInt64(raw[offset])) &* multiplier
                offset += 1
            }
            return hash ^ (hash >> 29)
        }
    }
}
