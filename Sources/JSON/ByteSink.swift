import Synchronization

/// An append-only byte buffer written through a raw pointer: a write checks the
/// capacity once and never asks whether storage is shared, as `[UInt8]` must.
/// Owns its memory; freed when the sink goes away.
///
/// `package` so that the GraphQL executor can write responses straight to bytes;
/// the hot methods are `@inlinable` so that calls from other modules compile to a
/// capacity check and a store, as they do here.
package struct ByteSink: ~Copyable {
    @usableFromInline package private(set) var base: UnsafeMutablePointer<UInt8>
    @usableFromInline package private(set) var count = 0
    @usableFromInline var capacity: Int

    /// The size of the largest output so far (capped), so most sinks start big
    /// enough. It only grows: a hint that followed every output would be written
    /// by every thread in turn when small and large responses alternate. The cap
    /// keeps one large response from making every later small one reserve much;
    /// larger outputs grow by doubling.
    private static let sizeHint = Atomic<Int>(256)
    private static let maxHint = 16 << 10

    /// A sink with room for about as much as recent outputs needed.
    package init() {
        capacity = ByteSink.sizeHint.load(ordering: .relaxed)
        base = .allocate(capacity: capacity)
    }

    /// A sink with room for `capacity` bytes.
    package init(capacity: Int) {
        self.capacity = Swift.max(capacity, 0)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Forgets the bytes written, keeping the memory.
    package mutating func removeAll() { count = 0 }

    /// Forgets the bytes written after `position` (which must not be past the end).
    @inlinable
    package mutating func truncate(to position: Int) {
        if position < count { count = Swift.max(position, 0) }
    }

    /// The bytes from `start` to the end, copied into an array.
    package func array(from start: Int = 0) -> [UInt8] {
        let length = Swift.max(count - start, 0)
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            if let target = buffer.baseAddress { target.initialize(from: base + start, count: length) }
            initialized = length
        }
    }

    /// Remembers this sink's size as the next ones' starting capacity when it was larger.
    package func recordSize() {
        if count > capacity / 2, count > ByteSink.sizeHint.load(ordering: .relaxed), count <= ByteSink.maxHint {
            // Rounded up so that slightly larger outputs still fit.
            ByteSink.sizeHint.store(count + count / 4, ordering: .relaxed)
        }
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(extra) }
    }

    @usableFromInline @inline(never)
    mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends a byte the caller has already reserved room for.
    @inlinable @inline(__always)
    package mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends bytes the caller has already reserved room for.
    @inlinable @inline(__always)
    package mutating func appendReserved(_ source: UnsafePointer<UInt8>, count length: Int) {
        (base + count).update(from: source, count: length)
        count += length
    }

    @inlinable @inline(__always)
    package mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The bytes written so far.
    package var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
}
