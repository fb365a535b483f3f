import Foundation
import JSON
import PaymentsCore
import Postgres

/// A row of `bill_pay_links`.
struct BillPayLinkRecord: Sendable, Hashable {
    var id: UUID
    var customerID: UUID?
    var mobileNumber: String
    /// `HOME`, `CATEGORY`, `BILL_FETCH_FORM` or `BILL`.
    var scenario: String
    var category: String?
    var billerID: String?
    var billParameters: [BillParameter]
    var additionalInfo: [BillParameter]
    /// `TRANSACTIONS` or `DISPUTES`.
    var redirectTo: String?
    var link: String
    var shortLink: String?
    var sessionID: String?
    var traceID: String?
    var expiresAt: PostgresTimestamp
    var createdAt: PostgresTimestamp

    /// A name/value pair (`billParams`, `additionalInfo`).
    struct BillParameter: Sendable, Hashable {
        var name: String
        var value: String
    }
}

/// A row of `bill_payments`.
struct BillPaymentRecord: Sendable, Hashable {
    var id: UUID
    var setuOrderID: String
    var billPayLinkID: UUID?
    var customerID: UUID?
    var customerMobileNumber: String
    var setuCustomerID: String?
    var amount: Amount
    /// Setu `paymentMode` values (`INTERNET BANKING`, …); empty = any.
    var allowedModes: [String]
    var allowedModesRaw: String?
    var unrecognisedModes: [String]
    var postPaymentURL: String
    var deprecatedFields: [String]
    var status: String
    var orderID: UUID?
    var paymentMode: String?
    var billerID: String?
    var billerName: String?
    var billerCategory: String?
    /// `billDetails[]` as Setu sent them (jsonb text).
    var billsJSON: String
    var setuTransactionID: String?
    var flaggedReason: String?
    var flaggedAt: PostgresTimestamp?
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
}

/// A row of `bill_payment_confirmations`: the payment-event owed to Setu.
struct BillConfirmationRecord: Sendable, Hashable {
    var billPaymentID: UUID
    /// `PENDING`, `SENDING`, `ACKNOWLEDGED`, `FAILED`, `REFUSED`.
    var status: String
    /// `SUCCESS` or `FAILURE`.
    var outcome: String
    var transactionID: String
    var paymentID: UUID?
    /// A Setu `paymentMode` value.
    var paymentMode: String
    var paidAt: PostgresTimestamp
    var amount: Amount
    var failureCode: String?
    var failureMessage: String?
    var bankReference: String?
    var generation: Int
    var attempts: Int
    var lastAttemptAt: PostgresTimestamp?
    var lastError: String?
    var acknowledgedAt: PostgresTimestamp?
    var giveUpAt: PostgresTimestamp
}

/// SQL for Setu bill pay: links, bill payments and their confirmations. Every statement that
/// changes what a client sees of a bill payment also runs `pg_notify('payql_events', 'BillPayment:<id>')`
/// in the same transaction (``notify(_:on:)``).
struct BillPayStore: Sendable {
    let pool: PostgresPool

    // MARK: Rows

    static let linkColumns: StaticString = """
        id, customer_id, mobile_number, scenario, category, biller_id, bill_parameters, additional_info, redirect_to, link, \
        short_link, session_id, trace_id, expires_at, created_at
        """

    static func link(_ row: PostgresRow) throws -> BillPayLinkRecord {
        BillPayLinkRecord(
            id: try row.decode(UUID.self, at: 0), customerID: try row.decode(UUID?.self, at: 1), mobileNumber: try row.decode(String.self, at: 2),
            scenario: try row.decode(String.self, at: 3), category: try row.decode(String?.self, at: 4), billerID: try row.decode(String?.self, at: 5),
            billParameters: pairs(try row.decode(PostgresJSONB.self, at: 6)), additionalInfo: pairs(try row.decode(PostgresJSONB.self, at: 7)),
            redirectTo: try row.decode(String?.self, at: 8), link: try row.decode(String.self, at: 9), shortLink: try row.decode(String?.self, at: 10),
            sessionID: try row.decode(String?.self, at: 11), traceID: try row.decode(String?.self, at: 12),
            expiresAt: try row.decode(PostgresTimestamp.self, at: 13), createdAt: try row.decode(PostgresTimestamp.self, at: 14))
    }

