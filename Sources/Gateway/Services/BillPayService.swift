import Foundation
import JSON
import PaymentsCore
import Postgres
import Providers

/// Setu bill pay, flows F19–F21: links into Setu's screens (`createBillPayLink`) and the bill
/// payments started from the web view's `initiate_payment` data (`startBillPayment`), each
/// paid through an order at Razorpay, Cashfree or Instamojo. The confirmation back to Setu
/// (F22) is ``BillConfirmations``.
///
/// Bad input is refused before anything is written. A bill payment is idempotent on Setu's
/// order id: the web view may post twice and the app may retry.
struct BillPayService: Sendable {
    let store: BillPayStore
    let customers: CustomerStore
    let orders: OrderService
    let orderStore: OrderStore
    let providers: ProviderRegistry
    let configuration: GatewayConfiguration

    // MARK: Links (F19)

    /// `createBillPayLink`'s input, decoded.
    struct LinkRequest: Sendable {
        var mobileNumber: String
        var customerID: UUID?
        var category: String?
        var billerID: String?
        var billParameters: [BillPayLinkRecord.BillParameter]?
        var additionalInfo: [BillPayLinkRecord.BillParameter]
        var redirectTo: String?
        var shortLink: String?
    }

    /// The scenario a link opens (seed 003:L24-27), from which inputs are present.
    static func scenario(category: String?, billerID: String?, parameters: Bool) -> String {
        if parameters { return "BILL" }
        if billerID != nil { return "BILL_FETCH_FORM" }
        return category != nil ? "CATEGORY" : "HOME"
    }

    func createLink(_ request: LinkRequest, context: GatewayRequestContext) async throws -> BillPayLinkRecord {
        guard let setu = providers.setu else { throw UserError(.noRoute, "SETU is not configured", provider: .setu) }
        let principal = context.principal
        var customerID = request.customerID
        if let session = principal.session {
            if let customerID, customerID != session.customerID {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may create links only for its own customer")
            }
            customerID = session.customerID
        }
        if let customerID, try await customers.find(id: customerID) == nil {
            throw UserError(.notFound, "no such customer", field: ["input", "customerId"])
        }
        let category = try Self.nonBlank(request.category, field: "category")
        let billerID = try Self.nonBlank(request.billerID, field: "billerId")
        if billerID != nil, category == nil {
            throw UserError(.invalidParameterCombination, "billerId needs category (Setu opens a biller inside its category)", field: ["input", "billerId"])
        }
        let parameters = request.billParameters ?? []
        if request.billParameters != nil, billerID == nil {
            throw UserError(.invalidParameterCombination, "billParameters need billerId", field: ["input", "billParameters"])
        }
        if request.billParameters != nil, parameters.isEmpty {
            throw UserError(.validationFailed, "billParameters must not be empty (leave it out for the bill-fetch form)", field: ["input", "billParameters"])
        }
        for (index, parameter) in parameters.enumerated() where parameter.name.isEmpty || parameter.value.isEmpty || parameter.name.count > 100 || parameter.value.count > 200 {
            throw UserError(.validationFailed, "a bill parameter needs a name (≤ 100 characters) and a value (≤ 200)", field: ["input", "billParameters", String(index)])
        }
        if let shortLink = request.shortLink, !(8...16).contains(shortLink.count) {
            throw UserError(.validationFailed, "shortLink must be 8–16 characters", field: ["input", "shortLink"])
        }
        let mobile = try Self.setuMobile(request.mobileNumber, field: ["input", "mobileNumber"])
        var info: [String: String] = [:]
        for pair in request.additionalInfo { info[pair.name] = pair.value }
        let asked = SetuBillPayLinkRequest(mobileNumber: mobile, customerID: customerID?.uuidString.lowercased(), category: category, billerID: billerID,
                                           billParameters: parameters.map { ($0.name, $0.value) }, additionalInfo: info,
                                           redirectTo: request.redirectTo?.lowercased())
        let link: SetuBillPayLink
        do {
            link = try await context.timingProvider { try await setu.createBillPayLink(asked) }
        } catch let error as ProviderError {
            throw UserError.provider(error)
        }
        return try await store.insertLink(BillPayStore.NewLink(
            customerID: customerID, mobileNumber: mobile, scenario: Self.scenario(category: category, billerID: billerID, parameters: !parameters.isEmpty),
            category: category, billerID: billerID, billParameters: parameters, additionalInfo: request.additionalInfo,
            redirectTo: request.redirectTo, link: link.link, shortLink: link.shortLink, sessionID: link.sessionID, traceID: link.traceID,
            apiKeyID: principal.apiKeyID, clientSessionID: principal.session?.id,
            lifetimeSeconds: Int64(configuration.billPayLinkLifetime.components.seconds)))
    }

