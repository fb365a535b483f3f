import Foundation
import PaymentsCore
import Postgres
import Providers

/// The Turbo UPI identity (decision 3): a customer's 10-digit national mobile number.
enum TurboIdentity {
    /// The ten digits of an Indian mobile number given as ten digits or `+91` and ten digits; nil otherwise.
    static func nationalMobile(_ phone: String?) -> String? {
        guard let phone else { return nil }
        let digits = phone.hasPrefix("+91") ? String(phone.dropFirst(3)) : phone
        let bytes = Array(digits.utf8)
        guard bytes.count == 10, (0x36...0x39).contains(bytes[0]), bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits
    }

    /// The checked mobile of an input field: INVALID_PHONE when it is not an Indian mobile number.
    static func mobile(_ phone: String, field: [String]) throws(UserError) -> String {
        guard let mobile = nationalMobile(phone) else {
            throw UserError(.invalidPhone, "Turbo UPI needs an Indian mobile number (10 digits starting 6–9, optionally +91)", field: field)
        }
        return mobile
    }

    /// Who a Turbo call acts for: the customer (when one is known) and the mobile number.
    ///
    /// A client session acts only for its own customer: another `customerId`, or a mobile number
    /// that is not its customer's phone, is FORBIDDEN (decision 3). A SECRET key names the customer
    /// or the mobile number; when it names both, the mobile must be the customer's phone.
    static func resolve(customerID: UUID?, mobileNumber: String?, principal: Principal, customers: CustomerStore)
        async throws -> (customer: CustomerRecord?, mobile: String) {
        var customer: CustomerRecord?
        guard principal.session != nil || principal.scopes.contains(.secret) || principal.scopes.contains(.ops) else {
            // A bare PUBLISHABLE key is bound to no customer (decision 3): it acts for nobody.
            throw GatewayRequestError(code: "FORBIDDEN", message: "Turbo UPI acts for a customer: use a client session or a SECRET key")
        }
        if let session = principal.session {
            if let customerID, customerID != session.customerID {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may act only for its own customer")
            }
            customer = try await customers.find(id: session.customerID)
            guard let customer else { throw GatewayRequestError(code: "FORBIDDEN", message: "the session's customer no longer exists") }
            let own = nationalMobile(customer.phone)
            if let mobileNumber, nationalMobile(mobileNumber) != own || own == nil {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may use only its own customer's mobile number")
            }
            guard let own else {
                throw UserError(.required, "the customer has no Indian mobile number (updateCustomer phone) for Turbo UPI",
                                field: ["input", "mobileNumber"])
            }
            return (customer, own)
        }
        if let customerID {
            customer = try await customers.find(id: customerID)
            guard customer != nil else { throw UserError(.notFound, "no such customer", field: ["input", "customerId"]) }
        }
        let given = try mobileNumber.map { text throws(UserError) in try mobile(text, field: ["input", "mobileNumber"]) }
        let own = nationalMobile(customer?.phone)
        switch (given, own) {
        case (let given?, let own?) where given != own:
            throw UserError(.invalidParameterCombination, "mobileNumber is not the customer's phone; a changed mobile is a new Turbo identity",
                            field: ["input", "mobileNumber"])
        case (let given?, _): return (customer, given)
        case (nil, let own?): return (customer, own)
        case (nil, nil):
            throw UserError(.required, "mobileNumber is required when the customer has no Indian mobile number", field: ["input", "mobileNumber"])
        }
    }
}

/// Turbo UPI session tokens and TPV linking parameters (flows F5, F6).
///
/// The token is a bearer credential: it lives only in this call's result. It is not stored
/// (a replay mints a fresh one), not cached and never written to a log or an error message.
struct TurboSessionService: Sendable {
    /// Customers (the session's, or the one named).
    let customers: CustomerStore
    /// Orders (TPV linking by order).
    let orders: OrderStore
    /// Whitelisted TPV accounts (TPV linking by customer).
    let bankAccounts: BankAccountStore
    /// Where the Razorpay adapter is.
    let providers: ProviderRegistry

    /// `createTurboUpiSession`'s input, decoded.
    struct Request: Sendable {
        /// `customerId` (a session's own customer when absent).
        var customerID: UUID?
        /// `mobileNumber`, as the PhoneNumber scalar accepted it.
        var mobileNumber: String?
        /// Present when TPV linking parameters were asked for.
        var tpv: TPV?

        /// `TurboTpvLinkInput`.
        struct TPV: Sendable {
            /// Link by this Razorpay TPV order.
            var orderID: UUID?
            /// Link by customer with this whitelisted account.
            var bankAccountID: UUID?
        }
    }

    /// What the SDK gets: the token, its expiry and the reference used; with TPV, the builder's values.
    struct Session: Sendable {
        /// Razorpay's token (a bearer: shown once, never stored or logged).
        var token: Secret
        /// Razorpay's `expire_at`, unix seconds.
        var expiresAtUnix: Int64
        /// The mobile number sent as `customer_reference`.
        var customerReference: String
        /// The customer the session was made for, when one is known (the replay's only stored id).
        var customerID: UUID?
        /// The TPV builder's values, when asked for.
        var linking: Linking?
    }

