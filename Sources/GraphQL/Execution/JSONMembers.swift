import JSON

/// A JSON object's members read in place, through raw views of its arrays.
///
/// Resolver data is often shared by every server thread, and the compiler copies
/// (retains) a `JSONValue` read from an array whenever it is passed to a function
/// that may release anything — which the executor's functions may. The executor
/// therefore walks JSON objects and lists through pointers and copies a value
/// only where a resolver must see it.
///
/// Safety: the views are taken while the value they point into is kept alive by a
/// value further up the stack (the resolver's result, the root value or a list
/// being completed), for the duration of one synchronous completion; JSON values
/// are immutable (arrays shared with other threads are copied, never written in
/// place, by copy-on-write); and no view is stored beyond the call that made it.
/// The array views are taken in a scope that makes no calls, so taking them copies nothing.
struct JSONMembers {
    let keys: UnsafeBufferPointer<String>
    let values: UnsafeBufferPointer<JSONValue>
    /// The object value itself (for resolvers, which get it as their `source`).
    let pointer: UnsafePointer<JSONValue>

    /// The members of the object at `pointer`; `nil` when it is not an object.
    @inline(__always)
    init?(at pointer: UnsafePointer<JSONValue>) {
        switch pointer.pointee {
        case .object(let object):
            keys = object.keys.withUnsafeBufferPointer { $0 }
            values = object.values.withUnsafeBufferPointer { $0 }
            self.pointer = pointer
        default:
            return nil
        }
    }

    /// The items of the list at `pointer`, in place; `nil` when it is not a list.
    @inline(__always)
    static func items(at pointer: UnsafePointer<JSONValue>) -> UnsafeBufferPointer<JSONValue>? {
        switch pointer.pointee {
        case .array(let items): return items.withUnsafeBufferPointer { $0 }
        default: return nil
        }
    }

    /// The member value at `index` (which must be a valid position).
    @inline(__always)
    func value(at index: Int) -> UnsafePointer<JSONValue>? {
        values.baseAddress.map { $0 + index }
    }

    /// The position of the first member named `key`, trying `hint` first (see
    /// `JSONObject.index(forKey:hint:)`: lengths are compared before contents).
    @inline(__always)
    func index(forKey key: String, hint: Int) -> Int? {
        if hint >= 0, hint < keys.count, keys[hint] == key { return hint }
        let length = key.utf8.count
        for position in keys.indices where keys[position].utf8.count == length && keys[position] == key {
            return position
        }
        return nil
    }

    /// The object as a value (a copy: for resolvers and the slow paths).
    var object: JSONValue { pointer.pointee }
}

extension JSONValue {
    /// Whether the value is `null` (asked of borrowed values, which `if case` would copy).
    @inline(__always)
    var isNullValue: Bool {
        switch self {
        case .null: return true
        default: return false
        }
    }
}
