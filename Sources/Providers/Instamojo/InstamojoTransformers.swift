public import PaymentsCore
/// Pure functions between Instamojo's wire models and the domain. Amounts are
/// decimal rupee strings, converted exactly.
enum InstamojoTransformers {
    static let provider = ProviderName.instamojo

    /// Form fields for `POST /v2/payment_requests/` (docs/providers/instamojo.md §3).
    static func paymentRequestFields(_ request: CreateOrderRequest, rules: AmountRules) throws(ProviderError) -> [(String, String)] {
        let operation = "createOrder"
        let rupees: String
        do { rupees = try AmountConversion.decimalText(request.amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "amount")
        }
        let purpose = request.description ?? request.reference
        guard !purpose.isEmpty else { throw .invalid("purpose is required", provider: provider, operation: operation, field: "purpose") }
        var fields: [(String, String)] = [("purpose", purpose), ("amount", rupees)]
        if let customer = request.customer {
            if let name = customer.name { fields.append(("buyer_name", name)) }
            if let email = customer.email { fields.append(("email", email)) }
            if let phone = customer.phone { fields.append(("phone", phone)) }
        }
        if let returnURL = request.returnURL { fields.append(("redirect_url", returnURL)) }
        if let notifyURL = request.notifyURL { fields.append(("webhook", notifyURL)) }
        // The reference contradicts itself on these defaults: always send them.
        fields += [("send_email", "false"), ("send_sms", "false"), ("allow_repeated_payments", "false")]
        return fields
    }

    /// Form fields for `POST /v2/gateway/orders/` (name, email, phone, currency, amount, transaction_id, redirect_url required).
    static func gatewayOrderFields(_ request: CreateOrderRequest, rules: AmountRules) throws(ProviderError) -> [(String, String)] {
        let operation = "createGatewayOrder"
        let rupees: String
        do { rupees = try AmountConversion.decimalText(request.amount, rules: rules) } catch {
            throw .amount(error, provider: provider, operation: operation, field: "amount")
        }
        guard let customer = request.customer, let name = customer.name, let email = customer.email, let phone = customer.phone else {
            throw .invalid("gateway orders need the customer's name, email and phone", provider: provider, operation: operation, field: "customer")
        }
        guard let redirect = request.returnURL else {
            throw .invalid("gateway orders need a redirect URL", provider: provider, operation: operation, field: "redirect_url")
        }
        guard !request.reference.isEmpty, request.reference.utf8.count <= 64 else {
            throw .invalid("transaction_id must be 1–64 characters", provider: provider, operation: operation, field: "transaction_id")
        }
        var fields: [(String, String)] = [
            ("name", name), ("email", email), ("phone", phone), ("currency", request.amount.currency.code),
            ("amount", rupees), ("transaction_id", request.reference), ("redirect_url", redirect),
        ]
        if let description = request.description { fields.append(("description", description)) }
        if let notifyURL = request.notifyURL { fields.append(("webhook_url", notifyURL)) }
        return fields
    }

    static func order(_ wire: InstamojoPaymentRequest, gatewayOrderID: String?, rules: AmountRules,
                      operation: String) throws(ProviderError) -> ProviderOrder {
        let amount = try decimal(wire.amount, currency: nil, rules: rules, operation: operation)
        let checkout: CheckoutData = wire.longurl.map { .instamojo(paymentURL: $0, gatewayOrderID: gatewayOrderID) } ?? .none
        return ProviderOrder(provider: provider, id: wire.id, reference: nil, amount: amount,
                             status: InstamojoStatusMapping.paymentRequest(wire.status), rawStatus: wire.status,
                             checkout: checkout, createdAt: wire.created_at)
    }

    static func gatewayOrder(_ wire: InstamojoGatewayOrder, paymentURL: String?, rules: AmountRules,
                             operation: String) throws(ProviderError) -> ProviderOrder {
        let amount = try decimal(wire.amount, currency: wire.currency, rules: rules, operation: operation)
        let checkout: CheckoutData = paymentURL.map { .instamojo(paymentURL: $0, gatewayOrderID: wire.id) } ?? .none
        return ProviderOrder(provider: provider, id: wire.id, reference: wire.transaction_id, amount: amount,
                             status: InstamojoStatusMapping.gatewayOrder(wire.status), rawStatus: wire.status,
                             checkout: checkout, createdAt: wire.created_at)
    }

