import Foundation
import PaymentsCore
import Postgres
import Providers

/// TPV bank accounts (flow F2, decision 9): validated, sealed with the data key, found again
/// through the blind index, whitelisted at Razorpay, shown only masked.
///
/// The full account number lives only in this service's locals, in the sealed column and in
/// the provider request; every message that could carry it passes through ``scrub(_:number:)``.
struct BankAccountService: Sendable {
    let accounts: BankAccountStore
    let customers: CustomerStore
    let customerService: CustomerService
    let providers: ProviderRegistry
    let keys: DataKeyring?

    /// `addTpvBankAccount`'s input, decoded (not yet validated).
    struct AddRequest: Sendable {
        var customerID: UUID
        var accountNumber: String
        var ifsc: String
        var beneficiaryName: String
        var beneficiaryEmail: String?
        var beneficiaryMobile: String?
        var addressLines: [String]?
        var city: String?
        var state: String?
        var country: String?
        var pin: String?
    }

    // MARK: Validation (pure)

    /// `^[A-Z]{4}0[A-Z0-9]{6}$`.
    static func isIFSC(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func upper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        return bytes.count == 11 && bytes.prefix(4).allSatisfy(upper) && bytes[4] == 0x30 && bytes.suffix(6).allSatisfy { upper($0) || digit($0) }
    }

