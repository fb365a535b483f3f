import Synchronization

/// An append-only byte buffer written through a raw pointer: a write checks the
/// capacity once and never asks whether storage is shared, as `[UInt8]` must.
/// Owns its memory; freed when the sink goes away.
///
/// Public (with `@inlinable` hot methods over `@usableFromInline` storage) so
/// that the GraphQL executor can write responses straight to bytes and have each
/// append compile to a capacity check and a store: Swift 6.3 does not inline
/// `package` methods across modules.
public struct ByteSink: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<UInt8>
    @usableFromInline var length = 0
    @usableFromInline var capacity: Int

    /// The start of the bytes written.
    @inlinable public var base: UnsafeMutablePointer<UInt8> { storage }
    /// How many bytes were written.
    @inlinable public var count: Int { length }

    /// The size of the largest output so far (capped), so most sinks start big
    /// enough. It only grows: a hint that followed every output would be written
    /// by every thread in turn when small and large responses alternate. The cap
    /// keeps one large response from making every later small one reserve much;
    /// larger outputs grow by doubling.
    private static let sizeHint = Atomic<Int>(256)
    private static let maxHint = 16 << 10

    /// A sink with room for about as much as recent outputs needed.
    public init() {
        capacity = ByteSink.sizeHint.load(ordering: .relaxed)
        storage = .allocate(capacity: capacity)
    }

    /// A sink with room for `capacity` bytes.
    public init(capacity: Int) {
        self.capacity = Swift.max(capacity, 0)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// Forgets the bytes written, keeping the memory.
    public mutating func removeAll() { length = 0 }

    /// Forgets the bytes written after `position` (which must not be past the end).
    @inlinable
    public mutating func truncate(to position: Int) {
        if position < length { length = Swift.max(position, 0) }
    }

    /// The bytes from `start` to the end, copied into an array.
    public func array(from start: Int = 0) -> [UInt8] {
        let size = Swift.max(length - start, 0)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            if let target = buffer.baseAddress { target.initialize(from: storage + start, count: size) }
            initialized = size
        }
    }

    /// Remembers this sink's size as the next ones' starting capacity when it was larger.
    public func recordSize() {
        if count > capacity / 2, count > ByteSink.sizeHint.load(ordering: .relaxed), count <= ByteSink.maxHint {
            // Rounded up so that slightly larger outputs still fit.
            ByteSink.sizeHint.store(count + count / 4, ordering: .relaxed)
        }
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ extra: Int) {
        if capacity - length < extra { grow(extra) }
    }

    /// Inlinable too (though kept out of line), so that callers can see it
    /// releases no Swift object: the GraphQL executor relies on that to write
    /// strings it reads in place without copying them.
    @inlinable @inline(never)
    mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity * 2, length + extra, 64)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.initialize(from: storage, count: length)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        storage[length] = byte
        length += 1
    }

    /// Appends a byte the caller has already reserved room for.
    @inlinable @inline(__always)
    public mutating func appendReserved(_ byte: UInt8) {
        storage[length] = byte
        length += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        appendReserved(source, count: bytes.count)
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(storage + length).copyMemory(from: source, byteCount: bytes.count)
        length += bytes.count
    }

    /// Appends bytes the caller has already reserved room for.
    @inlinable @inline(__always)
    public mutating func appendReserved(_ source: UnsafePointer<UInt8>, count: Int) {
        let target = storage + length
        if count <= 16 {
            // Short runs (names, most values) without a call to memmove: two
            // overlapping loads and stores. The source never overlaps the sink.
            if count >= 8 {
                let head = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
                let tail = UnsafeRawPointer(source + count - 8).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(target).storeBytes(of: head, as: UInt64.self)
                UnsafeMutableRawPointer(target + count - 8).storeBytes(of: tail, as: UInt64.self)
            } else if count >= 4 {
                let head = UnsafeRawPointer(source).loadUnaligned(as: UInt32.self)
                let tail = UnsafeRawPointer(source + count - 4).loadUnaligned(as: UInt32.self)
                UnsafeMutableRawPointer(target).storeBytes(of: head, as: UInt32.self)
                UnsafeMutableRawPointer(target + count - 4).storeBytes(of: tail, as: UInt32.self)
            } else {
                for index in 0..<count { target[index] = source[index] }
            }
        } else {
            target.update(from: source, count: count)
        }
        length += count
    }

    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The bytes written so far.
    @inlinable
    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: length) }
}
