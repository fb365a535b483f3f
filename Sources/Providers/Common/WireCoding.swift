import Foundation
import Support
public import PaymentsCore

/// A decimal number on the wire (Cashfree `order_amount`), kept as its exact
/// text. Decodes from a JSON number — Foundation's `JSONDecoder` reads a
/// `Decimal` from the number's characters, not through `Double` — or from a
/// JSON string holding a number (Setu sends both). Encodes as a JSON number.
struct WireDecimal: Codable, Sendable, Hashable {
    /// Plain decimal text, e.g. `"10.15"`.
    let text: String
    /// Whether the wire held a JSON string (plain decimal syntax) rather than a number.
    let wasString: Bool

    init(text: String) {
        self.text = text
        wasString = false
    }

    /// The syntax `text` must follow: a string is a plain decimal (`"1e2"` is refused),
    /// a number follows JSON's grammar (its text comes from `Decimal`, never with an exponent).
    var syntax: DecimalText.Syntax { wasString ? .plain : .jsonNumber }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
            wasString = true
        } else {
            wasString = false
            let decimal = try container.decode(Decimal.self)
            // Decimal's description is plain digits with a '.', never an exponent,
            // and does not depend on the locale.
            text = decimal.description
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "not a decimal"))
        }
        try container.encode(decimal)
    }
}

/// JSON and form encodings shared by the adapters' clients.
enum WireCoding {
    /// Numbers longer than this many digits are refused before decoding:
    /// `Decimal` keeps 38 significant digits and would round a longer one
    /// silently, which could turn an unrepresentable amount into a valid one.
    static let maximumNumberDigits = 30

    /// Decodes `T` from a JSON body; `nil` when the body is not that shape.
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> T? {
        guard numbersAreShort(body) else { return nil }
        return try? JSONDecoder().decode(type, from: Data(body))
    }

    /// Decodes `T`, throwing the decoder's description on failure (for error messages).
    static func decodeOrExplain<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> Result<T, WireDecodingFailure> {
        guard numbersAreShort(body) else { return .failure(WireDecodingFailure(message: "a number has more than \(maximumNumberDigits) digits")) }
        // A NUL in a provider's answer is read as U+FFFD (PostgreSQL stores none; Support's NULReplacement).
        let body = NULReplacement.replaced(in: body, form: false) ?? body
        do {
            return .success(try JSONDecoder().decode(type, from: Data(body)))
        } catch let error as DecodingError {
            return .failure(WireDecodingFailure(message: describe(error)))
        } catch {
            return .failure(WireDecodingFailure(message: "\(error)"))
        }
    }

    /// Encodes `value` as compact JSON.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// `application/x-www-form-urlencoded` body from ordered pairs.
    static func formEncode(_ fields: [(String, String)]) -> [UInt8] { URLEncodedForm.encode(fields) }

    /// Parses a form body into ordered pairs (`+` is a space, `%XX` decoded);
    /// nil when an escape is malformed or the result is not UTF-8 (a signed body is read exactly).
    static func formDecode(_ body: [UInt8]) -> [(String, String)]? {
        URLEncodedForm.decodeStrictly(body).map { pairs in pairs.map { ($0.name, $0.value) } }
    }

    /// A path segment with reserved characters escaped, so an id can never
    /// change the path (`../` or `?`).
    static func pathSegment(_ text: String) -> String { URLEncodedForm.percentEncode(text) }

    /// `name=value&…` query string from ordered pairs.
    static func query(_ items: [(String, String)]) -> String {
        items.map { URLEncodedForm.percentEncode($0.0) + "=" + URLEncodedForm.percentEncode($0.1) }.joined(separator: "&")
    }

    /// Scans a JSON body outside strings and checks that no number has more
    /// than ``maximumNumberDigits`` digits.
    static func numbersAreShort(_ body: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        var run = 0
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true; run = 0; continue }
            if byte >= 48 && byte <= 57 {
                run += 1
                if run > maximumNumberDigits { return false }
            } else if byte != UInt8(ascii: ".") {
                run = 0
            }
        }
        return true
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        case .dataCorrupted(let context): return "invalid JSON at \(path(context))"
        @unknown default: return "undecodable body"
        }
    }
}

/// Why a body could not be decoded.
struct WireDecodingFailure: Error, Sendable {
    let message: String
}

/// A JSON object of string values, tolerant of the `[]` Razorpay sends for
/// an empty `notes`, and of non-string values (kept as their JSON text).
struct WireNotes: Codable, Sendable, Hashable {
    var values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            // `[]` (or any array) means "no notes".
            values = [:]
            while !array.isAtEnd { _ = try? array.decode(Skip.self) }
            return
        }
        let container = try decoder.container(keyedBy: AnyKey.self)
        var result: [String: String] = [:]
        for key in container.allKeys {
            if let string = try? container.decode(String.self, forKey: key) {
                result[key.stringValue] = string
            } else if let number = try? container.decode(WireDecimal.self, forKey: key) {
                result[key.stringValue] = number.text
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                result[key.stringValue] = flag ? "true" : "false"
            }
        }
        values = result
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in values { try container.encode(value, forKey: AnyKey(key)) }
    }

    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

/// A coding key for arbitrary member names.
struct AnyKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
