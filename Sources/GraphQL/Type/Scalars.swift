public import JSON

/// The error a scalar's coercion hook throws; the message ends up in the GraphQL error.
public struct ScalarCoercionError: Error, Sendable, Equatable {
    /// What went wrong, e.g. `Int cannot represent non-integer value: "x"`.
    public var message: String

    /// Creates the error.
    public init(_ message: String) { self.message = message }
}

/// A scalar type (spec §3.5): the five built-ins or a custom scalar with hooks.
///
/// Custom scalars convert with `serialize` (resolver value to response JSON)
/// and `parseValue` (input JSON, from variables or from a literal converted to
/// JSON, to the value resolvers receive). Without hooks a custom scalar passes
/// JSON through unchanged, as graphql-js does.
public struct GraphQLScalarType: Sendable {
    /// The type's name.
    public var name: String
    /// Its description, if any.
    public var description: String?
    /// The `@specifiedBy(url:)` URL, if any.
    public var specifiedByURL: String?
    /// Resolver value → response JSON; throw ``ScalarCoercionError`` for values it cannot represent.
    public var serialize: (@Sendable (any Sendable) throws -> JSONValue)?
    /// Input JSON → internal value; throw ``ScalarCoercionError`` for invalid input.
    public var parseValue: (@Sendable (JSONValue) throws -> JSONValue)?
    /// Set for the specification's scalars, whose rules are built in.
    let builtin: BuiltinScalar?

    /// A custom scalar.
    public init(
        name: String,
        description: String? = nil,
        specifiedByURL: String? = nil,
        serialize: (@Sendable (any Sendable) throws -> JSONValue)? = nil,
        parseValue: (@Sendable (JSONValue) throws -> JSONValue)? = nil
    ) {
        self.name = name
        self.description = description
        self.specifiedByURL = specifiedByURL
        self.serialize = serialize
        self.parseValue = parseValue
        self.builtin = nil
    }

    init(builtin: BuiltinScalar, description: String) {
        self.name = builtin.rawValue
        self.description = description
        self.builtin = builtin
    }

    /// Whether this is one of `Int`, `Float`, `String`, `Boolean`, `ID`.
    public var isSpecified: Bool { builtin != nil }

    /// `Int`: 32-bit signed integers.
    public static let int = GraphQLScalarType(builtin: .int, description: "The `Int` scalar type represents non-fractional signed whole numeric values. Int can represent values between -(2^31) and 2^31 - 1.")
    /// `Float`: IEEE 754 doubles.
    public static let float = GraphQLScalarType(builtin: .float, description: "The `Float` scalar type represents signed double-precision fractional values as specified by [IEEE 754](https://en.wikipedia.org/wiki/IEEE_floating_point).")
    /// `String`: UTF-8 text.
    public static let string = GraphQLScalarType(builtin: .string, description: "The `String` scalar type represents textual data, represented as UTF-8 character sequences. The String type is most often used by GraphQL to represent free-form human-readable text.")
    /// `Boolean`.
    public static let boolean = GraphQLScalarType(builtin: .boolean, description: "The `Boolean` scalar type represents `true` or `false`.")
    /// `ID`: serialised as a string; accepts strings and integers as input.
    public static let id = GraphQLScalarType(builtin: .id, description: "The `ID` scalar type represents a unique identifier, often used to refetch an object or as key for a cache. The ID type appears in a JSON response as a String; however, it is not intended to be human-readable. When expected as an input type, any string (such as `\"4\"`) or integer (such as `4`) input value will be accepted as an ID.")

    /// The five specified scalars, in graphql-js order.
    public static let specified: [GraphQLScalarType] = [.string, .int, .float, .boolean, .id]

    /// Converts a resolver's value to response JSON (graphql-js `serialize`).
    public func serializeValue(_ value: any Sendable) throws(ScalarCoercionError) -> JSONValue {
        if let builtin { return try builtin.serialize(value) }
        if let serialize {
            do { return try serialize(value) } catch let error as ScalarCoercionError { throw error } catch {
                throw ScalarCoercionError("\(error)")
            }
        }
        guard let json = jsonValue(fromResolved: value) else {
            throw ScalarCoercionError("\(name) cannot represent value: \(String(describing: value))")
        }
        return json
    }

    /// ``serializeValue(_:)`` for a value that is already JSON (no dynamic casts for built-ins).
    @inline(__always)
    func serializeJSON(_ json: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        if let builtin { return try builtin.serializeJSON(json) }
        // Without `serialize`, a resolved JSON value is its own serialisation.
        if serialize == nil { return json }
        return try serializeValue(json)
    }

    /// Coerces an input JSON value (a variable, or a literal already turned into JSON) to this scalar.
    public func parseInputValue(_ value: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        if let builtin { return try builtin.parseValue(value) }
        if let parseValue {
            do { return try parseValue(value) } catch let error as ScalarCoercionError { throw error } catch {
                throw ScalarCoercionError("\(error)")
            }
        }
        return value
    }
}

