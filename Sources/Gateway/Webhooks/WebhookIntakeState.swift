/// Group commit's bookkeeping, as a value with no I/O (the shape of `Postgres/Pool/PoolState.swift`):
/// a delivery that arrives while every writer is busy waits; a writer that finishes a batch takes
/// everything that waited (up to `maxBatch`) as its next one. So under load one transaction — one
/// commit, one set of batched statements — carries many deliveries, and when idle a delivery is
/// written at once, alone, with no added wait.
///
/// The caller computes an action under a lock and performs it outside (``WebhookIntake``).
struct WebhookIntakeState<Item> {
    /// What the caller must do next.
    enum Action {
        /// Nothing: the item waits for a writer.
        case none
        /// Write these items as one batch (the caller runs a writer for it).
        case write([Item])
    }

    /// The most deliveries one transaction carries.
    let maxBatch: Int
    /// How many batches may be written at once (each on its own connection).
    let maxWriters: Int
    /// Waiting for a writer, in arrival order.
    private(set) var waiting: [Item] = []
    /// Batches being written now.
    private(set) var writing = 0

    /// `maxBatch` and `maxWriters` are at least 1.
    init(maxBatch: Int, maxWriters: Int) {
        self.maxBatch = max(1, maxBatch)
        self.maxWriters = max(1, maxWriters)
    }

    /// An item arrived: written at once when a writer is free, else it waits for the next batch.
    mutating func submitted(_ item: Item) -> Action {
        guard writing < maxWriters else {
            waiting.append(item)
            return .none
        }
        writing += 1
        return .write([item])
    }

    /// A writer finished its batch (committed or failed): it takes what waited, or stops.
    mutating func batchFinished() -> Action {
        guard !waiting.isEmpty else {
            writing -= 1
            return .none
        }
        let count = min(maxBatch, waiting.count)
        let batch = Array(waiting.prefix(count))
        waiting.removeFirst(count)
        return .write(batch)
    }
}
