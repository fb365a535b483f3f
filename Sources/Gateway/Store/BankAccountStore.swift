import Foundation
import PaymentsCore
import Postgres

/// A stored TPV bank account. The account number is only here sealed (``DataKeyring``);
/// ``last4`` and the mask are all that is ever shown.
struct BankAccountRecord: Sendable, Hashable {
    var id: UUID
    var customerID: UUID
    /// The IFSC the merchant sent (identity for de-duplication and TPV orders).
    var ifsc: String
    /// The IFSC the provider confirmed, when it answered one.
    var providerIFSC: String?
    var beneficiaryName: String
    var beneficiaryEmail: String?
    var beneficiaryMobile: String?
    var bankName: String?
    /// `ACTIVE` or `REMOVED`.
    var status: String
    var last4: String
    /// `0x01 ‖ key id ‖ nonce ‖ ciphertext ‖ tag` (see ``DataKeyring``).
    var sealedAccountNumber: [UInt8]
    var keyID: String
    /// Ids at providers (Razorpay `ba_…`).
    var providerRefs: [(provider: ProviderName, id: String)]
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
    var removedAt: PostgresTimestamp?

    /// What every response shows instead of the number: six X and the last four.
    var maskedAccountNumber: String { "XXXXXX" + last4 }

    /// The sealing purpose of this row's account number (bound into the AES-GCM associated data).
    static func purpose(id: UUID) -> String { "bank_accounts.account_number/\(id.uuidString.lowercased())" }

    /// The same row in the same version (the tuple of provider refs is not Equatable).
    static func == (lhs: BankAccountRecord, rhs: BankAccountRecord) -> Bool { lhs.id == rhs.id && lhs.updatedAt == rhs.updatedAt }
    /// By row id.
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// TPV bank accounts and their provider ids, over `PostgresQuery` binds.
struct BankAccountStore: Sendable {
    let pool: PostgresPool

    /// The columns every read selects, in ``record(_:)``'s order.
    static let columns: StaticString = """
        id, customer_id, ifsc, provider_ifsc, account_holder_name, beneficiary_email, beneficiary_mobile, bank_name, status, last4, \
        account_ciphertext, account_key_id, created_at, updated_at, removed_at
        """

    /// A row of ``columns`` (provider refs empty: see `withRefs`).
    static func record(_ row: PostgresRow) throws -> BankAccountRecord {
        BankAccountRecord(
            id: try row.decode(UUID.self, at: 0), customerID: try row.decode(UUID.self, at: 1),
            ifsc: try row.decode(String.self, at: 2), providerIFSC: try row.decode(String?.self, at: 3),
            beneficiaryName: try row.decode(String?.self, at: 4) ?? "", beneficiaryEmail: try row.decode(String?.self, at: 5),
            beneficiaryMobile: try row.decode(String?.self, at: 6), bankName: try row.decode(String?.self, at: 7),
            status: try row.decode(String.self, at: 8), last4: try row.decode(String.self, at: 9),
            sealedAccountNumber: Array(try row.decode(Data.self, at: 10)), keyID: try row.decode(String.self, at: 11), providerRefs: [],
            createdAt: try row.decode(PostgresTimestamp.self, at: 12), updatedAt: try row.decode(PostgresTimestamp.self, at: 13),
            removedAt: try row.decode(PostgresTimestamp?.self, at: 14))
    }

    /// What ``insert(_:on:)`` stores.
    struct NewAccount: Sendable {
        var id: UUID
        var customerID: UUID
        var ifsc: String
        var beneficiaryName: String
        var beneficiaryEmail: String?
        var beneficiaryMobile: String?
        var last4: String
        var sealed: [UInt8]
        var keyID: String
        var blindIndex: [UInt8]
    }

    /// Inserts an ACTIVE account; nil when the customer already has this ACTIVE account
    /// (`bank_accounts_active_idx`): then a concurrent insert of the same account waits for
    /// this transaction and finds the row instead.
    static func insert(_ account: NewAccount, on connection: PostgresConnection) async throws -> BankAccountRecord? {
        let rows = try await connection.query("""
            INSERT INTO bank_accounts (id, customer_id, ifsc, account_holder_name, beneficiary_email, beneficiary_mobile, status, last4,
                                       account_ciphertext, account_key_id, account_blind_index)
            VALUES (\(account.id), \(account.customerID), \(account.ifsc), \(account.beneficiaryName), \(account.beneficiaryEmail),
                    \(account.beneficiaryMobile), 'ACTIVE', \(account.last4), \(Data(account.sealed)), \(account.keyID), \(Data(account.blindIndex)))
            ON CONFLICT (customer_id, account_blind_index, ifsc) WHERE status = 'ACTIVE' DO NOTHING
            RETURNING \(sql: columns)
            """)
        return try rows.first.map(record)
    }

