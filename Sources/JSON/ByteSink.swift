import Synchronization

/// An append-only byte buffer written through a raw pointer: a write checks the
/// capacity once and never asks whether storage is shared, as `[UInt8]` must.
/// Owns its memory; freed when the sink goes away.
struct ByteSink: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// The size of the largest output so far (capped), so most sinks start big
    /// enough. It only grows: a hint that followed every output would be written
    /// by every thread in turn when small and large responses alternate. The cap
    /// keeps one large response from making every later small one reserve much;
    /// larger outputs grow by doubling.
    private static let sizeHint = Atomic<Int>(256)
    private static let maxHint = 16 << 10

    /// A sink with room for about as much as recent outputs needed.
    init() {
        capacity = ByteSink.sizeHint.load(ordering: .relaxed)
        base = .allocate(capacity: capacity)
    }

    /// A sink with room for `capacity` bytes.
    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 0)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Forgets the bytes written, keeping the memory.
    mutating func removeAll() { count = 0 }

    /// Remembers this sink's size as the next ones' starting capacity when it was larger.
    func recordSize() {
        if count > capacity / 2, count > ByteSink.sizeHint.load(ordering: .relaxed), count <= ByteSink.maxHint {
            // Rounded up so that slightly larger outputs still fit.
            ByteSink.sizeHint.store(count + count / 4, ordering: .relaxed)
        }
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends a byte the caller has already reserved room for.
    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends bytes the caller has already reserved room for.
    @inline(__always)
    mutating func appendReserved(_ source: UnsafePointer<UInt8>, count length: Int) {
        (base + count).update(from: source, count: length)
        count += length
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
}