    static func payment(_ wire: InstamojoPayment, orderID: String?, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderPayment {
        let amount = try decimal(wire.amount, currency: wire.currency, rules: rules, operation: operation)
        let raw = wire.status.map { $0 ? "true" : "false" } ?? "null"
        let failure = wire.failure.map { PaymentFailure(code: $0.reason, description: $0.message, reason: $0.reason) }
        return ProviderPayment(provider: provider, id: wire.id, orderID: orderID ?? wire.payment_request.flatMap(lastPathComponent),
                               amount: amount, status: InstamojoStatusMapping.payment(wire.status), rawStatus: raw,
                               method: wire.instrument_type, failure: failure)
    }

    static func refundFields(_ request: RefundRequest, reason: InstamojoRefundReason, rules: AmountRules) throws(ProviderError) -> [(String, String)] {
        let operation = "createRefund"
        guard !request.reference.isEmpty else {
            throw .invalid("transaction_id is required", provider: provider, operation: operation, field: "transaction_id")
        }
        var fields: [(String, String)] = [("type", reason.rawValue), ("body", request.note ?? "Refund \(request.reference)"),
                                          ("transaction_id", request.reference)]
        if let amount = request.amount {
            do { fields.append(("refund_amount", try AmountConversion.decimalText(amount, rules: rules))) } catch {
                throw .amount(error, provider: provider, operation: operation, field: "refund_amount")
            }
        }
        return fields
    }

    static func refund(_ wire: InstamojoRefund, reference: String?, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderRefund {
        let amount = try wire.refund_amount.map { (value: WireDecimal) throws(ProviderError) -> Amount in
            try decimal(value, currency: nil, rules: rules, operation: operation)
        }
        return ProviderRefund(provider: provider, id: wire.id, paymentID: wire.payment_id, reference: reference, amount: amount,
                              status: InstamojoStatusMapping.refund(wire.status), rawStatus: wire.status)
    }

    static func refundCase(_ wire: InstamojoRefundCase, rules: AmountRules, operation: String) throws(ProviderError) -> ProviderRefund {
        let amount = try wire.refund_amount.map { (value: WireDecimal) throws(ProviderError) -> Amount in
            try decimal(value, currency: nil, rules: rules, operation: operation)
        }
        return ProviderRefund(provider: provider, id: wire.id, paymentID: wire.payment.flatMap(lastPathComponent),
                              reference: wire.transaction_id, amount: amount,
                              status: InstamojoStatusMapping.refundCase(resolution: wire.resolution_status),
                              rawStatus: wire.resolution_status ?? "open")
    }

    static func paymentOptions(_ wire: InstamojoCheckoutOptions) -> PaymentOptions {
        let options = wire.payment_options
        func choices(_ list: InstamojoCheckoutOptions.Choices?) -> [PaymentOptions.Choice] {
            (list?.choices ?? []).map { PaymentOptions.Choice(id: $0.id.text, name: $0.name, imageURL: $0.image) }
        }
        // The SDK guide promises plans "sorted in ascending order wrt … tenure" (seed 002:L177); the
        // wire does not, so they are sorted here (a stable sort: equal tenures keep the provider's order).
        let emi = (options.emi_options?.emi_list ?? []).map { bank in
            PaymentOptions.EMIBank(code: bank.bank_code, name: bank.bank_name,
                                   plans: bank.rates.map { PaymentOptions.EMIPlan(tenureMonths: $0.tenure, interestRatePercent: $0.interest.text) }
                                       .enumerated().sorted { ($0.element.tenureMonths, $0.offset) < ($1.element.tenureMonths, $1.offset) }
                                       .map(\.element))
        }
        return PaymentOptions(cards: options.card_options != nil, netbankingBanks: choices(options.netbanking_options),
                              emiBanks: emi, wallets: choices(options.wallet_options), upi: options.upi_options != nil,
                              netbankingSubmissionURL: options.netbanking_options?.submission_url,
                              walletSubmissionURL: options.wallet_options?.submission_url)
    }

    /// Errors (docs/providers/instamojo.md §4): field-keyed arrays (400), `{"success":false,"message"}`
    /// (401), and OAuth2 `{"error": "..."}` from the token endpoint.
    static func parseError(status: Int, body: [UInt8]) -> ParsedProviderError? {
        if let tokenError = WireCoding.decode(InstamojoTokenError.self, from: body) {
            let override: ProviderError.Code = tokenError.error == "invalid_client" ? .authenticationFailed : .rejected
            return ParsedProviderError(code: tokenError.error, message: tokenError.error, override: override)
        }
        if let error = WireCoding.decode(InstamojoMessageError.self, from: body) {
            return ParsedProviderError(message: error.message)
        }
        if let fields = WireCoding.decode([String: [String]].self, from: body), let field = fields.keys.sorted().first {
            let message = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: " "))" }.joined(separator: "; ")
            return ParsedProviderError(code: "validation_error", message: message, field: field)
        }
        return nil
    }

    static func decimal(_ value: WireDecimal, currency: String?, rules: AmountRules, operation: String) throws(ProviderError) -> Amount {
        do {
            return try AmountConversion.fromDecimalText(value.text, currencyCode: currency, rules: rules, syntax: value.syntax)
        } catch {
            throw ProviderError(.malformedResponse, provider: provider, operation: operation,
                                message: "the provider returned an amount PayQL cannot represent: \(error)")
        }
    }

    /// `https://…/v2/payments/MOJO123/` → `MOJO123`.
    static func lastPathComponent(_ url: String) -> String? {
        url.split(separator: "/").last.map(String.init)
    }
}
