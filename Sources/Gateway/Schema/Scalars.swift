public import GraphQL
public import JSON

/// The contract's custom scalars (schema/payql.graphql, "Scalars"): each checks its
/// input format strictly and refuses numbers where a string is required, so a
/// hostile or careless value is a `BAD_USER_INPUT` error before any resolver runs.
/// Inside, every scalar is a JSON string (MinorUnits: digits that fit `Int64`).
enum Scalars {
    /// Attaches every custom scalar's hooks.
    static func register(in resolvers: inout SchemaResolvers) {
        resolvers.scalar("MinorUnits", ScalarHooks(serialize: serializeMinorUnits, parseValue: parseMinorUnits))
        resolvers.scalar("Decimal", ScalarHooks(serialize: serializeString("Decimal"), parseValue: parseDecimal))
        resolvers.scalar("DateTime", ScalarHooks(serialize: serializeString("DateTime"), parseValue: parseDateTime))
        resolvers.scalar("PhoneNumber", ScalarHooks(serialize: serializeString("PhoneNumber"), parseValue: parsePhoneNumber))
        resolvers.scalar("URL", ScalarHooks(serialize: serializeString("URL"), parseValue: parseURL))
    }

    // MARK: MinorUnits

    /// `"0"`, `"500"`, `"29935"`: decimal digits, no sign, no leading zero, at most `Int64.max`.
    static func parseMinorUnits(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let text) = value else {
            throw ScalarCoercionError("MinorUnits must be a string of decimal digits (e.g. \"29935\"), not \(kind(value)).")
        }
        guard minorUnits(text) != nil else {
            throw ScalarCoercionError("MinorUnits must be decimal digits without sign, leading zeros or separators, at most 9223372036854775807; got \(quoted(text)).")
        }
        return value
    }

    /// The `Int64` value of MinorUnits text, or nil when the text is not in the scalar's format.
    static func minorUnits(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard let first = utf8.first, utf8.count <= 19, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              first != 0x30 || utf8.count == 1 else { return nil }
        return Int64(text)   // nil beyond Int64.max (19 digits can overflow)
    }

    private static func serializeMinorUnits(_ value: any Sendable) throws -> JSONValue {
        switch value {
        case let number as Int64 where number >= 0: return .string(String(number))
        case let number as Int where number >= 0: return .string(String(number))
        case let text as String where minorUnits(text) != nil: return .string(text)
        case let json as JSONValue:
            if case .int(let number) = json, number >= 0 { return .string(String(number)) }
            if case .string(let text) = json, minorUnits(text) != nil { return json }
        default: break
        }
        throw ScalarCoercionError("MinorUnits cannot represent the value")
    }

    // MARK: Decimal

    /// `"3522.20"`, `"0.5"`, `"10"`: optional minus, digits without leading zeros, optional fraction.
    /// The number of fraction digits a currency allows is a business rule (AMOUNT_TOO_PRECISE), checked later.
    static func parseDecimal(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let text) = value else {
            throw ScalarCoercionError("Decimal must be a string such as \"3522.20\", not \(kind(value)).")
        }
        guard isDecimal(text) else { throw ScalarCoercionError("Decimal must be plain decimal text such as \"3522.20\"; got \(quoted(text)).") }
        return value
    }

    static func isDecimal(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        guard bytes.count <= 40 else { return false }
        if bytes.first == 0x2D { bytes.removeFirst() }
        let parts = bytes.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy(isDigit),
              whole.first != 0x30 || whole.count == 1 else { return false }
        if parts.count == 2 { return !parts[1].isEmpty && parts[1].allSatisfy(isDigit) }
        return true
    }

    // MARK: DateTime

    /// RFC 3339 with a time zone: `2026-03-19T12:30:45Z`, `…45.123+05:30`. The calendar date must exist.
    static func parseDateTime(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let text) = value else { throw ScalarCoercionError("DateTime must be an RFC 3339 string, not \(kind(value)).") }
        guard isDateTime(text) else {
            throw ScalarCoercionError("DateTime must be RFC 3339 with a time zone, e.g. \"2026-03-19T12:30:45Z\"; got \(quoted(text)).")
        }
        return value
    }

    static func isDateTime(_ text: String) -> Bool {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 35 else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range { guard isDigit(b[index]) else { return nil }; value = value * 10 + Int(b[index] - 0x30) }
            return value
        }
        guard let year = number(0..<4), b[4] == 0x2D, let month = number(5..<7), b[7] == 0x2D, let day = number(8..<10),
              b[10] == 0x54 || b[10] == 0x74, let hour = number(11..<13), b[13] == 0x3A, let minute = number(14..<16),
              b[16] == 0x3A, let second = number(17..<19) else { return false }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return false }
        var index = 19
        if index < b.count, b[index] == 0x2E {
            index += 1
            let start = index
            while index < b.count, isDigit(b[index]) { index += 1 }
            guard index > start, index - start <= 9 else { return false }
        }
        guard index < b.count else { return false }
        if b[index] == 0x5A || b[index] == 0x7A { return index + 1 == b.count }
        guard b[index] == 0x2B || b[index] == 0x2D, b.count == index + 6, let offsetHours = number(index + 1..<index + 3),
              b[index + 3] == 0x3A, let offsetMinutes = number(index + 4..<index + 6) else { return false }
        return offsetHours <= 23 && offsetMinutes <= 59
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: PhoneNumber

    /// A 10-digit Indian mobile number or E.164; becomes E.164 (`+919876543210`).
    static func parsePhoneNumber(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let text) = value else { throw ScalarCoercionError("PhoneNumber must be a string, not \(kind(value)).") }
        guard let normalized = e164(text) else {
            throw ScalarCoercionError("PhoneNumber must be a 10-digit Indian mobile number or E.164 (+ and 8–15 digits) without spaces or separators; got \(quoted(text)).")
        }
        return .string(normalized)
    }

    /// E.164 form of a phone number input, or nil.
    static func e164(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        if utf8.count == 10, utf8.allSatisfy(isDigit), (0x36...0x39).contains(utf8[0]) { return "+91" + text }
        guard utf8.first == 0x2B, (9...16).contains(utf8.count), utf8.dropFirst().allSatisfy(isDigit), utf8[1] != 0x30 else { return nil }
        if text.hasPrefix("+91") {
            // An Indian number must then be a 10-digit mobile or landline number.
            guard utf8.count == 13 else { return nil }
        }
        return text
    }

    // MARK: URL

    /// An absolute http(s) URL of at most 2,048 characters, no spaces or control characters.
    static func parseURL(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let text) = value else { throw ScalarCoercionError("URL must be a string, not \(kind(value)).") }
        guard isURL(text) else { throw ScalarCoercionError("URL must be an absolute http or https URL; got \(quoted(text)).") }
        return value
    }

    static func isURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return false }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = text.dropFirst(8) } else if lower.hasPrefix("http://") { rest = text.dropFirst(7) } else { return false }
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !host.isEmpty && !host.hasPrefix(":") && !host.contains("@")
    }

    // MARK: Helpers

    private static func serializeString(_ name: String) -> @Sendable (any Sendable) throws -> JSONValue {
        { value in
            switch value {
            case let text as String: return .string(text)
            case let json as JSONValue:
                if case .string = json { return json }
            default: break
            }
            throw ScalarCoercionError("\(name) cannot represent the value")
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// The input quoted for an error message, cut to 40 characters (inputs can be large).
    private static func quoted(_ text: String) -> String {
        let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\"\(cut)\""
    }
}
