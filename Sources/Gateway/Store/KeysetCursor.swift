import Foundation
import Postgres

/// An opaque Relay cursor over `(created_at, id)`: base64url of `k1:<microseconds>:<uuid>`.
struct KeysetCursor: Sendable, Hashable {
    var createdAt: PostgresTimestamp
    var id: UUID

    init(createdAt: PostgresTimestamp, id: UUID) {
        self.createdAt = createdAt
        self.id = id
    }

    /// Decodes a cursor PayQL made; nil for anything else.
    init?(_ text: String) {
        guard text.utf8.count <= 120 else { return nil }
        guard let bytes = Base64URL.decode(text) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":")
        guard parts.count == 3, parts[0] == "k1", let micros = Int64(parts[1]), let id = UUID(uuidString: String(parts[2])) else { return nil }
        self.init(createdAt: PostgresTimestamp(microsecondsSinceEpoch: micros), id: id)
    }

    /// The opaque text.
    var text: String {
        Base64URL.encode(Array("k1:\(createdAt.microsecondsSinceEpoch):\(id.uuidString.lowercased())".utf8))
    }
}

extension KeysetCursor {
    /// `conditions` plus the one that starts a page after `cursor` (nothing more on the first
    /// page); pair it with ``ordering(newestFirst:)``, the order the condition relies on.
    static func page(_ conditions: [PostgresQuery], after cursor: KeysetCursor?, newestFirst: Bool) -> [PostgresQuery] {
        guard let cursor else { return conditions }
        return conditions + [newestFirst ? "(created_at, id) < (\(cursor.createdAt), \(cursor.id))"
                                         : "(created_at, id) > (\(cursor.createdAt), \(cursor.id))"]
    }

    /// `ORDER BY created_at, id` in the page's direction.
    static func ordering(newestFirst: Bool) -> PostgresQuery {
        newestFirst ? "ORDER BY created_at DESC, id DESC" : "ORDER BY created_at ASC, id ASC"
    }
}

/// `first`/`after` of a connection field, checked: `first` in 0…100 (default 20).
struct PageRequest: Sendable {
    var first: Int
    var after: KeysetCursor?
    var newestFirst: Bool

    static let maximum = 100

    init(first: Int64?, after: String?, order: String?) throws(GatewayRequestError) {
        let requested = first ?? 20
        guard requested >= 0, requested <= Int64(Self.maximum) else {
            throw .badInput("first must be between 0 and \(Self.maximum), got \(requested)")
        }
        self.first = Int(requested)
        if let after {
            guard let cursor = KeysetCursor(after) else { throw .badInput("after is not a cursor this server issued") }
            self.after = cursor
        }
        newestFirst = order != "OLDEST_FIRST"
    }
}
