import Support

/// Payment requests, gateway orders, payments and refunds (`/v2/...`).
extension InstamojoSimulator {
    static let paymentRequestRange: ClosedRange<Int64> = 900...20_000_000

    func createPaymentRequest(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.formOrJSON() else { return Self.message("Invalid request body.", status: 400) }
        var f = InstamojoFields(object)
        let purpose = f.required("purpose", max: 255)
        // 9 – 200000 rupees (v2 reference, Create a Payment Request).
        let amount = f.amount("amount", required: true, range: Self.paymentRequestRange)
        let buyerName = f.optional("buyer_name", max: 100)
        let email = f.email("email", required: false)
        let phone = f.phone("phone", required: false)
        let sendEmail = f.bool("send_email", default: false)
        let sendSMS = f.bool("send_sms", default: false)
        let redirect = f.url("redirect_url", required: false)
        let webhook = f.url("webhook", required: false)
        let repeated = f.bool("allow_repeated_payments", default: false)
        let fulfilled = f.bool("mark_fulfilled", default: true)
        let expiresAt = f.optional("expires_at", max: 64)
        if sendEmail, f.text("email") == nil { f.errors.add("email", "This field is required when send_email is true.") }
        if sendSMS, f.text("phone") == nil { f.errors.add("phone", "This field is required when send_sms is true.") }
        guard f.errors.isEmpty, let purpose, let amount else { return f.errors.response }
        let now = context.nowMilliseconds
        let paymentRequest = Instamojo.PaymentRequest(
            id: Identifiers.hex(32), phone: phone, email: email, buyerName: buyerName, amount: amount, purpose: purpose,
            sendSMS: sendSMS, sendEmail: sendEmail, redirectURL: redirect, webhook: webhook,
            allowRepeatedPayments: repeated, createdAt: now, modifiedAt: now, expiresAt: expiresAt, markFulfilled: fulfilled)
        state.withLock { state in
            state.paymentRequests[paymentRequest.id] = paymentRequest
            state.paymentRequestSequence.append(paymentRequest.id)
        }
        return .json(paymentRequest.wire(root: context.rootURL), status: 201)
    }

