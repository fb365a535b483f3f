/// Input rules shared by the services. Each returns a ``UserError`` naming the input field.
enum Validation {
    /// The longest free text PayQL stores from a client (names, descriptions).
    static let maxTextLength = 255
    /// Razorpay allows 15 notes of at most 256 characters; PayQL applies that to every provider.
    static let maxNotes = 15
    static let maxNoteValueLength = 256
    static let maxNoteKeyLength = 40

    static func text(_ value: String?, field: [String], max: Int = maxTextLength) throws(UserError) -> String? {
        guard let value else { return nil }
        guard value.count <= max else { throw UserError(.validationFailed, "\(field.last ?? "value") must be at most \(max) characters", field: field) }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
            throw UserError(.validationFailed, "\(field.last ?? "value") must not contain control characters", field: field)
        }
        return value
    }

    /// A plausible e-mail address: one `@`, a dot in the domain, no spaces, at most 254 characters.
    static func email(_ value: String?, field: [String]) throws(UserError) -> String? {
        guard let value else { return nil }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard value.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !parts[1].hasSuffix("."), !value.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw UserError(.invalidEmail, "\(value.prefix(60)) is not an e-mail address", field: field)
        }
        return value
    }

    /// An Indian GSTIN: 2 digits then 13 upper-case letters or digits.
    static func gstin(_ value: String?, field: [String]) throws(UserError) -> String? {
        guard let value else { return nil }
        let bytes = Array(value.utf8)
        guard bytes.count == 15, bytes.prefix(2).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              bytes.dropFirst(2).allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }) else {
            throw UserError(.invalidGSTIN, "gstin must be 2 digits followed by 13 upper-case letters or digits", field: field)
        }
        return value
    }

    /// Notes: at most 15, keys 1–40 characters, values at most 256.
    static func notes(_ pairs: [(key: String, value: String)]?, field: [String]) throws(UserError) -> Notes? {
        guard let pairs else { return nil }
        guard pairs.count <= maxNotes else { throw UserError(.tooManyNotes, "at most \(maxNotes) notes are allowed, got \(pairs.count)", field: field) }
        for pair in pairs {
            guard (1...maxNoteKeyLength).contains(pair.key.count) else {
                throw UserError(.validationFailed, "a note key must be 1–\(maxNoteKeyLength) characters", field: field)
            }
            guard pair.value.count <= maxNoteValueLength else {
                throw UserError(.validationFailed, "a note value must be at most \(maxNoteValueLength) characters", field: field)
            }
            _ = try text(pair.key, field: field, max: maxNoteKeyLength)
            _ = try text(pair.value, field: field, max: maxNoteValueLength)
        }
        return Notes(pairs)
    }

    /// A merchant reference: 3–40 of `[A-Za-z0-9_-]` (every provider accepts it).
    static func receipt(_ value: String, field: [String]) throws(UserError) -> String {
        let bytes = Array(value.utf8)
        guard (3...40).contains(bytes.count), bytes.allSatisfy({
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
        }) else {
            throw UserError(.validationFailed, "receipt must be 3–40 letters, digits, '_' or '-'", field: field)
        }
        return value
    }
}
