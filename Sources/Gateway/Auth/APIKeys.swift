import Crypto
public import Foundation
public import Postgres
import Support

/// A newly created API key: the text is shown once and never stored.
public struct CreatedAPIKey: Sendable {
    /// The key's id (for `payql keys revoke`).
    public var id: UUID
    /// The bearer token to configure in the caller. Not recoverable later.
    public var key: String
    /// Its scopes.
    public var scopes: [ApiScope]
}

/// An API key as `payql keys list` shows it (no secret: a prefix only).
public struct APIKeyInfo: Sendable {
    public var id: UUID
    public var name: String
    public var scopes: [ApiScope]
    /// The first characters of the key, to recognise it.
    public var prefix: String
    /// RFC 3339, UTC.
    public var createdAt: String
    /// RFC 3339, UTC; nil while the key works.
    public var revokedAt: String?
}

/// API keys and client-session tokens: creation, listing, revocation and
/// authentication of a bearer token.
///
/// Keys are `pq_<scope>_<43 base64url characters>` (32 random bytes); only their
/// SHA-256 is stored, so a database leak gives no usable key. Authenticated
/// principals are cached for `cacheLifetime` (bounded entries), which is also the
/// longest a revoked key keeps working on an instance that saw it.
public final class APIKeys: Sendable {
    private let pool: PostgresPool
    private let cacheLifetime: Duration
    private let maxCachedKeys: Int
    private let cache = Locked<[TokenDigest: (principal: Principal, until: ContinuousClock.Instant)]>([:])

    /// Keys stored in `pool`.
    public init(pool: PostgresPool, cacheLifetime: Duration = .seconds(5), maxCachedKeys: Int = 10_000) {
        self.pool = pool
        self.cacheLifetime = cacheLifetime
        self.maxCachedKeys = maxCachedKeys
    }

    /// Creates a key with `scopes` (at least one).
    public func create(name: String, scopes: [ApiScope]) async throws -> CreatedAPIKey {
        let unique = Array(Set(scopes)).sorted()
        guard let primary = unique.last else { throw GatewayRequestError.badInput("an API key needs at least one scope") }
        let label = switch primary { case .ops: "ops"; case .secret: "sk"; case .publishable: "pk" }
        let key = "pq_\(label)_" + Self.randomToken()
        let hash = Self.hash(key)
        let id = try await pool.query("""
            INSERT INTO api_keys (name, scopes, prefix, key_hash) VALUES (\(name), \(unique.map(\.rawValue)), \(String(key.prefix(12))), \(hash))
            RETURNING id
            """).single(UUID.self)
        guard let id else { throw GatewayRequestError.internal("the key was not stored") }
        return CreatedAPIKey(id: id, key: key, scopes: unique)
    }

    /// Every key, newest first.
    public func list() async throws -> [APIKeyInfo] {
        let rows = try await pool.query("""
            SELECT id, name, scopes, prefix, created_at, revoked_at FROM api_keys ORDER BY created_at DESC, id DESC
            """).decode((UUID, String, [String], String, PostgresTimestamp, PostgresTimestamp?).self)
        return rows.map { id, name, scopes, prefix, created, revoked in
            APIKeyInfo(id: id, name: name, scopes: scopes.compactMap(ApiScope.init(rawValue:)), prefix: prefix,
                       createdAt: created.rfc3339, revokedAt: revoked?.rfc3339)
        }
    }

    /// Revokes a key; false when no such working key exists.
    public func revoke(id: UUID) async throws -> Bool {
        let rows = try await pool.query("UPDATE api_keys SET revoked_at = now() WHERE id = \(id) AND revoked_at IS NULL")
        cache.withLock { $0.removeAll() }
        return rows.affectedRows == 1
    }

    /// The principal for `Authorization: Bearer <token>`: an API key or a client-session token.
    /// Nil when the token is unknown, revoked or expired.
    public func authenticate(_ token: String) async throws -> Principal? {
        try await authenticate(Substring(token))
    }

    /// ``authenticate(_:)-(String)`` for a token read in place from its header (see ``bearerToken(_:)``):
    /// no copy of it is made.
    public func authenticate(_ token: Substring) async throws -> Principal? {
        guard token.utf8.count <= 200, token.hasPrefix("pq_") else { return nil }
        let digest = TokenDigest(Crypto.hash(.sha256, token.utf8))
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[digest] }), cached.until > now {
            if let session = cached.principal.session, session.expiresAtUnix <= Int64(Date().timeIntervalSince1970) { return nil }
            return cached.principal
        }
        let principal: Principal?
        let hash = digest.data
        if token.hasPrefix(ClientSessions.tokenPrefix) {
            principal = try await ClientSessions.principal(tokenHash: hash, pool: pool)
        } else {
            principal = try await pool.query("SELECT id, scopes FROM api_keys WHERE key_hash = \(hash) AND revoked_at IS NULL")
                .single((UUID, [String]).self)
                .map { id, scopes in Principal(apiKeyID: id, scopes: Set(scopes.compactMap(ApiScope.init(rawValue:))), session: nil) }
        }
        guard let principal else { return nil }
        cache.withLock { entries in
            if entries.count >= maxCachedKeys { entries.removeAll(keepingCapacity: true) }
            entries[digest] = (principal, now + cacheLifetime)
        }
        return principal
    }

    /// The token of an `Authorization` header of the form `Bearer <token>` (the scheme in
    /// any case, one space), read in place; nil for any other form.
    public static func bearerToken(_ header: String) -> Substring? {
        let utf8 = header.utf8
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let scheme = utf8[..<space]
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ ASCII.lowercased($0) == $1 }) else { return nil }
        let token = header[header.index(after: space)...]
        return token.isEmpty ? nil : token
    }

    /// Forgets cached principals (after a revocation made through the API).
    func forgetCachedPrincipals() { cache.withLock { $0.removeAll() } }

    /// 32 random bytes as base64url without padding (43 characters).
    static func randomToken() -> String {
        // The CSPRNG failing is not something a caller can handle: fall back to nothing would be worse.
        let bytes = (try? Crypto.randomBytes(32)) ?? []
        precondition(bytes.count == 32, "the system's random source failed")
        return Base64URL.encode(bytes)
    }

    /// SHA-256 of a token's text.
    static func hash(_ token: String) -> Data { Data(Crypto.sha256(token)) }
}

/// A token's SHA-256 as the principal cache's key: four words held inline, so a
/// look-up hashes and compares them without a `Data` (a heap allocation per request
/// for 32 bytes) and the cache never holds a token's text.
struct TokenDigest: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest held in `bytes`, a SHA-256 (32 bytes, big-endian words; a longer
    /// input is folded into the same words, so every byte still counts).
    init(_ bytes: [UInt8]) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            switch (index / 8) % 4 {
            case 0: words.0 = words.0 &<< 8 | UInt64(byte)
            case 1: words.1 = words.1 &<< 8 | UInt64(byte)
            case 2: words.2 = words.2 &<< 8 | UInt64(byte)
            default: words.3 = words.3 &<< 8 | UInt64(byte)
            }
        }
        self.words = words
    }

    /// The 32 bytes as stored in the database (`key_hash`, `token_hash`).
    var data: Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Data(bytes)
    }

    static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
