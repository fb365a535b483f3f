import JSON

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
        case bytes([UInt8])
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
/// pushed, and an object or list replaces its members with itself.
struct TreeOutput: ResponseOutput {
    var stack: [JSONValue] = []

    init() { stack.reserveCapacity(32) }

    var position: Int { stack.count }

    mutating func truncate(to position: Int) {
        if position < stack.count { stack.removeSubrange(position...) }
    }

    func beginObject() {}
    func key(_ plan: FieldPlan, first: Bool) {}

    mutating func endObject(_ keys: [String], start: Int) {
        let values = Array(stack[start...])
        stack.removeSubrange(start...)
        stack.append(.object(JSONObject(keys: keys, values: values)))
    }

    func beginList() {}
    func item(first: Bool) {}

    mutating func endList(start: Int) {
        let values = Array(stack[start...])
        stack.removeSubrange(start...)
        stack.append(.array(values))
    }

    func endPartial(isList: Bool) {}

    mutating func value(_ value: borrowing JSONValue) { stack.append(copy value) }
    mutating func null() { stack.append(.null) }
    mutating func typename(_ plan: FieldPlan) { stack.append(.string(plan.parentTypeName)) }

    mutating func spill(from start: Int, into node: ResultNode) {
        for index in start..<stack.count { node.slots.append(.value(stack[index])) }
        stack.removeSubrange(start...)
    }

    mutating func take(from start: Int) -> ResultNode.Slot {
        let value = stack.count > start ? stack[start] : .null
        stack.removeSubrange(start...)
        return .value(value)
    }

    mutating func write(_ slot: borrowing ResultNode.Slot) {
        switch slot {
        case .value(let value): stack.append(value)
        case .bytes(let bytes):
            // Trees never hold byte slots; parsed to stay correct if one ever does.
            stack.append((try? JSONParser.parse(String(decoding: bytes, as: UTF8.self))) ?? .null)
        case .node, .pending, .failed: stack.append(.null)
        }
    }

    mutating func finish(_ node: ResultNode, start: Int) {
        if node.isList {
            endList(start: start)
        } else {
            endObject(node.keys, start: start)
        }
    }

    /// The finished root value.
    var root: JSONValue { stack.last ?? .null }
}

/// Writes the response as compact JSON bytes while executing, exactly as
/// ``JSONWriter`` would write the tree (the member names come pre-encoded from the plans).
struct ByteOutput: ResponseOutput, ~Copyable {
    var sink = ByteSink()

    var position: Int { sink.count }

    mutating func truncate(to position: Int) { sink.truncate(to: position) }

    mutating func beginObject() { sink.append(UInt8(ascii: "{")) }

    @inline(__always)
    mutating func key(_ plan: FieldPlan, first: Bool) {
        let name = plan.encodedKey.bytes
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

    mutating func typename(_ plan: FieldPlan) { sink.append(plan.encodedTypename.bytes) }

    mutating func spill(from start: Int, into node: ResultNode) {
        node.slots.append(.bytes(sink.array(from: start)))
        sink.truncate(to: start)
    }

    mutating func take(from start: Int) -> ResultNode.Slot {
        let bytes = sink.array(from: start)
        sink.truncate(to: start)
        return .bytes(bytes)
    }

    mutating func write(_ slot: borrowing ResultNode.Slot) {
        switch slot {
        case .bytes(let bytes): bytes.withUnsafeBufferPointer { sink.append($0) }
        case .value(let value): self.value(value)
        case .node, .pending, .failed: null()
        }
    }

    func finish(_ node: ResultNode, start: Int) {}
}

/// Bytes made once and never changed or freed before their owner: reading them
/// takes no reference count (plans are read by every request on every thread).
///
/// `@unchecked Sendable`: the memory is written only in `init`, read-only
/// afterwards, and freed by the owning plan's `deinit` when no request can
/// reach the plan any more.
struct FrozenBytes: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ array: [UInt8]) {
        let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(array.count, 1))
        _ = memory.initialize(from: array)
        bytes = UnsafeBufferPointer(start: memory.baseAddress, count: array.count)
    }

    /// Frees the memory; only the owner's `deinit` calls it.
    func free() { UnsafeMutableBufferPointer(mutating: bytes).deallocate() }
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

    /// Closes the response begun by ``response()`` and hands back its bytes, `{"data":...}`.
    mutating func closeResponse() -> [UInt8] {
        sink.append(UInt8(ascii: "}"))
        sink.recordSize()
        return sink.array()
    }
}