    /// Records what the provider answered: its id, the IFSC and bank name it confirmed.
    static func recordProvider(accountID: UUID, provider: ProviderName, providerAccountID: String, confirmedIFSC: String?, bankName: String?,
                               on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            INSERT INTO bank_account_provider_refs (bank_account_id, provider, provider_bank_account_id)
            VALUES (\(accountID), \(provider.rawValue), \(providerAccountID))
            ON CONFLICT (bank_account_id, provider) DO UPDATE SET provider_bank_account_id = excluded.provider_bank_account_id
            """)
        _ = try await connection.query("""
            UPDATE bank_accounts SET provider_ifsc = \(confirmedIFSC), bank_name = coalesce(\(bankName), bank_name), updated_at = now()
            WHERE id = \(accountID)
            """)
    }

    /// The customer's ACTIVE account with one of these blind indexes (one per data key) and IFSC.
    func findActive(customerID: UUID, blindIndexes: [[UInt8]], ifsc: String) async throws -> BankAccountRecord? {
        var conditions: [PostgresQuery] = []
        for index in blindIndexes { conditions.append("account_blind_index = \(Data(index))") }
        guard var any = conditions.first else { return nil }
        for condition in conditions.dropFirst() { any = "\(any) OR \(condition)" }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM bank_accounts
            WHERE customer_id = \(customerID) AND ifsc = \(ifsc) AND status = 'ACTIVE' AND (\(any))
            ORDER BY created_at LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        return try await withRefs([try Self.record(row)]).first
    }

    /// The accounts with these ids (unknown ids are absent).
    func find(ids: [UUID]) async throws -> [UUID: BankAccountRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM bank_accounts WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])
            """)
        let records = try await withRefs(try rows.map(Self.record))
        return Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// One account.
    func find(id: UUID) async throws -> BankAccountRecord? { try await find(ids: [id])[id] }

    /// Each customer's accounts, oldest first; REMOVED ones only when asked.
    func list(customerIDs: [UUID], includeRemoved: Bool) async throws -> [UUID: [BankAccountRecord]] {
        guard !customerIDs.isEmpty else { return [:] }
        let status: PostgresQuery = includeRemoved ? "" : "AND status = 'ACTIVE'"
        let rows = try await pool.query("""
            SELECT \(sql: Self.columns) FROM bank_accounts
            WHERE customer_id = ANY(\(customerIDs.map { $0.uuidString })::uuid[]) \(status) ORDER BY created_at, id
            """)
        var found: [UUID: [BankAccountRecord]] = [:]
        for record in try await withRefs(try rows.map(Self.record)) { found[record.customerID, default: []].append(record) }
        return found
    }

    /// Marks the account REMOVED (kept for the orders that name it); the updated row.
    func markRemoved(id: UUID) async throws -> BankAccountRecord? {
        let rows = try await pool.query("""
            UPDATE bank_accounts SET status = 'REMOVED', removed_at = coalesce(removed_at, now()), updated_at = now()
            WHERE id = \(id) RETURNING \(sql: Self.columns)
            """)
        guard let row = rows.first else { return nil }
        return try await withRefs([try Self.record(row)]).first
    }

    /// The records with their provider ids filled in (one query for all).
    private func withRefs(_ records: [BankAccountRecord]) async throws -> [BankAccountRecord] {
        guard !records.isEmpty else { return records }
        let rows = try await pool.query("""
            SELECT bank_account_id, provider, provider_bank_account_id FROM bank_account_provider_refs
            WHERE bank_account_id = ANY(\(records.map { $0.id.uuidString })::uuid[]) ORDER BY provider
            """).decode((UUID, String, String).self)
        var refs: [UUID: [(provider: ProviderName, id: String)]] = [:]
        for (account, provider, id) in rows {
            guard let name = ProviderName(rawValue: provider) else { continue }
            refs[account, default: []].append((name, id))
        }
        return records.map { record in
            var copy = record
            copy.providerRefs = refs[record.id] ?? []
            return copy
        }
    }
}
