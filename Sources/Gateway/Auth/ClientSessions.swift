public import Foundation
import Postgres

/// Client sessions (decision 3): a SECRET key mints a short-lived bearer token
/// bound to one customer, for an app to call PayQL with. Only the token's hash is stored.
enum ClientSessions {
    /// Every session token starts with this (API keys never do).
    static let tokenPrefix = "pq_cs_"
    /// The longest a session may live.
    static let maximumLifetimeSeconds = 86_400

    /// The principal of a live session with token hash `tokenHash`, or nil.
    static func principal(tokenHash: Data, pool: PostgresPool) async throws -> Principal? {
        let row = try await pool.query("""
            SELECT s.id, s.api_key_id, s.customer_id, s.max_order_amount_minor, extract(epoch FROM s.expires_at)::bigint
            FROM client_sessions s JOIN api_keys k ON k.id = s.api_key_id
            WHERE s.token_hash = \(tokenHash) AND s.revoked_at IS NULL AND s.expires_at > now() AND k.revoked_at IS NULL
            """).single((UUID, UUID, UUID, Int64, Int64).self)
        guard let (id, keyID, customerID, cap, expires) = row else { return nil }
        return Principal(apiKeyID: keyID, scopes: [.publishable],
                         session: ClientSessionGrant(id: id, customerID: customerID, maxOrderAmountMinor: cap, expiresAtUnix: expires))
    }
}
