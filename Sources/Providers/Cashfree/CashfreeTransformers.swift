public import PaymentsCore
/// Pure functions between Cashfree's wire models and the domain; amounts are
/// decimal rupees written and read as exact text.
enum CashfreeTransformers {
    static let provider = ProviderName.cashfree

    /// Cashfree `payment_methods` codes for a method family (docs/providers/cashfree.md §3).
    static func paymentMethods(_ method: PaymentMethodKind) -> String {
        switch method {
        case .card: "cc,dc"
        case .netbanking: "nb"
        case .upi: "upi"
        case .wallet: "app"
        case .emi: "cardlessemi,dcemi,ccemi"
        }
    }

    static func orderRequest(_ request: CreateOrderRequest, rules: AmountRules) throws(ProviderError) -> CashfreeOrderRequest {
        let operation = "createOrder"
        let rupees: String
        do { rupees = try AmountConversion.decimalText(request.amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "order_amount")
        }
        guard isIdentifier(request.reference, length: 3...45) else {
            throw .invalid("order_id must be 3–45 of A-Z a-z 0-9 _ -", provider: provider, operation: operation, field: "order_id")
        }
        guard let customer = request.customer, let customerID = customer.id, let phone = customer.phone else {
            throw .invalid("customer_details needs a customer id and phone", provider: provider, operation: operation, field: "customer_details")
        }
        guard isIdentifier(customerID, length: 3...50) else {
            throw .invalid("customer_id must be 3–50 of A-Z a-z 0-9 _ -", provider: provider, operation: operation, field: "customer_id")
        }
        // Schema and SDK: exactly 10 characters (docs/providers/cashfree.md §3; `+`-prefixed longer numbers are unsure).
        guard phone.count == 10 else {
            throw .invalid("customer_phone must be 10 characters", provider: provider, operation: operation, field: "customer_phone")
        }
        if let tpv = request.tpvBankAccount, !(3...20).contains(tpv.accountNumber.count) {
            throw .invalid("customer_bank_account_number must be 3–20 characters", provider: provider, operation: operation,
                           field: "customer_bank_account_number")
        }
        let details = CashfreeCustomerDetails(customer_id: customerID, customer_phone: phone, customer_email: customer.email,
                                              customer_name: customer.name,
                                              customer_bank_account_number: request.tpvBankAccount?.accountNumber,
                                              customer_bank_ifsc: request.tpvBankAccount?.ifsc, customer_uid: nil)
        var meta: CashfreeOrderMeta?
        if request.returnURL != nil || request.notifyURL != nil || request.method != nil {
            meta = CashfreeOrderMeta(return_url: request.returnURL, notify_url: request.notifyURL,
                                     payment_methods: request.method.map(paymentMethods))
        }
        if request.notes.count > 10 {
            throw .invalid("at most 10 order_tags", provider: provider, operation: operation, field: "order_tags")
        }
        return CashfreeOrderRequest(order_id: request.reference, order_amount: WireDecimal(text: rupees),
                                    order_currency: request.amount.currency.code, customer_details: details,
                                    order_meta: meta, order_note: request.description,
                                    order_tags: request.notes.isEmpty ? nil : request.notes)
    }

    static func order(_ wire: CashfreeOrder, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderOrder {
        let amount = try decimal(wire.order_amount, currency: wire.order_currency, rules: rules, operation: operation)
        let checkout: CheckoutData = wire.payment_session_id.map { .cashfree(paymentSessionID: $0) } ?? .none
        return ProviderOrder(provider: provider, id: wire.order_id, reference: wire.order_id, amount: amount,
                             status: CashfreeStatusMapping.order(wire.order_status), rawStatus: wire.order_status,
                             checkout: checkout, createdAt: wire.created_at)
    }

    static func payment(_ wire: CashfreePayment, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderPayment {
        let amount = try decimal(wire.payment_amount, currency: wire.payment_currency, rules: rules, operation: operation)
        let failure = wire.error_details.map {
            PaymentFailure(code: $0.error_code, description: $0.error_description, reason: $0.error_reason, source: $0.error_source)
        }
        return ProviderPayment(provider: provider, id: wire.cf_payment_id.text, orderID: wire.order_id, amount: amount,
                               status: CashfreeStatusMapping.payment(wire.payment_status), rawStatus: wire.payment_status,
                               method: wire.payment_group, failure: failure)
    }

    static func refundRequest(_ request: RefundRequest, rules: AmountRules) throws(ProviderError) -> CashfreeRefundRequest {
        let operation = "createRefund"
        // Cashfree requires the amount; there is no "refund everything" default.
        guard let amount = request.amount else {
            throw .invalid("Cashfree refunds need an amount", provider: provider, operation: operation, field: "refund_amount")
        }
        let rupees: String
        do { rupees = try AmountConversion.decimalText(amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "refund_amount")
        }
        guard isIdentifier(request.reference, length: 3...40) else {
            throw .invalid("refund_id must be 3–40 of A-Z a-z 0-9 _ -", provider: provider, operation: operation, field: "refund_id")
        }
        if let note = request.note, !(3...100).contains(note.count) {
            throw .invalid("refund_note must be 3–100 characters", provider: provider, operation: operation, field: "refund_note")
        }
        return CashfreeRefundRequest(refund_amount: WireDecimal(text: rupees), refund_id: request.reference,
                                     refund_note: request.note, refund_speed: request.speed.map { $0 == .instant ? "INSTANT" : "STANDARD" })
    }

    static func refund(_ wire: CashfreeRefund, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderRefund {
        let amount = try wire.refund_amount.map { (value: WireDecimal) throws(ProviderError) -> Amount in
            try decimal(value, currency: wire.refund_currency, rules: rules, operation: operation)
        }
        return ProviderRefund(provider: provider, id: wire.cf_refund_id?.text ?? wire.refund_id, paymentID: wire.cf_payment_id?.text,
                              reference: wire.refund_id, amount: amount,
                              status: CashfreeStatusMapping.refund(wire.refund_status), rawStatus: wire.refund_status)
    }

    /// Error body `{"message","code","type","help"}` (docs/providers/cashfree.md §4).
    static func parseError(status: Int, body: [UInt8]) -> ParsedProviderError? {
        guard let error = WireCoding.decode(CashfreeError.self, from: body), error.code != nil || error.message != nil else { return nil }
        var override: ProviderError.Code?
        switch error.type {
        case "idempotency_error": override = .idempotencyConflict
        case "authentication_error": override = .authenticationFailed
        default: break
        }
        if status == 404 { override = .notFound }
        // Field errors follow `<field>_invalid` / `<field>_missing` [M]: name the field.
        var field: String?
        if let code = error.code {
            for suffix in ["_invalid", "_missing"] where code.hasSuffix(suffix) {
                field = String(code.dropLast(suffix.count))
            }
        }
        return ParsedProviderError(code: error.code, message: error.message, reason: error.type, field: field, override: override)
    }

    static func decimal(_ value: WireDecimal, currency: String?, rules: AmountRules, operation: String) throws(ProviderError) -> Amount {
        do {
            return try AmountConversion.fromDecimalText(value.text, currencyCode: currency, rules: rules, syntax: value.syntax)
        } catch {
            throw ProviderError(.malformedResponse, provider: provider, operation: operation,
                                message: "the provider returned an amount PayQL cannot represent: \(error)")
        }
    }

    static func isIdentifier(_ text: String, length: ClosedRange<Int>) -> Bool {
        length.contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }
}
