import JSON

/// Redacts personal and account data from webhook payloads before they are stored
/// for ops (`webhookEvents.payload`): values under keys that name contact details,
/// account numbers, VPAs or card data become `"[redacted]"`.
enum WebhookRedaction {
    /// Lower-cased key fragments whose values are redacted.
    static let sensitiveFragments = ["email", "contact", "phone", "mobile", "vpa", "account_number", "accountnumber",
                                     "card", "upi_id", "bank_account", "ifsc", "name", "address", "token"]

    static func redact(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        guard depth < 64 else { return .string("[redacted]") }
        switch value {
        case .object(let object):
            var out = JSONObject(capacity: object.count)
            for (key, member) in object.members {
                let lower = key.lowercased()
                if sensitiveFragments.contains(where: lower.contains), !isStructural(member) {
                    out.append(key, member.isNull ? .null : .string("[redacted]"))
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

    /// Objects and arrays are walked into rather than replaced whole (a `card` object keeps its `network`
    /// key visible only if it is not sensitive itself: its members are checked one by one).
    private static func isStructural(_ value: JSONValue) -> Bool {
        switch value {
        case .object, .array: true
        default: false
        }
    }
}