    func fetchPaymentRequest(_ id: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            guard let found = state.paymentRequests[id] else { return Self.notFound() }
            return .json(found.wire(root: context.rootURL))
        }
    }

    /// Unsure: the list envelope is not in the reference; `{"payment_requests":[...],"count":n}` here.
    func listPaymentRequests(_ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            let items = state.paymentRequestSequence.reversed().compactMap { state.paymentRequests[$0]?.wire(root: context.rootURL) }
            return .json(.object(["payment_requests": .array(items), "count": .int(Int64(items.count))]))
        }
    }

    func toggle(_ id: String, enabled: Bool) -> SandboxResponse {
        state.withLock { state in
            guard var found = state.paymentRequests[id] else { return Self.notFound() }
            found.enabled = enabled
            state.paymentRequests[id] = found
            return .json(.object(["success": true]))
        }
    }

    func createOrder(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.formOrJSON() else { return Self.message("Invalid request body.", status: 400) }
        var f = InstamojoFields(object)
        let name = f.required("name", max: 100)
        let email = f.email("email", required: true)
        let phone = f.phone("phone", required: true)
        let currency = f.required("currency", max: 3)
        if let currency, currency != "INR" { f.errors.add("currency", "\"\(currency)\" is not a valid choice.") }
        // docs/providers/instamojo.md §2 gives no limit for gateway orders (only 9–200000 for payment requests);
        // the sandbox takes ₹1 to ₹10 crore.
        let amount = f.amount("amount", required: true, range: 100...10_000_000_000)
        let transactionID = f.required("transaction_id", max: 64)
        if let transactionID, !transactionID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            f.errors.add("transaction_id", "Enter a valid transaction_id.")
        }
        let redirect = f.url("redirect_url", required: true)
        if let redirect, redirect.contains("?") { f.errors.add("redirect_url", "Query parameters are not allowed in redirect_url.") }
        let description = f.optional("description", max: 255)
        let webhook = f.url("webhook_url", required: false)
        guard f.errors.isEmpty, let name, let email, let phone, let currency, let amount, let transactionID, let redirect else {
            return f.errors.response
        }
        let order = Instamojo.GatewayOrder(id: Identifiers.hex(32), transactionID: transactionID, currency: currency,
                                           amount: amount, name: name, email: email, phone: phone, description: description,
                                           redirectURL: redirect, webhookURL: webhook, createdAt: context.nowMilliseconds,
                                           paymentRequestID: nil)
        return state.withLock { state in
            // Unsure: status and wording for a reused transaction_id (the reference says only "unique").
            guard state.ordersByTransaction[transactionID] == nil else {
                var errors = FieldErrors()
                errors.add("transaction_id", "Transaction with this transaction_id already exists.")
                return errors.response
            }
            state.orders[order.id] = order
            state.orderSequence.append(order.id)
            state.ordersByTransaction[transactionID] = order.id
            let paymentURL = context.rootURL + SandboxProvider.instamojo.basePath + "/@sandbox/\(order.id)"
            return .json(.object(["order": order.wire(root: context.rootURL),
                                  "payment_options": .object(["payment_url": .string(paymentURL)])]), status: 201)
        }
    }

    /// `POST /v2/gateway/orders/payment-request/` with form field `id` → `{order_id, name, email, phone, amount}`.
    func orderFromPaymentRequest(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        var f = InstamojoFields(request.formOrJSON() ?? WireObject())
        guard let id = f.required("id") else { return f.errors.response }
        return state.withLock { state in
            guard let paymentRequest = state.paymentRequests[id] else {
                var errors = FieldErrors()
                errors.add("id", "Payment request not found.")
                return errors.response
            }
            let order = Instamojo.GatewayOrder(
                id: Identifiers.uuid(), transactionID: nil, currency: "INR", amount: paymentRequest.amount,
                name: paymentRequest.buyerName ?? "", email: paymentRequest.email ?? "", phone: paymentRequest.phone ?? "",
                description: paymentRequest.purpose, redirectURL: paymentRequest.redirectURL,
                webhookURL: paymentRequest.webhook, createdAt: context.nowMilliseconds, paymentRequestID: id)
            state.orders[order.id] = order
            state.orderSequence.append(order.id)
            return .json(.object(["order_id": .string(order.id), "name": .string(order.name), "email": .string(order.email),
                                  "phone": .string(order.phone), "amount": .string(Money.twoDecimals(order.amount))]),
                         status: 201)
        }
    }

    /// `id:{id}` or `transaction_id:{txn}`.
    func fetchOrder(_ selector: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            let order: Instamojo.GatewayOrder?
            if selector.hasPrefix("id:") {
                order = state.orders[String(selector.dropFirst(3))]
            } else if selector.hasPrefix("transaction_id:") {
                order = state.ordersByTransaction[String(selector.dropFirst(15))].flatMap { state.orders[$0] }
            } else {
                order = nil
            }
            guard let order else { return Self.notFound() }
            return .json(order.wire(root: context.rootURL))
        }
    }

    /// `?page=&limit=&id=&transaction_id=` (50 a page by default, at most 500).
    /// Unsure: the envelope (`{"orders":[...],"count":n}` here; the Java SDK reads `orders`).
    func listOrders(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        let limit = min(500, max(1, Int(request.queryValue("limit") ?? "50") ?? 50))
        let page = max(1, Int(request.queryValue("page") ?? "1") ?? 1)
        let id = request.queryValue("id")
        let transaction = request.queryValue("transaction_id")
        return state.withLock { state in
            let all = state.orderSequence.reversed().compactMap { state.orders[$0] }
                .filter { (id == nil || $0.id == id) && (transaction == nil || $0.transactionID == transaction) }
            // `page` is the client's: a huge one would overflow the product, so it saturates (an empty page).
            let (skip, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
            let items = all.dropFirst(overflow ? Int.max : skip).prefix(limit).map { $0.wire(root: context.rootURL) }
            return .json(.object(["orders": .array(Array(items)), "count": .int(Int64(all.count))]))
        }
    }

    func fetchPayment(_ id: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            guard let payment = state.payments[id] else { return Self.notFound() }
            return .json(payment.wire(root: context.rootURL))
        }
    }

    /// `POST /v2/payments/{id}/refund/`: `type`, `body`, optional `refund_amount`, `transaction_id`.
    func createRefund(_ paymentID: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.formOrJSON() else { return Self.message("Invalid request body.", status: 400) }
        var f = InstamojoFields(object)
        let type = f.required("type", max: 3)
        if let type, !Instamojo.refundTypes.contains(type) { f.errors.add("type", "\"\(type)\" is not a valid choice.") }
        let body = f.required("body", max: 1000)
        let amount = f.amount("refund_amount", required: false, range: 1...Money.maximumPaise)
        let transactionID = f.required("transaction_id", max: 64)
        guard f.errors.isEmpty, let type, let body, let transactionID else { return f.errors.response }
        let requestedText = f.text("refund_amount")
        return state.withLock { state in
            guard var payment = state.payments[paymentID] else { return Self.notFound() }
            guard payment.status == true else { return Self.message("Refunds can only be created for successful payments.", status: 400) }
            // A second case on the same payment needs a new transaction_id (replay protection).
            if payment.cases.contains(where: { state.cases[$0]?.transactionID == transactionID }) {
                return Self.message("A refund with this transaction_id already exists for this payment.", status: 400)
            }
            let refundAmount = amount ?? (payment.amount - payment.refunded)
            guard refundAmount > 0, refundAmount <= payment.amount - payment.refunded else {
                var errors = FieldErrors()
                errors.add("refund_amount", "Ensure this value is less than or equal to \(Money.twoDecimals(payment.amount - payment.refunded)).")
                return errors.response
            }
            let refundCase = Instamojo.RefundCase(
                id: "C" + Identifiers.hex(9), paymentID: paymentID, type: type, body: body,
                requestedAmount: requestedText ?? Money.twoDecimals(refundAmount), amount: refundAmount,
                totalAmount: payment.amount, transactionID: transactionID, createdAt: context.nowMilliseconds,
                refundID: Identifiers.uuid(), bankReference: Identifiers.base62(10).uppercased())
            payment.refunded += refundAmount
            payment.cases.append(refundCase.id)
            state.payments[paymentID] = payment
            state.cases[refundCase.id] = refundCase
            return .json(refundCase.createWire, status: 201)
        }
    }

    func fetchCase(_ id: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            guard let found = state.cases[id] else { return Self.notFound() }
            return .json(found.caseWire(root: context.rootURL))
        }
    }
}
