import JSON
import Support

/// Redacts personal and account data from webhook payloads before they are stored
/// for ops (`webhookEvents.payload`): values under keys that name contact details,
/// account numbers, VPAs or card data become `"[redacted]"`.
enum WebhookRedaction {
    /// Lower-cased key fragments whose values are redacted.
    static let sensitiveFragments = ["email", "contact", "phone", "mobile", "vpa", "account_number", "accountnumber",
                                     "card", "upi_id", "bank_account", "ifsc", "name", "address", "token",
                                     // Instamojo's `buyer` is the buyer's email address.
                                     "buyer"]

    /// The fragments as lower-case ASCII bytes (matched against keys byte by byte: this runs for
    /// every key of every webhook body, and `String.contains` made it a third of a delivery's CPU).
    private static let fragmentBytes: [[UInt8]] = sensitiveFragments.map { Array($0.utf8) }

    /// What a redacted value is replaced with.
    static let placeholder = "[redacted]"

    /// The string `value` holds, nil when it is absent, not a string, or redacted: a reprocessed event
    /// is read from its stored payload, where a redacted value is never data.
    static func unredactedString(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, string != placeholder else { return nil }
        return string
    }

    /// `value` without the object members ``redact(_:depth:)`` replaced (the member is absent instead
    /// of `"[redacted]"`), for a stored payload read again.
    static func withoutRedacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var kept = JSONObject(capacity: object.count)
            for (key, member) in object.members where member.stringValue != placeholder {
                kept.append(key, withoutRedacted(member))
            }
            return .object(kept)
        case .array(let items):
            return .array(items.map(withoutRedacted))
        default:
            return value
        }
    }

    static func redact(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        guard depth < 64 else { return .string(placeholder) }
        switch value {
        case .object(let object):
            var out = JSONObject(capacity: object.count)
            for (key, member) in object.members {
                if isSensitive(key), !isStructural(member) {
                    out.append(key, member.isNull ? .null : .string(placeholder))
                } else {
                    out.append(key, redact(member, depth: depth + 1))
                }
            }
            return .object(out)
        case .array(let items):
            return .array(items.map { redact($0, depth: depth + 1) })
        default:
            return value
        }
    }

    /// Whether `key`, ASCII-lower-cased, contains one of the fragments. Compared in place, each byte
    /// lower-cased as it is read (a lower-cased copy of every key of every body was an allocation each).
    static func isSensitive(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            for fragment in fragmentBytes where fragment.count <= bytes.count {
                let first = fragment[0]
                for start in 0...(bytes.count - fragment.count) where ASCII.lowercased(bytes[start]) == first {
                    var offset = 1
                    while offset < fragment.count, ASCII.lowercased(bytes[start + offset]) == fragment[offset] { offset += 1 }
                    if offset == fragment.count { return true }
                }
            }
            return false
        }
    }

    /// Objects and arrays are walked into rather than replaced whole (a `card` object keeps its `network`
    /// key visible only if it is not sensitive itself: its members are checked one by one).
    private static func isStructural(_ value: JSONValue) -> Bool {
        switch value {
        case .object, .array: true
        default: false
        }
    }
}