    static let paymentColumns: StaticString = """
        id, setu_order_id, bill_pay_link_id, customer_id, customer_mobile_number, setu_customer_id, amount_minor, allowed_modes, \
        allowed_modes_raw, unrecognised_modes, post_payment_url, deprecated_fields, status, order_id, payment_mode, biller_id, \
        biller_name, biller_category, bills, setu_transaction_id, flagged_reason, flagged_at, created_at, updated_at
        """

    static func payment(_ row: PostgresRow) throws -> BillPaymentRecord {
        BillPaymentRecord(
            id: try row.decode(UUID.self, at: 0), setuOrderID: try row.decode(String.self, at: 1), billPayLinkID: try row.decode(UUID?.self, at: 2),
            customerID: try row.decode(UUID?.self, at: 3), customerMobileNumber: try row.decode(String.self, at: 4),
            setuCustomerID: try row.decode(String?.self, at: 5), amount: Amount(minorUnits: try row.decode(Int64.self, at: 6), currency: .inr),
            allowedModes: try row.decode([String].self, at: 7), allowedModesRaw: try row.decode(String?.self, at: 8),
            unrecognisedModes: try row.decode([String].self, at: 9), postPaymentURL: try row.decode(String.self, at: 10),
            deprecatedFields: try row.decode([String].self, at: 11), status: try row.decode(String.self, at: 12),
            orderID: try row.decode(UUID?.self, at: 13), paymentMode: try row.decode(String?.self, at: 14),
            billerID: try row.decode(String?.self, at: 15), billerName: try row.decode(String?.self, at: 16),
            billerCategory: try row.decode(String?.self, at: 17), billsJSON: try row.decode(PostgresJSONB.self, at: 18).text,
            setuTransactionID: try row.decode(String?.self, at: 19), flaggedReason: try row.decode(String?.self, at: 20),
            flaggedAt: try row.decode(PostgresTimestamp?.self, at: 21), createdAt: try row.decode(PostgresTimestamp.self, at: 22),
            updatedAt: try row.decode(PostgresTimestamp.self, at: 23))
    }

    static let confirmationColumns: StaticString = """
        bill_payment_id, status, outcome, transaction_id, payment_id, payment_mode, paid_at, amount_minor, failure_code, \
        failure_message, bank_reference, generation, attempts, last_attempt_at, last_error, acknowledged_at, give_up_at
        """

    static func confirmation(_ row: PostgresRow) throws -> BillConfirmationRecord {
        BillConfirmationRecord(
            billPaymentID: try row.decode(UUID.self, at: 0), status: try row.decode(String.self, at: 1), outcome: try row.decode(String.self, at: 2),
            transactionID: try row.decode(String.self, at: 3), paymentID: try row.decode(UUID?.self, at: 4),
            paymentMode: try row.decode(String.self, at: 5), paidAt: try row.decode(PostgresTimestamp.self, at: 6),
            amount: Amount(minorUnits: try row.decode(Int64.self, at: 7), currency: .inr), failureCode: try row.decode(String?.self, at: 8),
            failureMessage: try row.decode(String?.self, at: 9), bankReference: try row.decode(String?.self, at: 10),
            generation: Int(try row.decode(Int32.self, at: 11)), attempts: Int(try row.decode(Int32.self, at: 12)),
            lastAttemptAt: try row.decode(PostgresTimestamp?.self, at: 13), lastError: try row.decode(String?.self, at: 14),
            acknowledgedAt: try row.decode(PostgresTimestamp?.self, at: 15), giveUpAt: try row.decode(PostgresTimestamp.self, at: 16))
    }

    /// `[{"name","value"}]` jsonb → pairs (anything else reads as none).
    static func pairs(_ json: PostgresJSONB) -> [BillPayLinkRecord.BillParameter] {
        guard let parsed = try? JSONParser.parse(Array(json.text.utf8)), let items = parsed.arrayValue else { return [] }
        return items.compactMap { item in
            guard let name = item["name"]?.stringValue, let value = item["value"]?.stringValue else { return nil }
            return BillPayLinkRecord.BillParameter(name: name, value: value)
        }
    }

