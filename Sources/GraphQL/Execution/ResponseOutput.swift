import JSON
import Synchronization

/// Where the executor puts a response as it completes it: a tree of
/// ``JSONValue``s (``TreeOutput``) or JSON bytes written straight away
/// (``ByteOutput``). The executor is generic over it, so both are specialised.
///
/// Positions let a nullable position undo what its failed contents wrote: the
/// executor takes ``position`` where a value starts and, when a non-null field
/// inside fails, ``truncate(to:)``s back to it and writes `null` (spec §6.4.4).
protocol ResponseOutput: ~Copyable {
    /// The current end of the output (a place to come back to).
    var position: Int { get }
    /// Drops what was written after `position`.
    mutating func truncate(to position: Int)

    /// `{`.
    mutating func beginObject()
    /// The member name of field `plan`, after a comma unless it is the first member.
    mutating func key(_ plan: FieldPlan, first: Bool)
    /// `}`; a tree makes the object of the values written since `start`.
    mutating func endObject(_ keys: [String], start: Int)
    /// `[`.
    mutating func beginList()
    /// A comma unless it is the first item.
    mutating func item(first: Bool)
    /// `]`; a tree makes the list of the values written since `start`.
    mutating func endList(start: Int)
    /// Closes an object or list that became a ``ResultNode`` (bytes only: the bracket).
    mutating func endPartial(isList: Bool)

    /// A finished value.
    mutating func value(_ value: borrowing JSONValue)
    /// Writes the string at `value` if it needs no escapes, reading it in place
    /// with no call that could release anything (so the caller need not copy
    /// it); false when it is not such a string (nothing written).
    mutating func writePlainString(at value: UnsafePointer<JSONValue>) -> Bool
    /// `null`.
    mutating func null()
    /// The name of the parent type of `plan` (`__typename`).
    mutating func typename(_ plan: FieldPlan)

    /// Moves what was written since `start` into `node`'s slots and truncates to `start`.
    mutating func spill(from start: Int, into node: ResultNode)
    /// What was written since `start` as one slot, truncating to `start`.
    mutating func take(from start: Int) -> ResultNode.Slot
    /// Writes a slot's finished value.
    mutating func write(_ slot: borrowing ResultNode.Slot)
    /// Finishes a node whose slots were just written from `start` (a tree builds the container).
    mutating func finish(_ node: ResultNode, start: Int)
}

/// A composite result (object or list) that still has pending parts. Only the
/// executing task touches it; pending work returns raw values to that task.
///
/// With a ``TreeOutput`` each slot is one member or item; with a ``ByteOutput``
/// slots alternate between runs of finished bytes (brackets, names and commas
/// included) and the parts still open.
final class ResultNode {
    enum Slot {
        case value(JSONValue)
        /// Finished bytes kept by the ``ByteOutput`` that wrote them (a range of its spill store).
        case bytes(start: Int, count: Int)
        case node(ResultNode, nonNull: Bool)
        case pending
        case failed
    }

    let isList: Bool
    /// An object's member names (tree output only; the byte output writes them inline).
    let keys: [String]
    var slots: [Slot] = []

    init(isList: Bool, keys: [String]) {
        self.isList = isList
        self.keys = keys
        // The usual node: a run of bytes, a pending part, the run after it (one allocation, not two).
        slots.reserveCapacity(4)
    }

    /// Writes the finished value into `output`; false when a non-null position
    /// inside failed (the output is then back where it was).
    func finish<Output: ResponseOutput & ~Copyable>(into output: inout Output) -> Bool {
        let start = output.position
        for slot in slots {
            switch slot {
            case .node(let child, let nonNull):
                if !child.finish(into: &output) {
                    if nonNull {
                        output.truncate(to: start)
                        return false
                    }
                    output.null()
                }
            case .pending:
                output.null()
            case .failed:
                output.truncate(to: start)
                return false
            case .value, .bytes:
                output.write(slot)
            }
        }
        output.finish(self, start: start)
        return true
    }
}

/// Builds the response as ``JSONValue``s on a stack: each finished value is
/// pushed, and an object or list moves its members off the stack into itself
/// (moved, not copied: no reference counting per value).
struct TreeOutput: ResponseOutput, ~Copyable {
    private var base: UnsafeMutablePointer<JSONValue>
    private var count = 0
    private var capacity = 32

    init() { base = .allocate(capacity: capacity) }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var position: Int { count }

    mutating func truncate(to position: Int) {
        guard position < count else { return }
        (base + position).deinitialize(count: count - position)
        count = position
    }

