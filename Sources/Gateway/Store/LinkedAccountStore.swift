import Foundation
import PaymentsCore
import Postgres

/// A UPI account the Turbo SDK reported as linked (decision 4): display data only, masked.
struct LinkedAccountRecord: Sendable, Hashable {
    /// The row id (LinkedUpiAccount's global id).
    var id: UUID
    /// Nil when the mobile number belonged to no customer when it was reported (SECRET only).
    var customerID: UUID?
    /// The Turbo identity: a 10-digit national mobile number.
    var mobileNumber: String
    /// Always Razorpay today (Turbo UPI).
    var provider: ProviderName
    /// `BANK_ACCOUNT` or `CREDIT_CARD` (the contract's `UpiAccountType`).
    var kind: String
    /// `XXXXXX` and the last four digits, or nil when the SDK gave no four trailing digits.
    var maskedIdentifier: String?
    /// The bank's IFSC, upper-case.
    var ifsc: String?
    /// The bank's name.
    var bankName: String?
    /// The bank's logo, as reported.
    var bankLogoURL: String?
    /// The bank's placeholder image, as reported.
    var bankPlaceholderURL: String?
    /// The UPI PIN's length (4 or 6).
    var pinLength: Int?
    /// `SAVINGS`, `CURRENT` or `CREDIT`.
    var accountType: String?
    /// The customer's whitelisted TPV account with the same IFSC and last four digits, when one was ACTIVE at the report.
    var bankAccountID: UUID?
    /// `ACTIVE`, `INACTIVE` or `REMOVED`.
    var status: String
    /// The contract's `LinkedUpiAccountSource` of the last report.
    var source: String
    /// The first report.
    var linkedAt: PostgresTimestamp
    /// The latest report that named it.
    var lastSeenAt: PostgresTimestamp
    /// When it was removed, if it was.
    var removedAt: PostgresTimestamp?
}

/// `linked_accounts` (migration 0007), over `PostgresQuery` binds.
struct LinkedAccountStore: Sendable {
    /// The database.
    let pool: PostgresPool

    /// The columns every read selects, in ``record(_:)``'s order.
    static let columns: StaticString = """
        id, customer_id, mobile_number, provider, kind, masked_identifier, ifsc, bank_name, bank_logo_url, bank_placeholder_url, \
        pin_length, account_type, bank_account_id, status, source, linked_at, last_seen_at, removed_at
        """

    /// A row of ``columns``.
    static func record(_ row: PostgresRow) throws -> LinkedAccountRecord {
        let providerText = try row.decode(String.self, at: 3)
        guard let provider = ProviderName(rawValue: providerText) else {
            throw GatewayRequestError.internal("linked account with unknown provider \(providerText)")
        }
        return LinkedAccountRecord(
            id: try row.decode(UUID.self, at: 0), customerID: try row.decode(UUID?.self, at: 1), mobileNumber: try row.decode(String.self, at: 2),
            provider: provider, kind: try row.decode(String.self, at: 4), maskedIdentifier: try row.decode(String?.self, at: 5),
            ifsc: try row.decode(String?.self, at: 6), bankName: try row.decode(String?.self, at: 7),
            bankLogoURL: try row.decode(String?.self, at: 8), bankPlaceholderURL: try row.decode(String?.self, at: 9),
            pinLength: try row.decode(Int?.self, at: 10), accountType: try row.decode(String?.self, at: 11),
            bankAccountID: try row.decode(UUID?.self, at: 12), status: try row.decode(String.self, at: 13),
            source: try row.decode(String.self, at: 14), linkedAt: try row.decode(PostgresTimestamp.self, at: 15),
            lastSeenAt: try row.decode(PostgresTimestamp.self, at: 16), removedAt: try row.decode(PostgresTimestamp?.self, at: 17))
    }

    /// One reported account, validated and masked (``LinkedUpiAccountService``).
    struct Reported: Sendable, Hashable {
        /// `BANK_ACCOUNT` or `CREDIT_CARD`.
        var kind: String
        /// `XXXXXX` + last four, or nil.
        var maskedIdentifier: String?
        /// Upper-case IFSC.
        var ifsc: String?
        /// The bank's name.
        var bankName: String?
        /// The bank's logo URL.
        var bankLogoURL: String?
        /// The bank's placeholder image URL.
        var bankPlaceholderURL: String?
        /// 4 or 6.
        var pinLength: Int?
        /// `SAVINGS`, `CURRENT` or `CREDIT`.
        var accountType: String?
        /// The matching whitelisted TPV account.
        var bankAccountID: UUID?

        /// The bank half of the identity: the IFSC when reported, else the bank's name.
        var bankKey: String { ifsc ?? bankName?.uppercased() ?? "" }
    }

    /// The row's identity (decision 4): the owner (customer, mobile) and (masked account, bank).
    static func reference(customerID: UUID?, mobile: String, _ account: Reported) -> String {
        [customerID?.uuidString.lowercased() ?? "-", mobile, account.kind, account.maskedIdentifier ?? "-", account.bankKey].joined(separator: "|")
    }