    /// Pairs → `[{"name","value"}]` jsonb.
    static func jsonb(_ pairs: [BillPayLinkRecord.BillParameter]) -> PostgresJSONB {
        PostgresJSONB(text: JSONWriter.string(.array(pairs.map { .object(["name": .string($0.name), "value": .string($0.value)]) })))
    }

    /// Tells live subscribers the bill payment changed (delivered at commit, so once per committed change).
    static func notify(_ billPaymentID: UUID, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_notify('payql_events', 'BillPayment:' || \(billPaymentID)::text)")
    }

    // MARK: Links

    /// A link as `createBillPayLink` stores it (after Setu answered).
    struct NewLink: Sendable {
        var customerID: UUID?
        var mobileNumber: String
        var scenario: String
        var category: String?
        var billerID: String?
        var billParameters: [BillPayLinkRecord.BillParameter]
        var additionalInfo: [BillPayLinkRecord.BillParameter]
        var redirectTo: String?
        var link: String
        var shortLink: String?
        var sessionID: String?
        var traceID: String?
        var apiKeyID: UUID
        var clientSessionID: UUID?
        var lifetimeSeconds: Int64
    }

    func insertLink(_ new: NewLink) async throws -> BillPayLinkRecord {
        let rows = try await pool.query("""
            INSERT INTO bill_pay_links (customer_id, mobile_number, scenario, category, biller_id, bill_parameters, additional_info,
                redirect_to, link, short_link, session_id, trace_id, api_key_id, client_session_id, expires_at)
            VALUES (\(new.customerID), \(new.mobileNumber), \(new.scenario), \(new.category), \(new.billerID), \(Self.jsonb(new.billParameters)),
                \(Self.jsonb(new.additionalInfo)), \(new.redirectTo), \(new.link), \(new.shortLink), \(new.sessionID), \(new.traceID),
                \(new.apiKeyID), \(new.clientSessionID), now() + make_interval(secs => \(Double(new.lifetimeSeconds))))
            RETURNING \(sql: Self.linkColumns)
            """)
        guard let row = rows.first else { throw GatewayRequestError.internal("the link insert returned nothing") }
        return try Self.link(row)
    }

