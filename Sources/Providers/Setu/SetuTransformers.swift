public import PaymentsCore
import Support
/// Pure functions between Setu's wire models and the domain.
enum SetuTransformers {
    static let provider = ProviderName.setu

    static func linkRequest(_ request: SetuBillPayLinkRequest, orgID: String) throws(ProviderError) -> SetuLinkRequest {
        let operation = "createBillPayLink"
        guard (6...22).contains(request.mobileNumber.utf8.count), request.mobileNumber.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw .invalid("mobileNumber must be 6–22 digits", provider: provider, operation: operation, field: "mobileNumber")
        }
        if let redirect = request.redirectTo, redirect != "transactions", redirect != "disputes" {
            throw .invalid("redirectTo is transactions or disputes", provider: provider, operation: operation, field: "redirectTo")
        }
        if !request.billParameters.isEmpty, request.billerID == nil {
            throw .invalid("billParams need a billerId", provider: provider, operation: operation, field: "billParams")
        }
        return SetuLinkRequest(orgId: orgID, mobileNumber: request.mobileNumber, custID: request.customerID,
                               categoryName: request.category, billerId: request.billerID,
                               billParams: request.billParameters.isEmpty ? nil : request.billParameters.map { SetuBillParam(name: $0.name, value: $0.value) },
                               additionalInfo: request.additionalInfo.isEmpty ? nil : request.additionalInfo,
                               redirectTo: request.redirectTo, shortLink: nil)
    }

    static func link(_ wire: SetuLink) -> SetuBillPayLink {
        SetuBillPayLink(link: wire.link, sessionID: wire.sessionId, shortLink: wire.shortLink, traceID: wire.traceId)
    }

    /// Normalises `initiate_payment` data (API README, decision 8). Deprecated names: `callback` →
    /// `postPaymentUrl` and `mobileNumber` → `customerMobileNumber` [M] are accepted when the current
    /// name is absent or equal; both present and different is refused, naming both. `refId`,
    /// `beneficiaryVPA` and `remarks` have no successor: kept for audit, never used — in particular
    /// `refId` is not an order id (the seed's parser fails without `orderId`, 003:L61-66). Every
    /// deprecated name present is listed in ``SetuPaymentInitiation/deprecatedNamesUsed``.
    static func initiation(_ wire: SetuInitiatePaymentWire, rules: AmountRules) throws(ProviderError) -> SetuPaymentInitiation {
        let operation = "parseInitiatePayment"
        var deprecated: [String] = []
        func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        func pick(_ current: String?, _ currentName: String, _ old: String?, _ oldName: String) throws(ProviderError) -> String? {
            let current = nonEmpty(current), old = nonEmpty(old)
            if old != nil { deprecated.append(oldName) }
            if let current, let old, current != old {
                throw .invalid("\(currentName) and its deprecated name \(oldName) are both present and differ", provider: provider,
                               operation: operation, field: oldName)
            }
            return current ?? old
        }
        guard let orderID = nonEmpty(wire.orderId) else {
            throw .invalid("orderId is missing (refId is not an order id)", provider: provider, operation: operation, field: "orderId")
        }
        if wire.refId != nil { deprecated.append("refId") }
        guard let postPaymentURL = try pick(wire.postPaymentUrl, "postPaymentUrl", wire.callback, "callback") else {
            throw .invalid("postPaymentUrl is missing", provider: provider, operation: operation, field: "postPaymentUrl")
        }
        guard let mobile = try pick(wire.customerMobileNumber, "customerMobileNumber", wire.mobileNumber, "mobileNumber") else {
            throw .invalid("customerMobileNumber is missing", provider: provider, operation: operation, field: "customerMobileNumber")
        }
        guard let amountText = wire.amount?.text else {
            throw .invalid("amount is missing", provider: provider, operation: operation, field: "amount")
        }
        let amount: Amount
        do { amount = try AmountConversion.parse(amountText, currency: .inr, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "amount")
        }
        if wire.beneficiaryVPA != nil { deprecated.append("beneficiaryVPA") }
        if wire.remarks != nil { deprecated.append("remarks") }
        var modes: [SetuPaymentMode] = []
        var unknown: [String] = []
        for text in wire.allowedPaymentModes?.values ?? [] {
            if let mode = SetuPaymentMode(lenient: text) {
                if !modes.contains(mode) { modes.append(mode) }
            } else {
                unknown.append(text)
            }
        }
        return SetuPaymentInitiation(orderID: orderID, amount: amount, postPaymentURL: postPaymentURL, customerMobileNumber: mobile,
                                     customerID: wire.customerId, allowedPaymentModes: modes, unrecognisedPaymentModes: unknown,
                                     beneficiaryVPA: wire.beneficiaryVPA, remarks: wire.remarks, refID: wire.refId,
                                     deprecatedNamesUsed: deprecated)
    }

    static func paymentEvent(_ confirmation: SetuPaymentConfirmation, rules: AmountRules) throws(ProviderError) -> SetuPaymentEventRequest {
        let operation = "confirmPayment"
        let rupees: String
        do { rupees = try AmountConversion.decimalText(confirmation.amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "amount")
        }
        guard !confirmation.orderID.isEmpty, !confirmation.transactionID.isEmpty else {
            throw .invalid("orderId and transactionId are required", provider: provider, operation: operation, field: "orderId")
        }
        var status = "SUCCESS"
        var failure: SetuFailureReason?
        if case .failure(let code, let message) = confirmation.outcome {
            status = "FAILURE"
            failure = SetuFailureReason(code: code, message: message)
        }
        return SetuPaymentEventRequest(orderId: confirmation.orderID, transactionId: confirmation.transactionID,
                                       paymentDateTime: utcDateTime(confirmation.paidAt), amount: rupees,
                                       paymentMode: confirmation.mode.rawValue, paymentStatus: status,
                                       failureReason: failure, remarks: confirmation.remarks)
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC for unix seconds (proleptic Gregorian, `CivilCalendar`).
    /// Seconds outside years 0000–9999 are clamped to them (no overflow, always four year digits).
    static func utcDateTime(_ seconds: Int64) -> String {
        let (days, secondOfDay) = CivilCalendar.dayAndSecond(unixSeconds: min(max(seconds, -62_167_219_200), 253_402_300_799))
        let (year, month, day) = CivilCalendar.date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return "\(paddedYear)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
    }

    /// `{"success":false,"traceId","error":{"code","message"}}` (docs/providers/setu.md §7).
    static func parseError(status: Int, body: [UInt8]) -> ParsedProviderError? {
        guard let envelope = WireCoding.decode(SetuErrorEnvelope.self, from: body), let error = envelope.error else { return nil }
        return ParsedProviderError(code: error.code, message: error.message, traceID: envelope.traceId)
    }
}