    /// `TurboTpvLinkParameters`.
    struct Linking: Sendable {
        /// `setMobileNumber`.
        var mobileNumber: String
        /// `setOrderId` (linking by order).
        var razorpayOrderID: String?
        /// `setCustomerId` (linking by customer).
        var razorpayCustomerID: String?
        /// The accounts to show (masked): the order's, or all the customer's ACTIVE whitelisted ones.
        var whitelistedAccounts: [BankAccountRecord]
    }

    /// Checks the identity and the TPV combination, then asks Razorpay for a token. Nothing is
    /// asked of Razorpay when the input is refused.
    func create(_ request: Request, context: GatewayRequestContext) async throws -> Session {
        let (customer, mobile) = try await TurboIdentity.resolve(customerID: request.customerID, mobileNumber: request.mobileNumber,
                                                                 principal: context.principal, customers: customers)
        let linking = try await request.tpv.asyncMap { tpv in try await linkingParameters(tpv, customer: customer, mobile: mobile, context: context) }
        guard let razorpay = providers.razorpay else {
            throw UserError(.noRoute, "Turbo UPI sessions come from RAZORPAY, which is not configured", provider: .razorpay)
        }
        do {
            let session = try await context.timingProvider { try await razorpay.createTurboUPISession(customerReference: mobile) }
            return Session(token: session.token, expiresAtUnix: session.expiresAt, customerReference: mobile, customerID: customer?.id,
                           linking: linking)
        } catch let error as ProviderError {
            throw UserError.provider(error)
        }
    }

    /// The TPV builder's values (seed 000 L352-359): by order (`setOrderId`, no account) or by
    /// customer (`setCustomerId` + a whitelisted account) — never both, never an account without a customer.
    private func linkingParameters(_ tpv: Request.TPV, customer: CustomerRecord?, mobile: String,
                                   context: GatewayRequestContext) async throws -> Linking {
        switch (tpv.orderID, tpv.bankAccountID) {
        case (.some, .some):
            throw UserError(.invalidParameterCombination, "TPV linking takes an order or a bank account, not both (the order names its account)",
                            field: ["input", "tpv"])
        case (nil, nil):
            throw UserError(.invalidParameterCombination, "TPV linking needs exactly one of orderId or bankAccountId", field: ["input", "tpv"])
        default: break
        }
        guard let customer else {
            throw UserError(.required, "TPV linking needs the customer (customerId) whose accounts are whitelisted", field: ["input", "customerId"])
        }
        let whitelisted = (try await bankAccounts.list(customerIDs: [customer.id], includeRemoved: false)[customer.id] ?? [])
            .filter { $0.providerRefs.contains { $0.provider == .razorpay } }
        if let orderID = tpv.orderID {
            guard let order = try await orders.find(id: orderID), context.principal.maySee(customerID: order.customerID) else {
                throw UserError(.notFound, "no such order", field: ["input", "tpv", "orderId"])
            }
            guard order.customerID == customer.id else {
                throw UserError(.invalidState, "the order belongs to another customer", field: ["input", "tpv", "orderId"])
            }
            guard order.provider == .razorpay, order.bankAccountID != nil, let razorpayOrderID = order.providerOrderID else {
                throw UserError(.invalidState, "the order is not a Razorpay TPV order", field: ["input", "tpv", "orderId"])
            }
            guard ![.paid, .expired, .cancelled].contains(order.status) else {
                throw UserError(.invalidState, "the order is \(order.status.rawValue): link with an open TPV order", field: ["input", "tpv", "orderId"])
            }
            return Linking(mobileNumber: mobile, razorpayOrderID: razorpayOrderID, razorpayCustomerID: nil,
                           whitelistedAccounts: whitelisted.filter { $0.id == order.bankAccountID })
        }
        guard let accountID = tpv.bankAccountID, let account = try await bankAccounts.find(id: accountID),
              context.principal.maySee(customerID: account.customerID), account.customerID == customer.id else {
            throw UserError(.notFound, "no such bank account of this customer", field: ["input", "tpv", "bankAccountId"])
        }
        guard account.status == "ACTIVE", account.providerRefs.contains(where: { $0.provider == .razorpay }) else {
            throw UserError(.invalidState, "the bank account is not whitelisted at Razorpay (removed?)", field: ["input", "tpv", "bankAccountId"])
        }
        let references = try await customers.providerReferences(customerIDs: [customer.id])[customer.id] ?? []
        guard let razorpayCustomerID = references.first(where: { $0.provider == .razorpay })?.id else {
            throw UserError(.invalidState, "the customer has no Razorpay customer id", field: ["input", "customerId"])
        }
        return Linking(mobileNumber: mobile, razorpayOrderID: nil, razorpayCustomerID: razorpayCustomerID, whitelistedAccounts: whitelisted)
    }
}