/// The specification's scalars and their coercion rules (graphql-js wording).
enum BuiltinScalar: String, Sendable {
    case int = "Int", float = "Float", string = "String", boolean = "Boolean", id = "ID"

    func serialize(_ value: any Sendable) throws(ScalarCoercionError) -> JSONValue {
        try serialize(json: jsonValue(fromResolved: value), original: value)
    }

    /// Whether a JSON value serialises as itself (the common case ``serializeJSON(_:)`` checks first).
    @inline(__always)
    func servesAsIs(_ json: borrowing JSONValue) -> Bool {
        switch json {
        case .string: return self == .string || self == .id
        case .bool: return self == .boolean
        case .int(let number): return self == .int && number >= -2_147_483_648 && number <= 2_147_483_647
        default: return false
        }
    }

    /// Serialises a value that is already JSON (the executor's fast path: no casts).
    @inline(__always)
    func serializeJSON(_ json: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        switch (self, json) {
        case (.string, .string), (.id, .string), (.boolean, .bool): return json
        case (.int, .int(let number)) where number >= -2_147_483_648 && number <= 2_147_483_647: return json
        default: return try serialize(json: json, original: nil)
        }
    }

    private func serialize(json: JSONValue?, original: (any Sendable)?) throws(ScalarCoercionError) -> JSONValue {
        let value: any Sendable = original ?? json ?? JSONValue.null
        switch self {
        case .int:
            switch json {
            case .int(let number):
                guard number >= -2_147_483_648, number <= 2_147_483_647 else {
                    throw ScalarCoercionError("Int cannot represent non 32-bit signed integer value: \(number)")
                }
                return .int(number)
            case .bool(let flag): return .int(flag ? 1 : 0)
            case .double(let number):
                guard number.isFinite, number.rounded(.towardZero) == number else {
                    throw ScalarCoercionError("Int cannot represent non-integer value: \(inspectValue(.double(number)))")
                }
                guard number >= -2_147_483_648, number <= 2_147_483_647 else {
                    throw ScalarCoercionError("Int cannot represent non 32-bit signed integer value: \(inspectValue(.double(number)))")
                }
                return .int(Int64(number))
            case .string(let text):
                guard !text.isEmpty, let number = Int64(text) else {
                    throw ScalarCoercionError("Int cannot represent non-integer value: \(inspectValue(.string(text)))")
                }
                return try serialize(json: .int(number), original: nil)
            default:
                throw ScalarCoercionError("Int cannot represent non-integer value: \(inspectResolved(value, json))")
            }
        case .float:
            switch json {
            case .int(let number): return .int(number)
            case .double(let number):
                guard number.isFinite else {
                    throw ScalarCoercionError("Float cannot represent non numeric value: \(inspectValue(.double(number)))")
                }
                return .double(number)
            case .bool(let flag): return .int(flag ? 1 : 0)
            case .string(let text):
                guard !text.isEmpty, let number = Double(text), number.isFinite else {
                    throw ScalarCoercionError("Float cannot represent non numeric value: \(inspectValue(.string(text)))")
                }
                return .double(number)
            default:
                throw ScalarCoercionError("Float cannot represent non numeric value: \(inspectResolved(value, json))")
            }
        case .string:
            switch json {
            case .string(let text): return .string(text)
            case .bool(let flag): return .string(flag ? "true" : "false")
            case .int(let number): return .string(String(number))
            case .double(let number) where number.isFinite: return .string(formatNumberLikeJS(number))
            default:
                throw ScalarCoercionError("String cannot represent value: \(inspectResolved(value, json))")
            }
        case .boolean:
            switch json {
            case .bool(let flag): return .bool(flag)
            case .int(let number): return .bool(number != 0)
            case .double(let number) where number.isFinite: return .bool(number != 0)
            default:
                throw ScalarCoercionError("Boolean cannot represent a non boolean value: \(inspectResolved(value, json))")
            }
        case .id:
            switch json {
            case .string(let text): return .string(text)
            case .int(let number): return .string(String(number))
            case .double(let number) where number.isFinite && number.rounded(.towardZero) == number:
                return .string(formatNumberLikeJS(number))
            default:
                throw ScalarCoercionError("ID cannot represent value: \(inspectResolved(value, json))")
            }
        }
    }

