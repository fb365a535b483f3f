import JSON

/// Webhook bodies read through the project's JSON parser instead of Foundation's `JSONDecoder`
/// (7 % of PayQL's CPU per delivery in the webhook benchmark's profile: the decoder's boxes,
/// coding paths and dynamic casts for every member of a ~600-byte body).
///
/// Strict on purpose, so that it can only ever agree with `JSONDecoder`: a reader gives up
/// (throws ``Mismatch``) wherever `JSONDecoder` might decode the body differently or fail — a
/// member of another JSON type than the wire model's, an integer written with a fraction or an
/// exponent, a body the parser refuses (duplicate keys, which `JSONDecoder` accepts) — and the
/// caller then decodes with `JSONDecoder` as before. So a body decodes to the same wire model
/// either way, and one that does not decode fails with the same message.
struct WebhookJSON {
    /// The reader gave up: decode the body with `JSONDecoder` instead.
    struct Mismatch: Error {}

    /// The object read.
    let value: JSONValue

    /// The body's top-level object; nil when it is not one, does not parse, or repeats a member name
    /// in one object (the parser keeps the last, `JSONDecoder` the first). `parsed`: `body` as the caller
    /// already parsed it with `JSONParser.parse` (``WebhookRequest/parsedJSON``), not parsed again.
    static func parse(_ body: [UInt8], parsed: JSONValue? = nil) -> WebhookJSON? {
        guard let value = parsed ?? (try? JSONParser.parse(body)), case .object = value, !mayRepeatAName(body) else { return nil }
        return WebhookJSON(value: value)
    }

    /// Whether an object of `body` (valid JSON) may name a member twice: true when one does, or when a
    /// name holds an escape (two spellings of one name are not compared). A scan of the bytes, each
    /// object's names compared as written.
    static func mayRepeatAName(_ body: [UInt8]) -> Bool {
        // The names of every open object, as byte ranges, one object after another; where each open
        // object's names begin (nil for an open array). Objects are small: a name is compared with its
        // object's earlier ones directly, with no hashing and no allocation per object.
        var names: [Range<Int>] = []
        var open: [Int?] = []
        names.reserveCapacity(64)
        open.reserveCapacity(16)
        var expectingName = false
        var position = 0
        while position < body.count {
            switch body[position] {
            case UInt8(ascii: "{"):
                open.append(names.count)
                expectingName = true
            case UInt8(ascii: "["):
                open.append(nil)
                expectingName = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if case .some(.some(let first)) = open.popLast() { names.removeSubrange(first...) }
                expectingName = false
            case UInt8(ascii: ","):
                expectingName = open.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let start = position + 1
                var end = start
                var escaped = false
                while end < body.count, body[end] != UInt8(ascii: "\"") {
                    if body[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                end = min(end, body.count)
                if expectingName, case .some(.some(let first)) = open.last {
                    if escaped { return true }
                    for earlier in names[first...] where earlier.count == end - start
                        && body[earlier].elementsEqual(body[start..<end]) {
                        return true
                    }
                    names.append(start..<end)
                }
                expectingName = false
                position = end
            default:
                break
            }
            position += 1
        }
        return false
    }

    /// A required member that is an object.
    func object(_ key: String) throws(Mismatch) -> WebhookJSON {
        guard let member = try object(ifPresent: key) else { throw Mismatch() }
        return member
    }

    /// An optional member that is an object when present (absent or null: nil).
    func object(ifPresent key: String) throws(Mismatch) -> WebhookJSON? {
        switch value[key] {
        case nil, .null?: return nil
        case .object?: return WebhookJSON(value: value[key] ?? .null)
        default: throw Mismatch()
        }
    }

    /// A required string member.
    func string(_ key: String) throws(Mismatch) -> String {
        guard let text = try string(ifPresent: key) else { throw Mismatch() }
        return text
    }

    /// An optional string member (absent or null: nil).
    func string(ifPresent key: String) throws(Mismatch) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Mismatch()
        }
    }

    /// A required integer member (written as an integer: a fraction or an exponent gives up).
    func int64(_ key: String) throws(Mismatch) -> Int64 {
        guard let number = try int64(ifPresent: key) else { throw Mismatch() }
        return number
    }

    /// An optional integer member (absent or null: nil).
    func int64(ifPresent key: String) throws(Mismatch) -> Int64? {
        switch value[key] {
        case nil, .null?: return nil
        case .int(let number)?: return number
        default: throw Mismatch()
        }
    }

    /// An optional `Int` member (absent or null: nil).
    func int(ifPresent key: String) throws(Mismatch) -> Int? {
        guard let number = try int64(ifPresent: key) else { return nil }
        guard let exact = Int(exactly: number) else { throw Mismatch() }
        return exact
    }

    /// An optional boolean member (absent or null: nil).
    func bool(ifPresent key: String) throws(Mismatch) -> Bool? {
        switch value[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw Mismatch()
        }
    }
}