    func links(ids: [UUID]) async throws -> [UUID: BillPayLinkRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.linkColumns) FROM bill_pay_links WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])")
        return Dictionary(try rows.map(Self.link).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the link has expired, by the database clock.
    func isExpired(linkID: UUID) async throws -> Bool {
        try await pool.query("SELECT expires_at <= now() FROM bill_pay_links WHERE id = \(linkID)").single(Bool.self) ?? true
    }

    // MARK: Bill payments

    func payments(ids: [UUID]) async throws -> [UUID: BillPaymentRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.paymentColumns) FROM bill_payments WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])")
        return Dictionary(try rows.map(Self.payment).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func payment(setuOrderID: String) async throws -> BillPaymentRecord? {
        try await pool.query("SELECT \(sql: Self.paymentColumns) FROM bill_payments WHERE setu_order_id = \(setuOrderID)").first.map(Self.payment)
    }

    /// Bill payments of these orders (at most one each).
    func payments(orderIDs: [UUID]) async throws -> [UUID: BillPaymentRecord] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.paymentColumns) FROM bill_payments WHERE order_id = ANY(\(orderIDs.map { $0.uuidString })::uuid[])")
        var found: [UUID: BillPaymentRecord] = [:]
        for record in try rows.map(Self.payment) { if let orderID = record.orderID { found[orderID] = record } }
        return found
    }

    /// Bill payments started from these links, oldest first.
    func payments(linkIDs: [UUID]) async throws -> [UUID: [BillPaymentRecord]] {
        guard !linkIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.paymentColumns) FROM bill_payments WHERE bill_pay_link_id = ANY(\(linkIDs.map { $0.uuidString })::uuid[]) ORDER BY created_at, id
            """)
        var found: [UUID: [BillPaymentRecord]] = [:]
        for record in try rows.map(Self.payment) { if let linkID = record.billPayLinkID { found[linkID, default: []].append(record) } }
        return found
    }

    /// A bill payment as `startBillPayment` first writes it (no order yet).
    struct NewPayment: Sendable {
        var setuOrderID: String
        var linkID: UUID?
        var customerID: UUID?
        var mobileNumber: String
        var setuCustomerID: String?
        var amountMinor: Int64
        var allowedModes: [String]
        var allowedModesRaw: String?
        var unrecognisedModes: [String]
        var postPaymentURL: String
        var deprecatedFields: [String]
        var paymentMode: String?
        var initiatePayment: PostgresJSONB
    }

    /// Inserts the bill payment; nil when one exists for the Setu order id already.
    func insertPayment(_ new: NewPayment) async throws -> BillPaymentRecord? {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                INSERT INTO bill_payments (setu_order_id, bill_pay_link_id, customer_id, customer_mobile_number, setu_customer_id, amount_minor,
                    allowed_modes, allowed_modes_raw, unrecognised_modes, post_payment_url, deprecated_fields, payment_mode, initiate_payment)
                VALUES (\(new.setuOrderID), \(new.linkID), \(new.customerID), \(new.mobileNumber), \(new.setuCustomerID), \(new.amountMinor),
                    \(new.allowedModes), \(new.allowedModesRaw), \(new.unrecognisedModes), \(new.postPaymentURL), \(new.deprecatedFields),
                    \(new.paymentMode), \(new.initiatePayment))
                ON CONFLICT (setu_order_id) DO NOTHING
                RETURNING \(sql: Self.paymentColumns)
                """)
            guard let row = rows.first else { return nil }
            let record = try Self.payment(row)
            try await Self.notify(record.id, on: connection)
            return record
        }
    }

    /// Links the order that collects the money: AWAITING_PAYMENT.
    func attachOrder(billPaymentID: UUID, orderID: UUID) async throws -> BillPaymentRecord? {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE bill_payments SET order_id = \(orderID), status = 'AWAITING_PAYMENT', updated_at = now()
                WHERE id = \(billPaymentID) AND order_id IS NULL RETURNING \(sql: Self.paymentColumns)
                """)
            guard let row = rows.first else { return nil }
            try await Self.notify(billPaymentID, on: connection)
            return try Self.payment(row)
        }
    }

    /// Removes a bill payment whose order could not be created (so the app's retry starts afresh).
    func deleteWithoutOrder(billPaymentID: UUID) async throws {
        _ = try await pool.query("DELETE FROM bill_payments WHERE id = \(billPaymentID) AND order_id IS NULL")
    }

    /// The contract's `BillPaymentFilter`, decoded.
    struct Filter: Sendable {
        var statuses: [String] = []
        var setuOrderID: String?
        var customerID: UUID?
        var confirmationStatuses: [String] = []
        var createdAfter: String?
        var createdBefore: String?
    }

    func list(filter: Filter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [BillPaymentRecord] {
        var conditions: [PostgresQuery] = []
        if !filter.statuses.isEmpty { conditions.append("status = ANY(\(filter.statuses))") }
        if let setuOrderID = filter.setuOrderID { conditions.append("setu_order_id = \(setuOrderID)") }
        if let customerID = filter.customerID { conditions.append("customer_id = \(customerID)") }
        if !filter.confirmationStatuses.isEmpty {
            conditions.append("id IN (SELECT bill_payment_id FROM bill_payment_confirmations WHERE status = ANY(\(filter.confirmationStatuses)))")
        }
        if let after = filter.createdAfter { conditions.append("created_at >= \(after)::timestamptz") }
        if let before = filter.createdBefore { conditions.append("created_at < \(before)::timestamptz") }
        conditions = KeysetCursor.page(conditions, after: cursor, newestFirst: newestFirst)
        let order = KeysetCursor.ordering(newestFirst: newestFirst)
        let rows = try await pool.query("""
            SELECT \(sql: Self.paymentColumns) FROM bill_payments \(SQLPattern.whereClause(conditions)) \(order) LIMIT \(Int64(limit + 1))
            """)
        return try rows.map(Self.payment)
    }

    // MARK: Confirmations

    func confirmations(billPaymentIDs: [UUID]) async throws -> [UUID: BillConfirmationRecord] {
        guard !billPaymentIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.confirmationColumns) FROM bill_payment_confirmations WHERE bill_payment_id = ANY(\(billPaymentIDs.map { $0.uuidString })::uuid[])
            """)
        return Dictionary(try rows.map(Self.confirmation).map { ($0.billPaymentID, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
