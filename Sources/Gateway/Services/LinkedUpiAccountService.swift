import Foundation
import PaymentsCore
import Postgres

/// Linked UPI accounts (flow F7, decision 4): what the Turbo SDK reported, kept per customer and
/// mobile number, display only. Razorpay has no server API for them, so nothing here is verified.
///
/// Only a mask leaves the input: `XXXXXX` and the last four digits of whatever the SDK sent
/// (already masked by the SDK, or not); every other digit — of a bank account or a RuPay credit
/// card — is dropped before anything is stored or answered.
struct LinkedUpiAccountService: Sendable {
    /// `linked_accounts`.
    let store: LinkedAccountStore
    /// Customers (the owner of a report).
    let customers: CustomerStore
    /// Orders (a TPV_LINK report's order).
    let orders: OrderStore
    /// Whitelisted TPV accounts (matched by IFSC and last four).
    let bankAccounts: BankAccountStore

    /// At most this many accounts per report (the SDK links one at a time; lists are short).
    static let maxAccounts = 50

    /// `LinkedUpiAccountInput`, decoded (not yet validated).
    struct AccountInput: Sendable {
        /// As the SDK returned it (masked, or not); only its last four digits are kept.
        var accountNumber: String?
        /// `BANK_ACCOUNT` or `CREDIT_CARD`.
        var type: String?
        /// The bank's IFSC.
        var ifsc: String?
        /// The bank's name.
        var bankName: String?
        /// `UpiBank.logo`.
        var bankLogoURL: String?
        /// `UpiBank.bankPlaceholderUrl`.
        var bankPlaceholderURL: String?
        /// The UPI PIN's length (4 or 6).
        var pinLength: Int64?
        /// `SAVINGS`, `CURRENT` or `CREDIT`.
        var accountType: String?
    }

    /// `syncLinkedUpiAccounts`' input, decoded.
    struct SyncRequest: Sendable {
        /// The Turbo identity the SDK used.
        var mobileNumber: String
        /// The customer (a session's own when absent).
        var customerID: UUID?
        /// The `LinkedUpiAccountSource`.
        var source: String
        /// The accounts as reported.
        var accounts: [AccountInput]
        /// Whether `accounts` is everything the SDK returned.
        var isCompleteList: Bool
        /// TPV_LINK by order: the order.
        var orderID: UUID?
    }

    // MARK: Validation (pure)

    /// `XXXXXX` and the last four characters when they are digits; nil otherwise. Whatever came
    /// before the last four (a BIN, a full number, the SDK's own mask) is not kept.
    static func mask(_ reported: String?) -> String? {
        guard let reported else { return nil }
        let trimmed = reported.trimmingCharacters(in: .whitespaces)
        let last4 = trimmed.utf8.suffix(4)
        guard last4.count == 4, last4.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return "XXXXXX" + String(decoding: last4, as: UTF8.self)
    }

