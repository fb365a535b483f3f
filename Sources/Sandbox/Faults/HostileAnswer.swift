import Support

/// The `hostile_after` fault: the simulator does the work, then its real answer is sent with some
/// of its values replaced by ones no provider documents — numbers beyond every integer and double,
/// fractions of a paisa, numbers as strings, wrong types, NUL characters, lone surrogates, huge
/// strings, deep nesting — and some members dropped. The body stays well-formed JSON, so a client
/// gets past its parser and meets the values themselves: what a provider's bug or a misbehaving
/// proxy would hand it. Deterministic: under one seed, answers of one shape change in the same
/// places, so a failure found with a seed is found again with it. The Gateway's webhook fuzz test makes its
/// signed bodies hostile with the same mutation.
public enum HostileAnswer {
    /// Values a client may meet where a provider documents something else.
    static let values: [Wire] = [
        .number("0"), .number("-1"), .number("1.5"), .number("0.005"), .number("1e400"), .number("-1e400"), .number("1e-400"),
        .number("9223372036854775807"), .number("9223372036854775808"), .number("-9223372036854775809"),
        .number("18446744073709551616"), .number("4611686018427387904"), .number("92233720368547758.07"),
        .number("1" + String(repeating: "0", count: 320)),
        .null, .bool(true), .bool(false), .array([]), .object(WireObject()), .array([.number("1"), .number("2")]),
        .object(["id": .object(WireObject())]),
        .string(""), .string("0"), .string("-500.00"), .string("500.005"), .string("1e400"), .string("NaN"), .string("Infinity"),
        .string("9223372036854775808"), .string("\u{0}"), .string("order_\u{0}x"), .string("💳🧾"), .string("' OR 1=1 --"),
        .string("4111111111111111"),
        .string("captured"), .string("paid"), .string("PAID"), .string("SUCCESS"), .string("failed"), .string("refunded"),
        .string(String(repeating: "x", count: 70_000)), deep(300),
    ]

    /// `depth` arrays, one inside the other.
    static func deep(_ depth: Int) -> Wire {
        var value = Wire.array([])
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    /// `body` with values replaced and members dropped at random (about one member in five), or
    /// unchanged when it is not JSON; `seed` chooses what changes.
    public static func mutate(_ body: [UInt8], seed: UInt64) -> [UInt8] {
        guard let parsed = try? Wire.parse(body) else { return body }
        var random = SplitMix(seed: seed)
        return mutate(parsed, &random).jsonBytes
    }

    private static func mutate(_ value: Wire, _ random: inout SplitMix) -> Wire {
        switch value {
        case .object(let object):
            var result = WireObject()
            for (key, member) in object.members {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: continue   // dropped
                case 1: result[key] = values.randomElement(using: &random) ?? .null
                default: result[key] = mutate(member, &random)
                }
            }
            return .object(result)
        case .array(let items):
            if Int.random(in: 0..<8, using: &random) == 0 { return .array([]) }
            return .array(items.map { mutate($0, &random) })
        default:
            return value
        }
    }
}
