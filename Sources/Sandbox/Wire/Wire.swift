/// A JSON value as the sandbox reads and writes it.
///
/// Numbers keep their literal text (`170.00` stays `170.00`): providers are
/// strict about amount precision (Cashfree rejects `10.101`, signs webhook
/// bodies that contain `170.00`), so the simulators must see and write the
/// exact digits. Objects keep member order, so bodies come out in the order of
/// the providers' samples. This type is the sandbox's own: it shares nothing
/// with the `Providers` target on purpose (see docs/DESIGN.md, Layers).
enum Wire: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number as written, e.g. `"10.10"`, `"-3"`, `"1e3"`.
    case number(String)
    case string(String)
    case array([Wire])
    case object(WireObject)

    /// An integer number.
    static func int(_ value: Int64) -> Wire { .number(String(value)) }
    /// A number, written as given (for decimal amounts like `"170.00"`).
    static func decimal(_ text: String) -> Wire { .number(text) }
    /// A string, or `null` for nil.
    static func string(_ value: String?) -> Wire { value.map { .string($0) } ?? .null }

    subscript(key: String) -> Wire? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var objectValue: WireObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    var arrayValue: [Wire]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var numberText: String? {
        if case .number(let value) = self { return value }
        return nil
    }

    var isNull: Bool { self == .null }
}

/// Object members in insertion order.
struct WireObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private(set) var members: [(key: String, value: Wire)] = []

    init() {}

    init(dictionaryLiteral elements: (String, Wire)...) {
        for (key, value) in elements { self[key] = value }
    }

    static func == (lhs: WireObject, rhs: WireObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    var keys: [String] { members.map(\.key) }
    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }

    subscript(key: String) -> Wire? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }
}
