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

/// A bounded, thread-safe cache of prepared documents keyed by their text.
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
        /// Set on every hit (under the shared lock, hence atomic), cleared by the CLOCK hand.
        let referenced: Atomic<Bool>

        init(hash: UInt64, text: String, value: PreparedDocument, referenced: Bool) {
            self.hash = hash
            self.text = text
            self.value = value
            self.referenced = Atomic(referenced)
        }
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var slots: [UInt64: Int] = [:]
        var hand = 0
    }

    /// The most documents kept.
    public let capacity: Int
    /// Lookups (every request) share the lock; insertions and evictions take it alone.
    private let state = ReadWriteLocked(State())
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    /// A cache holding at most `capacity` documents (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The prepared document for `text`, running `prepare` on a miss.
    ///
    /// `prepare` runs outside the lock, so two concurrent misses of the same text may
    /// both prepare it; the second result replaces the first (both are equal).
    public func document(for text: String, prepare: () -> PreparedDocument) -> PreparedDocument {
        let hash = DocumentCache.hash(text)
        let cached: PreparedDocument? = state.read { state in
            guard let slot = state.pointee.slots[hash] else { return nil }
            let entry = state.pointee.entries[slot]
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
    public var count: Int { state.read { $0.pointee.entries.count } }

    /// Hits and misses since creation.
    public var statistics: (hits: Int, misses: Int) { (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed)) }

    private func insert(hash: UInt64, text: String, value: PreparedDocument) {
        state.write { state in
            if let slot = state.slots[hash] {
                // Same hash: the newer text wins the slot (collisions are vanishingly rare).
                state.entries[slot] = Entry(hash: hash, text: text, value: value, referenced: true)
                return
            }
            if state.entries.count < capacity {
                state.slots[hash] = state.entries.count
                state.entries.append(Entry(hash: hash, text: text, value: value, referenced: false))
                return
            }
            while state.entries[state.hand].referenced.load(ordering: .relaxed) {
                state.entries[state.hand].referenced.store(false, ordering: .relaxed)
                state.hand = (state.hand + 1) % state.entries.count
            }
            let victim = state.hand
            state.slots[state.entries[victim].hash] = nil
            state.entries[victim] = Entry(hash: hash, text: text, value: value, referenced: false)
            state.slots[hash] = victim
            state.hand = (victim + 1) % state.entries.count
        }
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
