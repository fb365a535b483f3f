public import PaymentsCore
/// Pure functions between Razorpay's wire models and PayQL's domain, with the
/// amount conversion (integer paise, exact).
enum RazorpayTransformers {
    static let provider = ProviderName.razorpay

    static func customerRequest(_ customer: CustomerDetails, gstin: String?, notes: [String: String],
                                failIfExists: Bool) throws(ProviderError) -> RazorpayCustomerRequest {
        if let name = customer.name, !(3...50).contains(name.count) {
            throw .invalid("name must be 3–50 characters", provider: provider, operation: "createCustomer", field: "name")
        }
        if let contact = customer.phone, contact.count > 15 {
            throw .invalid("contact must be at most 15 characters", provider: provider, operation: "createCustomer", field: "contact")
        }
        try checkNotes(notes, operation: "createCustomer")
        return RazorpayCustomerRequest(name: customer.name, contact: customer.phone, email: customer.email,
                                       fail_existing: failIfExists ? "1" : "0", gstin: gstin,
                                       notes: notes.isEmpty ? nil : notes)
    }

    static func customer(_ wire: RazorpayCustomer) -> ProviderCustomer {
        ProviderCustomer(provider: provider, id: wire.id, name: wire.name, email: wire.email, phone: wire.contact,
                         gstin: wire.gstin, notes: wire.notes?.values ?? [:])
    }

    static func bankAccountRequest(_ account: BankAccountDetails) -> RazorpayBankAccountRequest {
        let extra = account.beneficiary
        func line(_ index: Int) -> String? { index < extra.addressLines.count ? extra.addressLines[index] : nil }
        return RazorpayBankAccountRequest(account_number: account.accountNumber, ifsc_code: account.ifsc,
                                          beneficiary_name: account.beneficiaryName,
                                          beneficiary_address1: line(0), beneficiary_address2: line(1), beneficiary_address3: line(2),
                                          beneficiary_address4: line(3), beneficiary_email: extra.email, beneficiary_mobile: extra.mobile,
                                          beneficiary_city: extra.city, beneficiary_state: extra.state, beneficiary_country: extra.country,
                                          beneficiary_pin: extra.pin)
    }

    static func bankAccount(_ wire: RazorpayBankAccount) -> ProviderBankAccount {
        ProviderBankAccount(provider: provider, id: wire.id, maskedAccountNumber: wire.account_number,
                            ifsc: wire.ifsc, bankName: wire.bank_name, beneficiaryName: wire.name)
    }

    static func orderRequest(_ request: CreateOrderRequest, rules: AmountRules) throws(ProviderError) -> RazorpayOrderRequest {
        let operation = "createOrder"
        let paise: Int64
        do { paise = try AmountConversion.integerMinorUnits(request.amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "amount")
        }
        if request.reference.count > 40 {
            throw .invalid("receipt must be at most 40 characters", provider: provider, operation: operation, field: "receipt")
        }
        var tpv: RazorpayTPVAccount?
        if let account = request.tpvBankAccount {
            // TPV needs the method too (docs/providers/razorpay.md §3, Orders).
            guard request.method != nil else {
                throw .invalid("a TPV order needs a method (netbanking, card or upi)", provider: provider, operation: operation, field: "method")
            }
            tpv = RazorpayTPVAccount(account_number: account.accountNumber, name: account.beneficiaryName, ifsc: account.ifsc)
        }
        try checkNotes(request.notes, operation: operation)
        return RazorpayOrderRequest(amount: paise, currency: request.amount.currency.code, receipt: request.reference,
                                    notes: request.notes.isEmpty ? nil : request.notes,
                                    method: request.method?.rawValue, bank_account: tpv)
    }