    @inline(__always)
    private mutating func push(_ value: consuming JSONValue) {
        if count == capacity { grow() }
        (base + count).initialize(to: value)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<JSONValue>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// The values from `start` up, moved into an array.
    private mutating func popArray(from start: Int) -> [JSONValue] {
        let size = count - start
        let stack = base
        let values = [JSONValue](unsafeUninitializedCapacity: size) { buffer, initialized in
            if let target = buffer.baseAddress { target.moveInitialize(from: stack + start, count: size) }
            initialized = size
        }
        count = start
        return values
    }

    func beginObject() {}
    func key(_ plan: FieldPlan, first: Bool) {}

    mutating func endObject(_ keys: [String], start: Int) {
        push(.object(JSONObject(keys: keys, values: popArray(from: start))))
    }

    func beginList() {}
    func item(first: Bool) {}

    mutating func endList(start: Int) { push(.array(popArray(from: start))) }

    func endPartial(isList: Bool) {}

    mutating func value(_ value: borrowing JSONValue) { push(copy value) }
    func writePlainString(at value: UnsafePointer<JSONValue>) -> Bool { false }
    mutating func null() { push(.null) }
    mutating func typename(_ plan: FieldPlan) { push(.string(plan.parentTypeName)) }

    mutating func spill(from start: Int, into node: ResultNode) {
        for index in start..<count { node.slots.append(.value((base + index).move())) }
        count = start
    }

    mutating func take(from start: Int) -> ResultNode.Slot {
        guard count > start else { return .value(.null) }
        let value = (base + start).move()
        (base + start + 1).deinitialize(count: count - start - 1)
        count = start
        return .value(value)
    }

    mutating func write(_ slot: borrowing ResultNode.Slot) {
        switch slot {
        case .value(let value): push(value)
        case .bytes:
            // Trees never hold byte slots (their bytes live in the ByteOutput that made them).
            push(.null)
        case .node, .pending, .failed: push(.null)
        }
    }

    mutating func finish(_ node: ResultNode, start: Int) {
        if node.isList {
            endList(start: start)
        } else {
            endObject(node.keys, start: start)
        }
    }

    /// The finished root value (the first value written).
    var root: JSONValue { count > 0 ? base[0] : .null }
}

/// Writes the response as compact JSON bytes while executing, exactly as
/// ``JSONWriter`` would write the tree (the member names come pre-encoded from the plans).
struct ByteOutput: ResponseOutput, ~Copyable {
    var sink = ByteSink()
    /// Finished runs moved out of ``sink`` while parts of their object or list are
    /// pending (``spill(from:into:)``, ``take(from:)``), one after the other: slots keep
    /// ranges of it, so a request with pending work allocates this one buffer instead of
    /// an array per run.
    var spilled: [UInt8] = []

    /// The largest spill store so far (capped), reserved by the next one that spills.
    /// (Internal for a test.)
    static let spillHint = Atomic<Int>(256)
    private static let maxSpillHint = 16 << 10
    /// Room left after a finished response for a host to append a member in place
    /// (`"extensions":{...}`: the Gateway's `extensions.timing` is about 100 bytes).
    static let trailingRoom = 128

    var position: Int { sink.count }

    mutating func truncate(to position: Int) { sink.truncate(to: position) }

    mutating func beginObject() { sink.append(UInt8(ascii: "{")) }

    @inline(__always)
    mutating func key(_ plan: FieldPlan, first: Bool) {
        let name = plan.encodedNames.key
        guard let source = name.baseAddress else { return }
        sink.reserve(name.count + 1)
        if !first { sink.appendReserved(UInt8(ascii: ",")) }
        sink.appendReserved(source, count: name.count)
    }

    mutating func endObject(_ keys: [String], start: Int) { sink.append(UInt8(ascii: "}")) }
    mutating func beginList() { sink.append(UInt8(ascii: "[")) }

    @inline(__always)
    mutating func item(first: Bool) {
        if !first { sink.append(UInt8(ascii: ",")) }
    }

    mutating func endList(start: Int) { sink.append(UInt8(ascii: "]")) }
    mutating func endPartial(isList: Bool) { sink.append(isList ? UInt8(ascii: "]") : UInt8(ascii: "}")) }

    @inline(__always)
    mutating func value(_ value: borrowing JSONValue) {
        switch value {
        case .string(let text): JSONWriter.writeString(text, into: &sink)
        case .null: sink.append("null")
        default: JSONWriter.writeValue(value, into: &sink)
        }
    }

    mutating func null() { sink.append("null") }

    @inline(__always)
    mutating func writePlainString(at value: UnsafePointer<JSONValue>) -> Bool {
        // Three steps, so that no call that could release anything happens while
        // the string is borrowed: measure, make room, copy.
        guard let length = ByteOutput.plainLength(value) else { return false }
        sink.reserve(length + 2)
        sink.appendReserved(UInt8(ascii: "\""))
        ByteOutput.copyPlain(value, into: &sink)
        sink.appendReserved(UInt8(ascii: "\""))
        return true
    }

    /// The UTF-8 length of the string at `value` when it needs no escapes.
    @inline(__always)
    private static func plainLength(_ value: UnsafePointer<JSONValue>) -> Int? {
        switch value.pointee {
        case .string(let text):
            return text.utf8.withContiguousStorageIfAvailable { utf8 -> Int? in
                for byte in utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C { return nil }
                return utf8.count
            } ?? nil
        default:
            return nil
        }
    }