    /// 9–18 decimal digits (Indian bank account numbers).
    static func isAccountNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (9...18).contains(bytes.count) && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The checked input; every failure names its field and never repeats the account number.
    static func validate(_ request: AddRequest) throws(UserError) -> AddRequest {
        var checked = request
        guard isAccountNumber(request.accountNumber) else {
            throw UserError(.invalidAccountNumber, "accountNumber must be 9–18 digits", field: ["input", "accountNumber"])
        }
        checked.ifsc = request.ifsc.uppercased()
        guard isIFSC(checked.ifsc) else {
            throw UserError(.invalidIFSC, "ifsc must be 4 letters, 0, then 6 letters or digits (e.g. HDFC0000053)", field: ["input", "ifsc"])
        }
        let name = request.beneficiaryName.trimmingCharacters(in: .whitespaces)
        guard (1...120).contains(name.count) else {
            throw UserError(.validationFailed, "beneficiaryName must be 1–120 characters", field: ["input", "beneficiaryName"])
        }
        checked.beneficiaryName = try Validation.text(name, field: ["input", "beneficiaryName"], max: 120) ?? name
        // A name field is not a place for the number: refuse it rather than store it in the clear.
        guard !name.contains(request.accountNumber) else {
            throw UserError(.validationFailed, "beneficiaryName must not contain the account number", field: ["input", "beneficiaryName"])
        }
        checked.beneficiaryEmail = try Validation.email(request.beneficiaryEmail, field: ["input", "beneficiaryEmail"])
        if let lines = request.addressLines {
            guard lines.count <= 4 else { throw UserError(.validationFailed, "at most four address lines", field: ["input", "beneficiaryAddressLines"]) }
            for line in lines { _ = try Validation.text(line, field: ["input", "beneficiaryAddressLines"], max: 120) }
        }
        checked.city = try Validation.text(request.city, field: ["input", "beneficiaryCity"], max: 60)
        checked.state = try Validation.text(request.state, field: ["input", "beneficiaryState"], max: 60)
        if let country = request.country {
            guard country.utf8.count == 2, country.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
                throw UserError(.validationFailed, "beneficiaryCountry must be an ISO 3166 alpha-2 code (e.g. IN)", field: ["input", "beneficiaryCountry"])
            }
        }
        if let pin = request.pin {
            guard pin.utf8.count == 6, pin.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !pin.hasPrefix("0") else {
                throw UserError(.validationFailed, "beneficiaryPin must be a 6-digit PIN code", field: ["input", "beneficiaryPin"])
            }
        }
        return checked
    }

    /// `message` with every occurrence of the account number replaced by its mask.
    static func scrub(_ message: String, number: String) -> String {
        message.replacingOccurrences(of: number, with: "XXXXXX" + number.suffix(4))
    }

    // MARK: Add / remove

    /// What `add` did: the account, and whether it existed already (same customer, number and IFSC).
    struct Added: Sendable {
        var account: BankAccountRecord
        var existing: Bool
    }

    /// Adds (whitelists) an account, or returns the customer's ACTIVE one with the same number and IFSC.
    func add(_ input: AddRequest, context: GatewayRequestContext) async throws -> Added {
        let request = try Self.validate(input)
        let keys = try requireKeys()
        guard let customer = try await customers.find(id: request.customerID) else {
            throw UserError(.notFound, "no such customer", field: ["input", "customerId"])
        }
        if let found = try await accounts.findActive(customerID: customer.id, blindIndexes: keys.blindIndexes(request.accountNumber),
                                                     ifsc: request.ifsc) {
            return Added(account: found, existing: true)
        }
        guard let razorpay = providers.razorpay else {
            throw UserError(.noRoute, "TPV accounts are whitelisted at RAZORPAY, which is not configured", provider: .razorpay)
        }
        let razorpayCustomerID = try await razorpayCustomer(customer, context: context)
        let id = UUID()
        let sealed = try keys.seal(request.accountNumber, purpose: BankAccountRecord.purpose(id: id))
        let new = BankAccountStore.NewAccount(
            id: id, customerID: customer.id, ifsc: request.ifsc, beneficiaryName: request.beneficiaryName,
            beneficiaryEmail: request.beneficiaryEmail, beneficiaryMobile: request.beneficiaryMobile,
            last4: String(request.accountNumber.suffix(4)), sealed: sealed.sealed, keyID: sealed.keyID,
            blindIndex: keys.blindIndex(request.accountNumber))
        let details = BankAccountDetails(
            accountNumber: request.accountNumber, ifsc: request.ifsc, beneficiaryName: request.beneficiaryName,
            beneficiary: BeneficiaryDetails(email: request.beneficiaryEmail, mobile: OrderService.nationalPhone(request.beneficiaryMobile),
                                            addressLines: request.addressLines ?? [], city: request.city, state: request.state,
                                            country: request.country, pin: request.pin))
        do {
            // The row is inserted and the provider called in one transaction: a concurrent add of the
            // same account waits on the unique index, then finds this row (or, after a rollback, adds it).
            let stored: BankAccountRecord? = try await accounts.pool.withTransaction(maxAttempts: 1) { connection in
                guard let row = try await BankAccountStore.insert(new, on: connection) else { return nil }
                let whitelisted = try await context.timingProvider {
                    try await razorpay.addBankAccount(customerID: razorpayCustomerID, account: details)
                }
                let confirmed = whitelisted.ifsc.map { $0.uppercased() }.flatMap { Self.isIFSC($0) ? $0 : nil }
                try await BankAccountStore.recordProvider(accountID: row.id, provider: .razorpay, providerAccountID: whitelisted.id,
                                                          confirmedIFSC: confirmed, bankName: whitelisted.bankName, on: connection)
                return row
            }
            if let stored, let account = try await accounts.find(id: stored.id) {
                return Added(account: account, existing: false)
            }
            guard let found = try await accounts.findActive(customerID: customer.id, blindIndexes: keys.blindIndexes(request.accountNumber),
                                                            ifsc: request.ifsc) else {
                throw GatewayRequestError.internal("a bank account conflicted but cannot be found")
            }
            return Added(account: found, existing: true)
        } catch let error as ProviderError {
            // Nothing was stored (the transaction rolled back). The provider's text may quote the number: masked.
            var userError = UserError.provider(error)
            userError.message = Self.scrub(userError.message, number: request.accountNumber)
            userError.providerCode = userError.providerCode.map { Self.scrub($0, number: request.accountNumber) }
            throw userError
        }
    }

    /// Deletes the account at every provider that knows it, then marks it REMOVED (kept for the
    /// orders that name it). Removing a REMOVED account returns it unchanged.
    func remove(id: UUID, context: GatewayRequestContext) async throws -> BankAccountRecord {
        guard let account = try await accounts.find(id: id), context.principal.maySee(customerID: account.customerID) else {
            throw UserError(.notFound, "no such bank account", field: ["input", "bankAccountId"])
        }
        guard account.status == "ACTIVE" else { return account }
        for ref in account.providerRefs {
            guard ref.provider == .razorpay else { continue }
            guard let razorpay = providers.razorpay else {
                throw UserError(.noRoute, "RAZORPAY is not configured: the account cannot be deleted there", provider: .razorpay)
            }
            let references = try await customers.providerReferences(customerIDs: [account.customerID])[account.customerID] ?? []
            guard let customerRef = references.first(where: { $0.provider == .razorpay }) else {
                throw GatewayRequestError.internal("a whitelisted account's customer has no Razorpay id")
            }
            do {
                try await context.timingProvider {
                    try await razorpay.deleteBankAccount(customerID: customerRef.id, bankAccountID: ref.id)
                }
            } catch let error as ProviderError where error.code == .notFound {
                // Already gone at Razorpay: the removal still holds.
            } catch let error as ProviderError {
                throw UserError.provider(error)
            }
        }
        guard let removed = try await accounts.markRemoved(id: account.id) else {
            throw UserError(.notFound, "no such bank account", field: ["input", "bankAccountId"])
        }
        return removed
    }

    /// The full account number of `account`, for a provider request only.
    /// Throws `CAPABILITY_NOT_SUPPORTED` without data keys, and INTERNAL when the row's key is not
    /// configured or its ciphertext does not authenticate (a misconfiguration or tampering, never input).
    func accountNumber(of account: BankAccountRecord) throws -> String {
        let keys = try requireKeys()
        do {
            return try keys.open(account.sealedAccountNumber, purpose: BankAccountRecord.purpose(id: account.id))
        } catch {
            throw GatewayRequestError.internal("TPV account \(account.id.uuidString.lowercased()) (data key \(account.keyID)) cannot be opened: \(error)")
        }
    }

    private func requireKeys() throws(UserError) -> DataKeyring {
        guard let keys else {
            throw UserError(.capabilityNotSupported, "PayQL has no data key (PAYQL_DATA_KEY): TPV bank accounts are unavailable")
        }
        return keys
    }

    /// The customer's Razorpay id, registering the customer there first when it has none.
    private func razorpayCustomer(_ customer: CustomerRecord, context: GatewayRequestContext) async throws -> String {
        func known() async throws -> String? {
            try await customers.providerReferences(customerIDs: [customer.id])[customer.id]?.first(where: { $0.provider == .razorpay })?.id
        }
        if let id = try await known() { return id }
        if let error = await customerService.register(customer, at: .razorpay, context: context) { throw error }
        guard let id = try await known() else { throw GatewayRequestError.internal("the Razorpay customer was not recorded") }
        return id
    }
}