    func parseValue(_ value: JSONValue) throws(ScalarCoercionError) -> JSONValue {
        switch self {
        case .int:
            switch value {
            case .int(let number):
                guard number >= -2_147_483_648, number <= 2_147_483_647 else {
                    throw ScalarCoercionError("Int cannot represent non 32-bit signed integer value: \(number)")
                }
                return value
            case .double(let number) where number.isFinite && number.rounded(.towardZero) == number:
                guard number >= -2_147_483_648, number <= 2_147_483_647 else {
                    throw ScalarCoercionError("Int cannot represent non 32-bit signed integer value: \(inspectValue(value))")
                }
                return .int(Int64(number))
            default:
                throw ScalarCoercionError("Int cannot represent non-integer value: \(inspectValue(value))")
            }
        case .float:
            switch value {
            case .int: return value
            case .double(let number) where number.isFinite: return value
            default: throw ScalarCoercionError("Float cannot represent non numeric value: \(inspectValue(value))")
            }
        case .string:
            guard case .string = value else {
                throw ScalarCoercionError("String cannot represent a non string value: \(inspectValue(value))")
            }
            return value
        case .boolean:
            guard case .bool = value else {
                throw ScalarCoercionError("Boolean cannot represent a non boolean value: \(inspectValue(value))")
            }
            return value
        case .id:
            switch value {
            case .string: return value
            case .int(let number): return .string(String(number))
            case .double(let number) where number.isFinite && number.rounded(.towardZero) == number:
                return .string(formatNumberLikeJS(number))
            default: throw ScalarCoercionError("ID cannot represent value: \(inspectValue(value))")
            }
        }
    }
}

/// Converts common Swift values to JSON; `nil` for values with no JSON form.
func jsonValue(fromResolved value: any Sendable) -> JSONValue? {
    switch value {
    case let json as JSONValue: return json
    case let text as String: return .string(text)
    case let text as Substring: return .string(String(text))
    case let number as Int: return .int(Int64(number))
    case let number as Int64: return .int(number)
    case let number as Int32: return .int(Int64(number))
    case let number as Double: return .double(number)
    case let number as Float: return .double(Double(number))
    case let flag as Bool: return .bool(flag)
    case let object as JSONObject: return .object(object)
    case let number as any BinaryInteger:
        guard let exact = Int64(exactly: number) else { return nil }
        return .int(exact)
    default: return nil
    }
}

/// graphql-js `inspect` of a JSON value: strings quoted, objects as `{ a: 1 }`.
func inspectValue(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .int(let number): return String(number)
    case .double(let number): return formatNumberLikeJS(number)
    case .string(let text): return quotedLikeJSON(text)
    case .array(let items):
        if items.isEmpty { return "[]" }
        return "[" + items.map(inspectValue).joined(separator: ", ") + "]"
    case .object(let object):
        if object.count == 0 { return "{}" }
        return "{ " + object.members.map { "\($0.0): \(inspectValue($0.1))" }.joined(separator: ", ") + " }"
    }
}

func inspectResolved(_ value: any Sendable, _ json: JSONValue?) -> String {
    if let json { return inspectValue(json) }
    return String(describing: value)
}

/// Formats a double the way JavaScript's `String(number)` does for common values.
func formatNumberLikeJS(_ number: Double) -> String {
    if number.isNaN { return "NaN" }
    if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
    // JavaScript writes integral values below 1e21 in plain digits ("10000000000000000000"
    // for 1e19). From 2^63 on they exceed Int64, so they are never converted to it.
    if number.rounded(.towardZero) == number, number.magnitude < 1e21 {
        if number.magnitude < 9_007_199_254_740_992, let exact = Int64(exactly: number) { return String(exact) }
        return (number < 0 ? "-" : "") + plainDigits(ofIntegral: number.magnitude)
    }
    var text = String(number)
    // Swift writes "1e-07" as "1e-07"; JavaScript as "1e-7".
    if let exponent = text.firstIndex(of: "e") {
        var mantissa = String(text[..<exponent])
        if mantissa.hasSuffix(".0") { mantissa.removeLast(2) }
        var power = String(text[text.index(after: exponent)...])
        var sign = "+"
        if power.hasPrefix("-") { sign = "-"; power.removeFirst() } else if power.hasPrefix("+") { power.removeFirst() }
        while power.count > 1, power.hasPrefix("0") { power.removeFirst() }
        text = mantissa + "e" + sign + power
    }
    return text
}

/// An integral double written in plain digits, as JavaScript writes those below 1e21:
/// the shortest round-trip digits padded with zeros (2^63 is "9223372036854776000").
private func plainDigits(ofIntegral magnitude: Double) -> String {
    var text = Substring(String(magnitude))
    var exponent = 0
    if let marker = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        exponent = Int(text[text.index(after: marker)...]) ?? 0
        text = text[..<marker]
    }
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts.first ?? "0"
    let digits = String(whole) + (parts.count > 1 ? String(parts[1]) : "")
    let integerCount = whole.count + exponent
    var plain = digits.count <= integerCount
        ? digits + String(repeating: "0", count: integerCount - digits.count)
        : String(digits.prefix(max(integerCount, 0)))
    while plain.count > 1, plain.hasPrefix("0") { plain.removeFirst() }
    return plain.isEmpty ? "0" : plain
}

/// A string quoted as JSON.stringify quotes it.
func quotedLikeJSON(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
            if scalar.value < 0x20 {
                out += "\\u" + hexDigits4(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

func hexDigits4(_ value: UInt32) -> String {
    let digits = Array("0123456789abcdef")
    var out = ""
    for shift in stride(from: 12, through: 0, by: -4) {
        out.append(digits[Int((value >> UInt32(shift)) & 0xF)])
    }
    return out
}