    /// Copies the string at `value` (measured by ``plainLength(_:)``) into room already reserved.
    @inline(__always)
    private static func copyPlain(_ value: UnsafePointer<JSONValue>, into sink: inout ByteSink) {
        switch value.pointee {
        case .string(let text):
            _ = text.utf8.withContiguousStorageIfAvailable { utf8 in
                if let source = utf8.baseAddress { sink.appendReserved(source, count: utf8.count) }
            }
        default:
            break
        }
    }

    mutating func typename(_ plan: FieldPlan) { sink.append(plan.encodedNames.typename) }

    mutating func spill(from start: Int, into node: ResultNode) {
        node.slots.append(take(from: start))
    }

    mutating func take(from start: Int) -> ResultNode.Slot {
        let count = Swift.max(sink.count - start, 0)
        if spilled.capacity == 0 { spilled.reserveCapacity(Swift.max(ByteOutput.spillHint.load(ordering: .relaxed), count)) }
        let kept = spilled.count
        spilled.append(contentsOf: UnsafeBufferPointer(start: sink.base + start, count: count))
        sink.truncate(to: start)
        return .bytes(start: kept, count: count)
    }

    mutating func write(_ slot: borrowing ResultNode.Slot) {
        switch slot {
        case .bytes(let start, let count):
            spilled.withUnsafeBufferPointer { kept in
                if let base = kept.baseAddress { sink.append(UnsafeBufferPointer(start: base + start, count: count)) }
            }
        case .value(let value): self.value(value)
        case .node, .pending, .failed: null()
        }
    }

    func finish(_ node: ResultNode, start: Int) {}
}

/// A field plan's response key and parent type name as JSON, `"key":` and
/// `"Type"`, in one allocation made at planning time, never changed, and freed
/// by the plan's `deinit`: reading them takes no reference count (plans are read
/// by every request on every thread).
///
/// `@unchecked Sendable`: the memory is written only in `init`, read-only
/// afterwards, and freed only when no request can reach the owning plan.
struct EncodedNames: @unchecked Sendable {
    private let base: UnsafeMutablePointer<UInt8>
    private let keyCount: Int
    private let total: Int

    init(key: String, typename: String) {
        var key = key
        var typename = typename
        let made: (UnsafeMutablePointer<UInt8>, Int, Int)? = key.withUTF8 { keyBytes in
            typename.withUTF8 { typeBytes in
                // GraphQL names ([_A-Za-z0-9]) never need escaping: copied between quotes.
                guard EncodedNames.isPlain(keyBytes), EncodedNames.isPlain(typeBytes),
                      let keyBase = keyBytes.baseAddress, let typeBase = typeBytes.baseAddress else { return nil }
                let keyCount = keyBytes.count + 3
                let total = keyCount + typeBytes.count + 2
                let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
                memory[0] = UInt8(ascii: "\"")
                (memory + 1).initialize(from: keyBase, count: keyBytes.count)
                memory[keyCount - 2] = UInt8(ascii: "\"")
                memory[keyCount - 1] = UInt8(ascii: ":")
                memory[keyCount] = UInt8(ascii: "\"")
                (memory + keyCount + 1).initialize(from: typeBase, count: typeBytes.count)
                memory[total - 1] = UInt8(ascii: "\"")
                return (memory, keyCount, total)
            }
        }
        if let made {
            (base, keyCount, total) = made
            return
        }
        // Not a plain name (possible only for unvalidated input): escaped by the writer.
        var bytes: [UInt8] = []
        JSONWriter.writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        keyCount = bytes.count
        JSONWriter.writeString(typename, into: &bytes)
        total = bytes.count
        base = .allocate(capacity: total)
        base.initialize(from: bytes, count: total)
    }

    private static func isPlain(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in name {
            let letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
            guard letter || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F else { return false }
        }
        return true
    }

    /// `"key":`.
    var key: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: keyCount) }
    /// `"Type"`.
    var typename: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + keyCount, count: total - keyCount) }

    /// Frees the memory; only the owning plan's `deinit` calls it.
    func free() { base.deallocate() }
}

extension ByteOutput {
    /// The bytes `{"data":` that begin every response with data.
    static let dataPrefixCount = 8

    /// An output that has begun a response: `{"data":` (the data follows).
    static func response() -> ByteOutput {
        var output = ByteOutput()
        output.sink.append("{\"data\":")
        return output
    }

    /// Closes the response begun by ``response()`` and hands back its bytes, `{"data":...}`,
    /// with ``trailingRoom`` spare capacity.
    mutating func closeResponse() -> [UInt8] {
        sink.append(UInt8(ascii: "}"))
        sink.recordSize()
        let kept = spilled.count
        if kept > spilled.capacity / 2, kept > ByteOutput.spillHint.load(ordering: .relaxed), kept <= ByteOutput.maxSpillHint {
            ByteOutput.spillHint.store(kept + kept / 4, ordering: .relaxed)
        }
        let size = sink.count
        let base = sink.base
        return [UInt8](unsafeUninitializedCapacity: size + ByteOutput.trailingRoom) { buffer, initialized in
            if let target = buffer.baseAddress { target.initialize(from: base, count: size) }
            initialized = size
        }
    }
}
