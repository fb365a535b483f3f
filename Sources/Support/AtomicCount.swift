public import Synchronization

/// A shareable atomic integer: an `Atomic` cannot be copied into a closure, a
/// reference to this box can.
public final class AtomicCount: Sendable {
    /// The count; use `.relaxed` ordering for statistics.
    public let value = Atomic<Int>(0)

    /// Starts at zero.
    public init() {}
}
