public import Foundation

/// An API key scope (the contract's `ApiScope`).
public enum ApiScope: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Apps: checkout flows of their own customer only (through a client session).
    case publishable = "PUBLISHABLE"
    /// The merchant's backend.
    case secret = "SECRET"
    /// Ops dashboards.
    case ops = "OPS"

    public static func < (lhs: ApiScope, rhs: ApiScope) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// A client session's grant: the one customer an app acts for, and its order cap.
public struct ClientSessionGrant: Sendable, Hashable {
    /// The session's row id.
    public var id: UUID
    /// The customer the session is bound to.
    public var customerID: UUID
    /// The largest order amount (minor units) the session may create.
    public var maxOrderAmountMinor: Int64
    /// When the token stops working (unix seconds).
    public var expiresAtUnix: Int64
}

/// Who is calling: the API key (and its scopes) or a client session minted by one.
public struct Principal: Sendable, Hashable {
    /// The key's id; for a session, the key that minted it.
    public var apiKeyID: UUID
    /// What the caller may do. A session has exactly `[.publishable]`.
    public var scopes: Set<ApiScope>
    /// Set for a client-session token: the customer every call is bound to.
    public var session: ClientSessionGrant?

    /// Whether any of `required` is held.
    public func holdsAny(of required: Set<ApiScope>) -> Bool { !scopes.isDisjoint(with: required) }

    /// The customer a session is bound to; nil for an API key.
    public var boundCustomerID: UUID? { session?.customerID }

    /// Whether the caller may see an object belonging to `customerID` (nil: no customer).
    /// API keys with SECRET or OPS see everything; a session only its own customer's objects;
    /// a bare PUBLISHABLE key no customer data at all (decision 3).
    public func maySee(customerID: UUID?) -> Bool {
        if scopes.contains(.secret) || scopes.contains(.ops) { return true }
        guard let bound = boundCustomerID, let customerID else { return false }
        return bound == customerID
    }

    /// The idempotency scope: keys are per API key, or per customer for client sessions.
    public var idempotencyScope: String {
        if let session { return "customer:\(session.customerID.uuidString.lowercased())" }
        return "key:\(apiKeyID.uuidString.lowercased())"
    }
}
