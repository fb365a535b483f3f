import Support
/// Customers and their TPV bank accounts (`/v1/customers…`).
extension RazorpaySimulator {
    func createCustomer(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            let fields = try customerFields(object, requireAny: false)
            let failExisting: Bool
            switch object["fail_existing"] {
            case nil, .null?: failExisting = true
            case .string("1")?, .number("1")?, .bool(true)?: failExisting = true
            case .string("0")?, .number("0")?, .bool(false)?: failExisting = false
            default: throw RazorpayFailure(Self.error("The fail existing must be 0 or 1.", field: "fail_existing"))
            }
            return state.withLock { state -> SandboxResponse in
                // "Same details": same contact and email. Unsure: which fields the live API compares.
                let existing = state.customerOrder.compactMap { state.customers[$0] }
                    .first { $0.contact == fields.contact && $0.email == fields.email }
                if fields.contact != nil || fields.email != nil, let existing {
                    if failExisting {
                        return Self.error("Customer already exists for the merchant", source: "NA", step: "NA", reason: "NA")
                    }
                    return .json(existing.wire)
                }
                let customer = Razorpay.Customer(id: Identifiers.razorpay("cust"), name: fields.name, email: fields.email,
                                                 contact: fields.contact, gstin: fields.gstin, notes: fields.notes,
                                                 createdAt: context.now)
                state.customers[customer.id] = customer
                state.customerOrder.append(customer.id)
                return .json(customer.wire)
            }
        } catch {
            return error.response
        }
    }

    func fetchCustomer(_ id: String) -> SandboxResponse {
        state.withLock { state in
            guard let customer = state.customers[id] else { return Self.notFound() }
            return .json(customer.wire)
        }
    }

    func listCustomers(_ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let page = try paging(request)
            return state.withLock { state in
                let items = state.customerOrder.reversed().dropFirst(page.skip).prefix(page.count)
                    .compactMap { state.customers[$0]?.wire }
                return .json(Razorpay.collection(items))
            }
        } catch {
            return error.response
        }
    }

    func editCustomer(_ id: String, _ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            let fields = try customerFields(object, requireAny: false)
            return state.withLock { state in
                guard var customer = state.customers[id] else { return Self.notFound() }
                if let name = fields.name { customer.name = name }
                if let email = fields.email { customer.email = email }
                if let contact = fields.contact { customer.contact = contact }
                if let gstin = fields.gstin { customer.gstin = gstin }
                if object["notes"] != nil { customer.notes = fields.notes }
                state.customers[id] = customer
                return .json(customer.wire)
            }
        } catch {
            return error.response
        }
    }

    private struct CustomerFields {
        var name: String?
        var email: String?
        var contact: String?
        var gstin: String?
        var notes: WireObject
    }

    private func customerFields(_ object: WireObject, requireAny: Bool) throws(RazorpayFailure) -> CustomerFields {
        let name = try optionalString(object, "name", limit: 50)
        if let name {
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .'/@()-&")
            guard name.count >= 3, name.allSatisfy({ allowed.contains($0) || !$0.isASCII }) else {
                throw RazorpayFailure(Self.error("The name format is invalid.", field: "name"))
            }
        }
        let email = try optionalString(object, "email", limit: 64)
        if let email, !isPlausibleEmail(email) {
            throw RazorpayFailure(Self.error("The email must be a valid email address.", field: "email"))
        }
        let contact = try optionalString(object, "contact", limit: 15)
        if let contact {
            let digits = contact.filter(\.isASCIIDigit).count
            let allowed = contact.allSatisfy { $0.isASCIIDigit || $0 == "+" || $0 == "-" || $0 == " " }
            // The exact error of samples/razorpay/error_bad_request.json.
            guard digits >= 8, allowed else {
                throw RazorpayFailure(Self.error("Contact number should be at least 8 digits, including country code",
                                                 field: "contact", step: "NA", reason: "invalid_contact_number"))
            }
        }
        let gstin = try optionalString(object, "gstin", limit: 15)
        return CustomerFields(name: name, email: email, contact: contact, gstin: gstin, notes: try notes(object["notes"]))
    }

    func addBankAccount(customerID: String, _ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            func required(_ key: String) throws(RazorpayFailure) -> String {
                guard let value = try optionalString(object, key, limit: 100), !value.isEmpty else {
                    throw RazorpayFailure(Self.error("The \(key) field is required.", field: key))
                }
                return value
            }
            let accountNumber = try required("account_number")
            let ifsc = try required("ifsc_code")
            let beneficiary = try required("beneficiary_name")
            guard (5...35).contains(accountNumber.count), accountNumber.allSatisfy({ $0.isASCIIDigit || $0.isLetter }) else {
                throw RazorpayFailure(Self.error("The account number is invalid.", field: "account_number"))
            }
            guard isIFSC(ifsc) else { throw RazorpayFailure(Self.error("The ifsc code is invalid.", field: "ifsc_code")) }
            return state.withLock { state in
                guard state.customers[customerID] != nil else { return Self.notFound() }
                let account = Razorpay.BankAccount(id: Identifiers.razorpay("ba"), customerID: customerID,
                                                   ifsc: ifsc.uppercased(), name: beneficiary, accountNumber: accountNumber)
                state.bankAccounts[account.id] = account
                return .json(account.wire)
            }
        } catch {
            return error.response
        }
    }

    func deleteBankAccount(customerID: String, accountID: String) -> SandboxResponse {
        state.withLock { state in
            guard var account = state.bankAccounts[accountID], account.customerID == customerID, !account.deleted else {
                return Self.notFound()
            }
            account.deleted = true
            state.bankAccounts[accountID] = account
            return .json(account.deletedWire)
        }
    }
}

/// `local@domain.tld` with no spaces: enough to reject obvious garbage.
func isPlausibleEmail(_ text: String) -> Bool {
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(" ")
        && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
}

/// An Indian IFSC: four letters, `0`, six letters or digits.
func isIFSC(_ text: String) -> Bool {
    let chars = Array(text.uppercased())
    guard chars.count == 11 else { return false }
    return chars[0..<4].allSatisfy { $0.isASCII && $0.isLetter } && chars[4] == "0"
        && chars[5...].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
}