    /// Setu wants 6–22 digits: a `PhoneNumber` (10 digits or E.164) as Setu's mobile number (Indian numbers as their 10 digits).
    static func setuMobile(_ phone: String, field: [String]) throws(UserError) -> String {
        var digits = phone.hasPrefix("+") ? String(phone.dropFirst()) : phone
        if phone.hasPrefix("+91"), digits.count == 12 { digits = String(digits.dropFirst(2)) }
        guard (6...22).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw UserError(.invalidPhone, "Setu needs a mobile number of 6–22 digits", field: field)
        }
        return digits
    }

    private static func nonBlank(_ value: String?, field: String) throws(UserError) -> String? {
        guard let value else { return nil }
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty, value.count <= 200 else {
            throw UserError(.validationFailed, "\(field) must be 1–200 characters", field: ["input", field])
        }
        return value
    }

    // MARK: Bill payments (F20, F21)

    /// `startBillPayment`'s input, decoded.
    struct StartRequest: Sendable {
        /// `initiatePayment`, as given (current and deprecated names).
        var data: JSONObject
        var linkID: UUID?
        var customerID: UUID?
        var provider: ProviderName?
        /// A Setu `paymentMode` value.
        var paymentMode: String?
        var returnURL: String?
    }

    /// What `startBillPayment` returns.
    struct Started: Sendable {
        var billPayment: BillPaymentRecord
        var order: OrderRecord?
        var userErrors: [UserError]
    }

    /// `^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$` rupees (decision 8): "3522.2" is ₹3,522.20; "1e3", "-1", "12.345" are refused.
    static func billAmount(_ text: String) throws(UserError) -> Int64 {
        let field = ["input", "initiatePayment", "amount"]
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count == 2 ? parts[1] : ""
        let digitsOnly = { (part: Substring) in part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard !whole.isEmpty, digitsOnly(whole), whole == "0" || !whole.hasPrefix("0"), digitsOnly(fraction),
              parts.count == 1 || !fraction.isEmpty, whole.count <= 15 else {
            throw UserError(.invalidAmount, "amount must be rupees like \"3522.20\" (digits, at most 2 decimals); got \"\(text.prefix(40))\"", field: field)
        }
        guard fraction.count <= 2 else {
            throw UserError(.amountTooPrecise, "amount has more than 2 decimals (paise); got \"\(text.prefix(40))\"", field: field)
        }
        let paddedFraction = fraction + String(repeating: "0", count: 2 - fraction.count)
        guard let minor = Int64(whole + paddedFraction), minor > 0 else {
            throw UserError(.invalidAmount, "amount must be more than 0", field: field)
        }
        return minor
    }

    func start(_ request: StartRequest, context: GatewayRequestContext) async throws -> Started {
        let principal = context.principal
        let dataField = ["input", "initiatePayment"]
        // Decision 8: current and deprecated names; both present and different is refused, naming both.
        for (current, old) in [("postPaymentUrl", "callback"), ("customerMobileNumber", "mobileNumber")] {
            if let a = request.data[current]?.stringValue, let b = request.data[old]?.stringValue, !a.isEmpty, !b.isEmpty, a != b {
                throw UserError(.validationFailed, "\(current) and its deprecated name \(old) are both present and differ; send one, or both equal",
                                field: dataField + [old])
            }
        }
        guard let orderIDText = request.data["orderId"]?.stringValue, !orderIDText.isEmpty, orderIDText.count <= 100 else {
            throw UserError(.required, "orderId (Setu's order id) is required; refId is not an order id", field: dataField + ["orderId"])
        }
        for (current, old) in [("postPaymentUrl", "callback"), ("customerMobileNumber", "mobileNumber")]
            where (request.data[current]?.stringValue ?? "").isEmpty && (request.data[old]?.stringValue ?? "").isEmpty {
            throw UserError(.required, "\(current) is required (or its deprecated name \(old))", field: dataField + [current])
        }
        let amountMinor = try Self.billAmount(request.data["amount"]?.stringValue ?? "")
        let initiation: SetuPaymentInitiation
        do {
            initiation = try SetuAdapter.parseInitiatePayment(JSONWriter.write(.object(request.data)))
        } catch {
            throw UserError(.validationFailed, error.message, field: dataField + [error.field ?? "orderId"])
        }
        guard initiation.amount.minorUnits == amountMinor else { throw GatewayRequestError.internal("the bill amount was read two ways") }
        let mobile = initiation.customerMobileNumber
        guard (6...22).contains(mobile.utf8.count), mobile.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw UserError(.invalidPhone, "customerMobileNumber must be 6–22 digits", field: dataField + ["customerMobileNumber"])
        }
        let allowed = initiation.allowedPaymentModes.map(\.rawValue)
        if let mode = request.paymentMode, !allowed.isEmpty, !allowed.contains(mode) {
            throw UserError(.paymentModeNotAllowed, "\(mode) is not among the bill's allowedPaymentModes (\(allowed.joined(separator: ", ")))",
                            field: ["input", "paymentMode"])
        }
        // The link it came from: visible to the caller and not expired.
        var link: BillPayLinkRecord?
        if let linkID = request.linkID {
            guard let found = try await store.links(ids: [linkID])[linkID], principal.maySee(customerID: found.customerID) else {
                throw UserError(.notFound, "no such bill-pay link", field: ["input", "billPayLinkId"])
            }
            link = found
        }
        var customerID = request.customerID ?? link?.customerID
        if let session = principal.session {
            if let customerID, customerID != session.customerID {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may pay bills only for its own customer")
            }
            customerID = session.customerID
            if amountMinor > session.maxOrderAmountMinor {
                throw UserError(.amountOutOfRange, "a client session may pay at most \(DecimalText.format(minorUnits: session.maxOrderAmountMinor, exponent: 2)) INR",
                                field: dataField + ["amount"])
            }
        }
        let customer = try await customerID.asyncMap { try await customers.find(id: $0) } ?? nil
        if request.customerID != nil, customer == nil {
            throw UserError(.notFound, "no such customer", field: ["input", "customerId"])
        }
        // Idempotent on Setu's order id: the same initiate_payment again returns the same bill payment.
        if let existing = try await store.payment(setuOrderID: initiation.orderID) {
            return try await replay(existing, amountMinor: amountMinor, principal: principal)
        }
        if let link, try await store.isExpired(linkID: link.id) {
            throw UserError(.invalidState, "the bill-pay link expired at \(link.expiresAt.rfc3339); create a new one", field: ["input", "billPayLinkId"])
        }
        let asked = try collectingProvider(request.provider)
        // Restrict the order to the bill's modes where the collecting provider can (Cashfree): the provider asked
        // for, else the one routing would choose for this order.
        var method: PaymentMethodKind?
        if let candidate = Self.candidateMethod(allowed: allowed, chosen: request.paymentMode) {
            var provider = asked
            if provider == nil {
                provider = try await orders.route(OrderService.CreateRequest(
                    amountMinor: amountMinor, currency: "INR", receipt: nil, customerID: customerID, provider: nil, flow: "STANDARD",
                    method: candidate.rawValue, description: nil, notes: nil, returnURL: request.returnURL, expiresAt: nil, tpvBankAccountID: nil),
                    customer: customer).provider
            }
            if provider == .cashfree { method = candidate }
        }
        guard let inserted = try await store.insertPayment(BillPayStore.NewPayment(
            setuOrderID: initiation.orderID, linkID: link?.id, customerID: customerID, mobileNumber: mobile, setuCustomerID: initiation.customerID,
            amountMinor: amountMinor, allowedModes: allowed, allowedModesRaw: request.data["allowedPaymentModes"]?.stringValue,
            unrecognisedModes: initiation.unrecognisedPaymentModes, postPaymentURL: initiation.postPaymentURL,
            deprecatedFields: initiation.deprecatedNamesUsed, paymentMode: request.paymentMode,
            initiatePayment: PostgresJSONB(text: JSONWriter.string(.object(request.data))))) else {
            // Another call for the same Setu order won the insert: answer as a replay.
            guard let existing = try await store.payment(setuOrderID: initiation.orderID) else { throw GatewayRequestError.internal("bill payment vanished") }
            return try await replay(existing, amountMinor: amountMinor, principal: principal)
        }
        let order: OrderRecord
        do {
            order = try await orders.create(OrderService.CreateRequest(
                amountMinor: amountMinor, currency: "INR", receipt: nil, customerID: customerID, provider: asked, flow: "STANDARD",
                method: method?.rawValue, description: "Setu bill payment \(initiation.orderID)",
                notes: [("setu_order_id", initiation.orderID)], returnURL: request.returnURL, expiresAt: nil, tpvBankAccountID: nil), context: context)
        } catch {
            // Nothing collects this bill: forget it, so the app's retry starts afresh.
            try? await store.deleteWithoutOrder(billPaymentID: inserted.id)
            throw error
        }
        let attached = try await store.attachOrder(billPaymentID: inserted.id, orderID: order.id) ?? inserted
        let errors = order.needsReconciliation
            ? [UserError(.providerTimeout, "the provider's answer was lost; the order will be reconciled by its receipt", provider: order.provider)]
            : []
        return Started(billPayment: attached, order: order, userErrors: errors)
    }

    private func replay(_ existing: BillPaymentRecord, amountMinor: Int64, principal: Principal) async throws -> Started {
        guard principal.maySee(customerID: existing.customerID) else {
            throw UserError(.alreadyExists, "Setu order id is already being paid by someone else", field: ["input", "initiatePayment", "orderId"])
        }
        guard existing.amount.minorUnits == amountMinor else {
            throw UserError(.amountMismatch, "this Setu order was started with amount \(DecimalText.format(minorUnits: existing.amount.minorUnits, exponent: 2))",
                            field: ["input", "initiatePayment", "amount"])
        }
        let order = try await existing.orderID.asyncMap { try await orderStore.find(id: $0) } ?? nil
        return Started(billPayment: existing, order: order, userErrors: [])
    }

    /// The provider asked for, checked (not SETU, configured); nil: routing decides (API README, "Routing").
    func collectingProvider(_ asked: ProviderName?) throws(UserError) -> ProviderName? {
        guard let asked else { return nil }
        guard asked != .setu else {
            throw UserError(.capabilityNotSupported, "SETU collects no money itself; choose RAZORPAY, CASHFREE or INSTAMOJO", field: ["input", "provider"])
        }
        guard providers.isConfigured(asked) else { throw UserError(.noRoute, "\(asked.graphQLName) is not configured", field: ["input", "provider"]) }
        return asked
    }

    /// The one method an order for the bill could be restricted to: the mode the customer chose, else the single
    /// method all allowed modes share. Only Cashfree restricts (`payment_methods`): Razorpay restricts only TPV
    /// orders and Instamojo not at all; there the mode is checked when the payment is confirmed (decision 7).
    static func candidateMethod(allowed: [String], chosen: String?) -> PaymentMethodKind? {
        if let chosen { return BillPaymentModes.method(forSetuMode: chosen) }
        let methods = Set(allowed.map(BillPaymentModes.method(forSetuMode:)))
        guard methods.count == 1, let only = methods.first else { return nil }
        return only
    }
}