    /// One account checked and reduced to what is kept; `index` names it in errors.
    static func validate(_ input: AccountInput, index: Int) throws(UserError) -> LinkedAccountStore.Reported {
        let path = ["input", "accounts", String(index)]
        guard let kind = input.type, ["BANK_ACCOUNT", "CREDIT_CARD"].contains(kind) else {
            throw UserError(.validationFailed, "type must be BANK_ACCOUNT or CREDIT_CARD", field: path + ["type"])
        }
        if let number = input.accountNumber {
            // The SDK's masks are X/x/* and digits (spaces and dashes between groups); anything else is not an account number.
            let allowed = number.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || [0x58, 0x78, 0x2A, 0x20, 0x2D].contains($0) }
            guard number.utf8.count <= 40, allowed else {
                throw UserError(.invalidAccountNumber, "accountNumber must be the SDK's masked number (digits and X)", field: path + ["accountNumber"])
            }
        }
        let masked = mask(input.accountNumber)
        if kind == "BANK_ACCOUNT", masked == nil {
            throw UserError(input.accountNumber == nil ? .required : .invalidAccountNumber,
                            "a BANK_ACCOUNT needs accountNumber ending in its last four digits", field: path + ["accountNumber"])
        }
        let ifsc = input.ifsc.map { $0.uppercased() }
        if let ifsc, !BankAccountService.isIFSC(ifsc) {
            throw UserError(.invalidIFSC, "ifsc must be 4 letters, 0, then 6 letters or digits (e.g. HDFC0000053)", field: path + ["ifsc"])
        }
        let bankName = try Validation.text(input.bankName, field: path + ["bankName"], max: 100)
        if kind == "BANK_ACCOUNT", ifsc == nil, bankName == nil {
            throw UserError(.required, "a BANK_ACCOUNT needs ifsc or bankName (its bank is part of its identity)", field: path + ["ifsc"])
        }
        for (name, url) in [("bankLogoUrl", input.bankLogoURL), ("bankPlaceholderUrl", input.bankPlaceholderURL)] {
            guard let url else { continue }
            guard url.utf8.count <= 2048, url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw UserError(.validationFailed, "\(name) must be an http(s) URL of at most 2048 characters", field: path + [name])
            }
        }
        if let pin = input.pinLength, pin != 4, pin != 6 {
            throw UserError(.validationFailed, "pinLength must be 4 or 6", field: path + ["pinLength"])
        }
        if let type = input.accountType, !["SAVINGS", "CURRENT", "CREDIT"].contains(type) {
            throw UserError(.validationFailed, "accountType must be SAVINGS, CURRENT or CREDIT", field: path + ["accountType"])
        }
        return LinkedAccountStore.Reported(
            kind: kind, maskedIdentifier: masked, ifsc: ifsc, bankName: bankName, bankLogoURL: input.bankLogoURL,
            bankPlaceholderURL: input.bankPlaceholderURL, pinLength: input.pinLength.map(Int.init), accountType: input.accountType)
    }

    // MARK: Sync / remove / list

    /// Records a report: every account upserted ACTIVE (same identity → same row), and after a
    /// complete list the owner's other ACTIVE accounts INACTIVE — one transaction. Any invalid
    /// account refuses the whole report before anything is written.
    func sync(_ request: SyncRequest, context: GatewayRequestContext) async throws -> [LinkedAccountRecord] {
        let sources = ["LINK_NEW_ACCOUNT", "GET_LINKED_ACCOUNTS", "MANAGE_ACCOUNTS", "TPV_LINK"]
        guard sources.contains(request.source) else {
            throw UserError(.validationFailed, "source must be one of \(sources.joined(separator: ", "))", field: ["input", "source"])
        }
        guard request.accounts.count <= Self.maxAccounts else {
            throw UserError(.validationFailed, "at most \(Self.maxAccounts) accounts per report", field: ["input", "accounts"])
        }
        var (customer, mobile) = try await TurboIdentity.resolve(customerID: request.customerID, mobileNumber: request.mobileNumber,
                                                                 principal: context.principal, customers: customers)
        var reported: [LinkedAccountStore.Reported] = []
        for (index, input) in request.accounts.enumerated() {
            let account = try Self.validate(input, index: index)
            // The same account twice in one report is one account (the later details win).
            reported.removeAll { $0.kind == account.kind && $0.maskedIdentifier == account.maskedIdentifier && $0.bankKey == account.bankKey }
            reported.append(account)
        }
        if request.source == "LINK_NEW_ACCOUNT", reported.count != 1 {
            throw UserError(.validationFailed, "linkNewUpiAccount links one account at a time: report exactly one", field: ["input", "accounts"])
        }
        if request.isCompleteList, !["GET_LINKED_ACCOUNTS", "MANAGE_ACCOUNTS"].contains(request.source) {
            throw UserError(.invalidParameterCombination, "only GET_LINKED_ACCOUNTS and MANAGE_ACCOUNTS report complete lists",
                            field: ["input", "isCompleteList"])
        }
        if let orderID = request.orderID {
            guard request.source == "TPV_LINK" else {
                throw UserError(.invalidParameterCombination, "orderId goes with source TPV_LINK", field: ["input", "orderId"])
            }
            guard let order = try await orders.find(id: orderID), context.principal.maySee(customerID: order.customerID),
                  customer == nil || order.customerID == customer?.id else {
                throw UserError(.notFound, "no such order of this customer", field: ["input", "orderId"])
            }
        }
        if customer == nil {
            // A SECRET report by mobile alone belongs to the one customer with that phone, if there is exactly one.
            let owners = try await store.customerIDs(mobile: mobile)
            if owners.count == 1 { customer = try await customers.find(id: owners[0]) }
        }
        // Matches a whitelisted TPV account of the customer: same IFSC and last four digits.
        if let customer {
            let whitelisted = try await bankAccounts.list(customerIDs: [customer.id], includeRemoved: false)[customer.id] ?? []
            for index in reported.indices {
                let account = reported[index]
                reported[index].bankAccountID = whitelisted.first { tpv in
                    account.kind == "BANK_ACCOUNT" && account.maskedIdentifier == tpv.maskedAccountNumber
                        && (account.ifsc == tpv.ifsc || (account.ifsc != nil && account.ifsc == tpv.providerIFSC))
                }?.id
            }
        }
        let owner = customer?.id
        return try await store.pool.withTransaction { connection in
            var stored: [LinkedAccountRecord] = []
            for account in reported {
                stored.append(try await LinkedAccountStore.upsert(customerID: owner, mobile: mobile, provider: .razorpay, source: request.source,
                                                                  account, on: connection))
            }
            if request.isCompleteList {
                try await LinkedAccountStore.markMissingInactive(customerID: owner, mobile: mobile, provider: .razorpay,
                                                                 kept: stored.map(\.id), on: connection)
            }
            return stored
        }
    }

    /// Marks the account REMOVED. Another customer's account (or, for a session, one of no customer) is NOT_FOUND.
    func remove(id: UUID, context: GatewayRequestContext) async throws -> LinkedAccountRecord {
        guard let account = try await store.find(id: id), context.principal.maySee(customerID: account.customerID) else {
            throw UserError(.notFound, "no such linked UPI account", field: ["input", "linkedUpiAccountId"])
        }
        guard account.status != "REMOVED" else { return account }
        guard let removed = try await store.markRemoved(id: account.id) else {
            throw UserError(.notFound, "no such linked UPI account", field: ["input", "linkedUpiAccountId"])
        }
        return removed
    }

    /// `Query.linkedUpiAccounts`: by customer or mobile (a session: its own only, else FORBIDDEN;
    /// without either, a session lists its own customer's).
    func list(customerID: UUID?, mobileNumber: String?, includeInactive: Bool, principal: Principal) async throws -> [LinkedAccountRecord] {
        if principal.session == nil, !principal.scopes.contains(.secret), !principal.scopes.contains(.ops) {
            throw GatewayRequestError(code: "FORBIDDEN", message: "linked UPI accounts are customer data: use a client session or a SECRET key")
        }
        if principal.session != nil || customerID != nil {
            let resolved: (customer: CustomerRecord?, mobile: String)
            do {
                resolved = try await TurboIdentity.resolve(customerID: customerID, mobileNumber: mobileNumber, principal: principal, customers: customers)
            } catch let error as UserError where (error.code == .required && mobileNumber == nil) || error.code == .notFound {
                // An unknown customer, or one without a mobile (no Turbo identity): nothing linked.
                return []
            } catch let error as UserError {
                throw GatewayRequestError.badInput(error.message)
            }
            guard let customer = resolved.customer else { return [] }
            return (try await store.list(customerIDs: [customer.id], includeInactive: includeInactive)[customer.id] ?? [])
                .filter { mobileNumber == nil || $0.mobileNumber == resolved.mobile }
        }
        guard let mobileNumber else { throw GatewayRequestError.badInput("give customerId or mobileNumber") }
        guard let mobile = TurboIdentity.nationalMobile(mobileNumber) else {
            throw GatewayRequestError.badInput("mobileNumber must be an Indian mobile number (10 digits starting 6–9, optionally +91)")
        }
        return try await store.list(mobile: mobile, customerID: nil, includeInactive: includeInactive)
    }
}
