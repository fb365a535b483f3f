import Foundation
import Postgres

/// Client sessions (decision 3): minted by a SECRET key for one customer, revoked on demand.
struct SessionService: Sendable {
    let pool: PostgresPool
    let customers: CustomerStore
    let configuration: GatewayConfiguration

    /// A minted session: the token is returned once (a replay mints a fresh token for the same session).
    struct Minted: Sendable {
        var id: UUID
        var token: String
        var customer: CustomerRecord
        var expiresAt: PostgresTimestamp
        var maxOrderAmountMinor: Int64
    }

    func create(customerID: UUID, ttlSeconds: Int64, maxOrderAmountMinor: Int64?, principal: Principal) async throws -> Minted {
        guard (60...Int64(ClientSessions.maximumLifetimeSeconds)).contains(ttlSeconds) else {
            throw UserError(.validationFailed, "ttlSeconds must be 60–\(ClientSessions.maximumLifetimeSeconds)", field: ["input", "ttlSeconds"])
        }
        let cap = maxOrderAmountMinor ?? configuration.sessionMaxOrderAmountMinor
        guard cap > 0, cap <= configuration.sessionMaxOrderAmountMinor else {
            throw UserError(.amountOutOfRange, "maxOrderAmount must be 1–\(configuration.sessionMaxOrderAmountMinor) minor units",
                            field: ["input", "maxOrderAmount"])
        }
        guard let customer = try await customers.find(id: customerID) else {
            throw UserError(.notFound, "no such customer", field: ["input", "customerId"])
        }
        let token = ClientSessions.tokenPrefix + APIKeys.randomToken()
        let row = try await pool.query("""
            INSERT INTO client_sessions (api_key_id, customer_id, token_hash, max_order_amount_minor, expires_at)
            VALUES (\(principal.apiKeyID), \(customerID), \(APIKeys.hash(token)), \(cap), now() + make_interval(secs => \(ttlSeconds)))
            RETURNING id, expires_at
            """).single((UUID, PostgresTimestamp).self)
        guard let (id, expires) = row else { throw GatewayRequestError.internal("the session was not stored") }
        return Minted(id: id, token: token, customer: customer, expiresAt: expires, maxOrderAmountMinor: cap)
    }

    /// A replay of `createClientSession`: a fresh token for the same, still live, session.
    func remint(sessionID: UUID) async throws -> Minted? {
        let token = ClientSessions.tokenPrefix + APIKeys.randomToken()
        let row = try await pool.query("""
            UPDATE client_sessions SET token_hash = \(APIKeys.hash(token)) WHERE id = \(sessionID) AND revoked_at IS NULL AND expires_at > now()
            RETURNING customer_id, expires_at, max_order_amount_minor
            """).single((UUID, PostgresTimestamp, Int64).self)
        guard let (customerID, expires, cap) = row, let customer = try await customers.find(id: customerID) else { return nil }
        return Minted(id: sessionID, token: token, customer: customer, expiresAt: expires, maxOrderAmountMinor: cap)
    }

    /// Ends a session; false when there was no live one.
    func revoke(sessionID: UUID) async throws -> Bool {
        try await pool.query("UPDATE client_sessions SET revoked_at = now() WHERE id = \(sessionID) AND revoked_at IS NULL").affectedRows == 1
    }
}