/// Setu `paymentMode` values and the payment methods of PayQL's providers.
enum BillPaymentModes {
    /// `INTERNET BANKING` ↔ the contract's `INTERNET_BANKING`.
    static func graphQLName(_ setuMode: String) -> String { setuMode.replacingOccurrences(of: " ", with: "_") }

    /// The contract's `BillPaymentMode` → Setu's value; nil for an unknown name.
    static func setuMode(graphQLName: String) -> String? {
        let mode = graphQLName.replacingOccurrences(of: "_", with: " ")
        return SetuPaymentMode(rawValue: mode)?.rawValue
    }

    /// The provider method family a Setu mode is paid with (nil: no PayQL provider collects it so).
    static func method(forSetuMode mode: String) -> PaymentMethodKind? {
        switch mode {
        case "UPI", "BHARAT QR": .upi
        case "INTERNET BANKING": .netbanking
        case "DEBIT CARD", "CREDIT CARD", "PREPAID CARD": .card
        case "WALLET": .wallet
        default: nil
        }
    }

    /// The Setu mode to report for a provider payment's method (Razorpay `upi`/`card`/`netbanking`/`wallet`/`emi`,
    /// Cashfree `upi`/`credit_card`/`debit_card`/`net_banking`/`app`, Instamojo `UPI`/`CC`/`DC`/`NB`/`WLT`). Among
    /// candidates the bill's allowed modes are preferred; nil when the method is unknown or absent.
    static func setuMode(forMethod method: String?, allowed: [String]) -> String? {
        guard let method = method?.lowercased(), !method.isEmpty else { return nil }
        let candidates: [String]
        if method.contains("upi") {
            candidates = ["UPI"]
        } else if method.contains("credit") || method == "cc" || method == "emi" || method.contains("emi") {
            candidates = ["CREDIT CARD"]
        } else if method.contains("prepaid") {
            candidates = ["PREPAID CARD"]
        } else if method.contains("debit") || method == "dc" {
            candidates = ["DEBIT CARD"]
        } else if method.contains("card") {
            candidates = ["DEBIT CARD", "CREDIT CARD", "PREPAID CARD"]
        } else if method.contains("net") || method == "nb" {
            candidates = ["INTERNET BANKING"]
        } else if method.contains("wallet") || method == "app" || method == "wlt" || method.contains("paylater") {
            candidates = ["WALLET"]
        } else {
            return nil
        }
        return candidates.first(where: allowed.contains) ?? candidates[0]
    }
}