    /// Inserts the account ACTIVE, or brings the row with the same identity back to ACTIVE with
    /// the reported details (a re-report is idempotent; `linked_at` stays the first report's).
    static func upsert(customerID: UUID?, mobile: String, provider: ProviderName, source: String, _ account: Reported,
                       on connection: PostgresConnection) async throws -> LinkedAccountRecord {
        let rows = try await connection.query("""
            INSERT INTO linked_accounts (customer_id, kind, provider, provider_reference, masked_identifier, bank_name, bank_account_id,
                                         status, mobile_number, ifsc, bank_logo_url, bank_placeholder_url, pin_length, account_type, source)
            VALUES (\(customerID), \(account.kind), \(provider.rawValue), \(reference(customerID: customerID, mobile: mobile, account)),
                    \(account.maskedIdentifier), \(account.bankName), \(account.bankAccountID), 'ACTIVE', \(mobile), \(account.ifsc),
                    \(account.bankLogoURL), \(account.bankPlaceholderURL), \(account.pinLength), \(account.accountType), \(source))
            ON CONFLICT (provider, provider_reference) DO UPDATE SET
                status = 'ACTIVE', removed_at = NULL, last_seen_at = now(), updated_at = now(), source = excluded.source,
                bank_name = coalesce(excluded.bank_name, linked_accounts.bank_name),
                bank_logo_url = coalesce(excluded.bank_logo_url, linked_accounts.bank_logo_url),
                bank_placeholder_url = coalesce(excluded.bank_placeholder_url, linked_accounts.bank_placeholder_url),
                pin_length = coalesce(excluded.pin_length, linked_accounts.pin_length),
                account_type = coalesce(excluded.account_type, linked_accounts.account_type),
                bank_account_id = excluded.bank_account_id
            RETURNING \(sql: columns)
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("a linked account upsert returned no row") }
        return try record(row)
    }

    /// After a complete list: the owner's ACTIVE accounts at `provider` that are not in `kept` become INACTIVE.
    static func markMissingInactive(customerID: UUID?, mobile: String, provider: ProviderName, kept: [UUID],
                                    on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            UPDATE linked_accounts SET status = 'INACTIVE', updated_at = now()
            WHERE mobile_number = \(mobile) AND customer_id IS NOT DISTINCT FROM \(customerID)::uuid AND provider = \(provider.rawValue)
              AND status = 'ACTIVE' AND NOT (id = ANY(\(kept.map { $0.uuidString })::uuid[]))
            """)
    }

    /// The accounts with these ids (unknown ids are absent).
    func find(ids: [UUID]) async throws -> [UUID: LinkedAccountRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM linked_accounts WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])
            """)
        return Dictionary(try rows.map(Self.record).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// One account.
    func find(id: UUID) async throws -> LinkedAccountRecord? { try await find(ids: [id])[id] }

    /// Each customer's accounts, first linked first; INACTIVE and REMOVED ones only when asked.
    func list(customerIDs: [UUID], includeInactive: Bool) async throws -> [UUID: [LinkedAccountRecord]] {
        guard !customerIDs.isEmpty else { return [:] }
        let status: PostgresQuery = includeInactive ? "" : "AND status = 'ACTIVE'"
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM linked_accounts
            WHERE customer_id = ANY(\(customerIDs.map { $0.uuidString })::uuid[]) \(status) ORDER BY linked_at, id
            """)
        var found: [UUID: [LinkedAccountRecord]] = [:]
        for record in try rows.map(Self.record) {
            if let customer = record.customerID { found[customer, default: []].append(record) }
        }
        return found
    }

    /// The accounts reported for a mobile number (of `customerID` only, when given), first linked first.
    func list(mobile: String, customerID: UUID?, includeInactive: Bool) async throws -> [LinkedAccountRecord] {
        let status: PostgresQuery = includeInactive ? "" : "AND status = 'ACTIVE'"
        let customer: PostgresQuery = customerID.map { "AND customer_id = \($0)" } ?? ""
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM linked_accounts WHERE mobile_number = \(mobile) \(customer) \(status) ORDER BY linked_at, id
            """)
        return try rows.map(Self.record)
    }

    /// Marks the account REMOVED; the updated row (unchanged when it was REMOVED already).
    func markRemoved(id: UUID) async throws -> LinkedAccountRecord? {
        let rows = try await pool.query("""
            UPDATE linked_accounts SET status = 'REMOVED', removed_at = coalesce(removed_at, now()), updated_at = now()
            WHERE id = \(id) RETURNING \(sql: Self.columns)
            """)
        return try rows.first.map(Self.record)
    }
}

extension LinkedAccountStore {
    /// The customers whose phone is this Indian mobile number (stored E.164: `+91` and the ten digits).
    func customerIDs(mobile: String) async throws -> [UUID] {
        try await pool.query("SELECT id FROM customers WHERE contact = \("+91" + mobile) ORDER BY created_at, id LIMIT 2").decode(UUID.self)
    }
}