    static func order(_ wire: RazorpayOrder, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderOrder {
        do {
            let amount = try AmountConversion.fromMinorUnits(wire.amount, currencyCode: wire.currency, rules: rules)
            let paid = try wire.amount_paid.map { (value: Int64) throws(AmountError) -> Amount in
                try AmountConversion.fromMinorUnits(value, currencyCode: wire.currency, rules: rules)
            }
            return ProviderOrder(provider: provider, id: wire.id, reference: wire.receipt, amount: amount, amountPaid: paid,
                                 status: RazorpayStatusMapping.order(wire.status), rawStatus: wire.status,
                                 checkout: .razorpay(orderID: wire.id), createdAt: wire.created_at.map(String.init))
        } catch {
            throw undocumentedAmount(error, operation: operation)
        }
    }

    static func payment(_ wire: RazorpayPayment, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderPayment {
        let amount: Amount
        do { amount = try AmountConversion.fromMinorUnits(wire.amount, currencyCode: wire.currency, rules: rules) } catch {
            throw undocumentedAmount(error, operation: operation)
        }
        let failure: PaymentFailure? = wire.error_code == nil && wire.error_description == nil ? nil
            : PaymentFailure(code: wire.error_code, description: wire.error_description, reason: wire.error_reason,
                             source: wire.error_source, step: wire.error_step)
        return ProviderPayment(provider: provider, id: wire.id, orderID: wire.order_id, amount: amount,
                               status: RazorpayStatusMapping.payment(wire.status, refundStatus: wire.refund_status),
                               rawStatus: wire.status, method: wire.method, failure: failure)
    }

    static func refundRequest(_ request: RefundRequest, rules: AmountRules) throws(ProviderError) -> RazorpayRefundRequest {
        var paise: Int64?
        if let amount = request.amount {
            do { paise = try AmountConversion.integerMinorUnits(amount, rules: rules) } catch {
                throw .amount(error, provider: provider, operation: "createRefund", field: "amount")
            }
        }
        var notes: [String: String]?
        if let note = request.note { notes = ["note": note] }
        // Razorpay takes `speed` `normal` (its default) or `optimum`: instant where possible, else normal (docs/providers/razorpay.md §3, Refunds) [H].
        let speed: String? = switch request.speed {
        case .normal?: "normal"
        case .instant?: "optimum"
        case nil: nil
        }
        return RazorpayRefundRequest(amount: paise, speed: speed, notes: notes, receipt: request.reference)
    }

    static func refund(_ wire: RazorpayRefund, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderRefund {
        var amount: Amount?
        if let paise = wire.amount {
            do { amount = try AmountConversion.fromMinorUnits(paise, currencyCode: wire.currency, rules: rules) } catch {
                throw undocumentedAmount(error, operation: operation)
            }
        }
        return ProviderRefund(provider: provider, id: wire.id, paymentID: wire.payment_id, reference: wire.receipt,
                              amount: amount, status: RazorpayStatusMapping.refund(wire.status), rawStatus: wire.status)
    }

    /// The error body (docs/providers/razorpay.md §4). Auth failures come back as 4xx whose
    /// description mentions authentication; idempotency-key misuse as a 400
    /// with the documented sentence.
    static func parseError(status: Int, body: [UInt8]) -> ParsedProviderError? {
        guard let envelope = WireCoding.decode(RazorpayErrorEnvelope.self, from: body) else { return nil }
        let error = envelope.error
        var override: ProviderError.Code?
        let description = error.description ?? ""
        let lowered = description.lowercased()
        if lowered.contains("authentication failed") || lowered.contains("api key") || lowered.contains("api_key") {
            override = .authenticationFailed
        } else if description.contains("same idempotency key") {
            override = .idempotencyConflict
        } else if status == 400, description.contains("does not exist") {
            // Razorpay answers an unknown id with 400 BAD_REQUEST_ERROR, not 404 [M].
            override = .notFound
        }
        func meaningful(_ text: String?) -> String? { text == nil || text == "NA" ? nil : text }
        return ParsedProviderError(code: error.code, message: error.description, reason: meaningful(error.reason),
                                   field: error.field, step: meaningful(error.step), source: meaningful(error.source),
                                   traceID: nil, override: override)
    }

    static func checkNotes(_ notes: [String: String], operation: String) throws(ProviderError) {
        if notes.count > 15 {
            throw .invalid("at most 15 notes", provider: provider, operation: operation, field: "notes")
        }
        if notes.values.contains(where: { $0.count > 256 }) {
            throw .invalid("a note value is longer than 256 characters", provider: provider, operation: operation, field: "notes")
        }
    }

    static func undocumentedAmount(_ error: AmountError, operation: String) -> ProviderError {
        ProviderError(.malformedResponse, provider: provider, operation: operation,
                      message: "the provider returned an amount PayQL cannot represent: \(error)")
    }
}
