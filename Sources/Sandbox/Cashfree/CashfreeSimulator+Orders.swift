import Crypto
import Support

/// Orders, payments and refunds (`/orders…`).
extension CashfreeSimulator {
    static let paymentMethodCodes: Set<String> = ["cc", "dc", "ccc", "ppc", "nb", "upi", "paypal", "app", "paylater",
                                                   "cardlessemi", "dcemi", "ccemi", "banktransfer", "applepay"]

    func createOrder(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        do throws(CashfreeFailure) {
            guard let object = request.jsonObject() else { throw CashfreeFailure(Self.error("invalid JSON body", code: "request_failed")) }
            guard let amountValue = object["order_amount"], !amountValue.isNull else { throw Self.missing("order_amount") }
            // A JSON number in rupees, at least 1, exact to the paisa (10.101 is refused).
            guard let amountText = amountValue.numberText, let amount = Money.paise(fromDecimal: amountText), amount >= 100 else {
                throw Self.invalid("order_amount")
            }
            guard let currency = object["order_currency"]?.stringValue, !currency.isEmpty else { throw Self.missing("order_currency") }
            guard currency == "INR" else { throw Self.invalid("order_currency") }
            guard let customer = object["customer_details"], !customer.isNull else { throw Self.missing("customer_details") }
            guard let details = customer.objectValue else { throw Self.invalid("customer_details") }
            let customerDetails = try validateCustomer(details)
            var orderID = "order_" + Identifiers.base62(24)  // Cashfree generates one when absent
            if let given = object["order_id"], !given.isNull {
                guard let text = given.stringValue, (3...45).contains(text.count),
                      text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                    throw Self.invalid("order_id")
                }
                orderID = text
            }
            let meta = try validateMeta(object["order_meta"], orderID: orderID)
            var expiry = context.now + 30 * 86_400
            var expiryText = Clock.istISO(expiry)
            if let value = object["order_expiry_time"], !value.isNull {
                guard let text = value.stringValue, let parsed = Clock.parseISO(text), parsed > context.now else {
                    throw Self.invalid("order_expiry_time")
                }
                expiry = parsed
                expiryText = text
            }
            let note = try optionalText(object, "order_note", 3...200, field: "order_note")
            var tags: Wire = .null
            if let value = object["order_tags"], !value.isNull {
                guard let object = value.objectValue, object.count <= 10,
                      object.members.allSatisfy({ (1...255).contains($0.value.stringValue?.count ?? 0) && $0.key.count <= 255 }) else {
                    throw Self.invalid("order_tags")
                }
                tags = value
            }
            let finalOrderID = orderID
            let finalMeta = meta
            let finalTags = tags
            return state.withLock { state -> SandboxResponse in
                guard state.orders[finalOrderID] == nil else {
                    // samples/cashfree/error_409.json
                    return Self.error("order with same id is already present", code: "order_already_exists", status: 409, help: false)
                }
                let order = Cashfree.Order(
                    cfOrderID: String(state.nextCfOrderID), orderID: finalOrderID, currency: currency, amount: amount,
                    paymentSessionID: "session_" + Identifiers.base62(100), expiry: expiry, expiryText: expiryText,
                    note: note, createdAt: context.now, customerDetails: customerDetails, orderMeta: finalMeta,
                    orderTags: finalTags)
                state.nextCfOrderID += 1
                state.orders[order.orderID] = order
                state.orderSequence.append(order.orderID)
                return .json(order.wire)
            }
        } catch {
            return error.response
        }
    }

    private func validateCustomer(_ details: WireObject) throws(CashfreeFailure) -> WireObject {
        guard let id = details["customer_id"]?.stringValue else { throw Self.missing("customer_details.customer_id") }
        guard (3...50).contains(id.count),
              id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw Self.invalid("customer_details.customer_id")
        }
        guard let phone = details["customer_phone"]?.stringValue else { throw Self.missing("customer_details.customer_phone") }
        guard isCashfreePhone(phone) else { throw Self.invalid("customer_details.customer_phone") }
        let email = try optionalText(details, "customer_email", 3...100, field: "customer_details.customer_email")
        if let email, !isPlausibleEmail(email) { throw Self.invalid("customer_details.customer_email") }
        let name = try optionalText(details, "customer_name", 3...100, field: "customer_details.customer_name")
        var echo: WireObject = ["customer_id": .string(id), "customer_name": .string(name), "customer_email": .string(email),
                                "customer_phone": .string(phone), "customer_uid": .string(details["customer_uid"]?.stringValue)]
        for key in ["customer_bank_account_number", "customer_bank_ifsc", "customer_bank_code"] {
            if let value = details[key], !value.isNull { echo[key] = value }
        }
        if let account = details["customer_bank_account_number"]?.stringValue, !(3...20).contains(account.count) {
            throw Self.invalid("customer_details.customer_bank_account_number")
        }
        return echo
    }

    /// `order_meta`: `return_url` (≤ 250), `notify_url` (https, ≤ 250 — the sandbox also
    /// takes http on loopback), `payment_methods` (comma list of known codes).
    private func validateMeta(_ value: Wire?, orderID: String) throws(CashfreeFailure) -> WireObject {
        var meta: WireObject = ["return_url": .null, "notify_url": .null, "payment_methods": .null]
        guard let value, !value.isNull else { return meta }
        guard let object = value.objectValue else { throw Self.invalid("order_meta") }
        if let url = object["return_url"], !url.isNull {
            guard let text = url.stringValue, text.count <= 250, text.hasPrefix("https://") || text.hasPrefix("http://") else {
                throw Self.invalid("order_meta.return_url")
            }
            meta["return_url"] = .string(text.replacingAll("{order_id}", with: orderID))
        }
        if let url = object["notify_url"], !url.isNull {
            guard let text = url.stringValue, text.count <= 250, text.hasPrefix("https://") || isLoopbackURL(text) else {
                throw Self.invalid("order_meta.notify_url")
            }
            meta["notify_url"] = .string(text)
        }
        if let methods = object["payment_methods"], !methods.isNull {
            guard let text = methods.stringValue,
                  text.split(separator: ",").allSatisfy({ Self.paymentMethodCodes.contains($0.trimmingSpaces()) }) else {
                throw Self.invalid("order_meta.payment_methods")
            }
            meta["payment_methods"] = .string(text)
        }
        return meta
    }

    /// An order with a lapsed expiry reads as `EXPIRED`.
    private func current(_ order: Cashfree.Order, now: Int64) -> Cashfree.Order {
        var order = order
        if order.status == "ACTIVE", now > order.expiry { order.status = "EXPIRED" }
        return order
    }

    /// The stored order as `GET /orders/{id}` shows it (its `customer_details` carry the TPV fields).
    func inspect(orderID: String) -> WireObject? {
        state.withLock { state in state.orders[orderID]?.wire.objectValue }
    }

    func fetchOrder(_ id: String, _ context: SimulatorContext) -> SandboxResponse {
        state.withLock { state in
            guard let stored = state.orders[id] else { return Self.orderNotFound() }
            let order = current(stored, now: context.now)
            state.orders[id] = order
            return .json(order.wire)
        }
    }

    /// `PATCH /orders/{id}` with `{"order_status":"TERMINATED"}`.
    func terminateOrder(_ id: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        guard let object = request.jsonObject() else { return Self.error("invalid JSON body", code: "request_failed") }
        guard object["order_status"]?.stringValue == "TERMINATED" else { return Self.invalid("order_status").response }
        return state.withLock { state in
            guard let stored = state.orders[id] else { return Self.orderNotFound() }
            var order = current(stored, now: context.now)
            // Unsure: the live wording for terminating a non-active order.
            guard order.status == "ACTIVE" else {
                return Self.error("order with status \(order.status) cannot be terminated", code: "order_status_invalid")
            }
            order.status = "TERMINATED"
            state.orders[id] = order
            return .json(order.wire)
        }
    }

    func orderPayments(_ id: String) -> SandboxResponse {
        state.withLock { state in
            guard state.orders[id] != nil else { return Self.orderNotFound() }
            return .json(.array(state.paymentSequence.compactMap { state.payments[$0] }.filter { $0.orderID == id }.map(\.wire)))
        }
    }

    func fetchPayment(_ orderID: String, _ paymentID: String) -> SandboxResponse {
        state.withLock { state in
            guard state.orders[orderID] != nil else { return Self.orderNotFound() }
            guard let payment = state.payments[paymentID], payment.orderID == orderID else {
                return Self.error("payment not found for this order", code: "payment_not_found", status: 404, help: false)
            }
            return .json(payment.wire)
        }
    }

    // MARK: Refunds

    /// `POST /orders/{id}/refunds`. In Cashfree's sandbox `refund_note` picks the
    /// outcome (`SUCCESS`, `FAILED`, `PENDING`, `CANCELLED`; default here `SUCCESS`).
    func createRefund(_ orderID: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SimulatorResult {
        do throws(CashfreeFailure) {
            guard let object = request.jsonObject() else { throw CashfreeFailure(Self.error("invalid JSON body", code: "request_failed")) }
            guard let amountValue = object["refund_amount"], !amountValue.isNull else { throw Self.missing("refund_amount") }
            guard let text = amountValue.numberText, let amount = Money.paise(fromDecimal: text), amount > 0 else {
                throw Self.invalid("refund_amount")
            }
            guard let refundID = object["refund_id"]?.stringValue else { throw Self.missing("refund_id") }
            guard (3...40).contains(refundID.count),
                  refundID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                throw Self.invalid("refund_id")
            }
            let note = try optionalText(object, "refund_note", 3...100, field: "refund_note")
            let speed = object["refund_speed"]?.stringValue ?? "STANDARD"
            guard speed == "STANDARD" || speed == "INSTANT" else { throw Self.invalid("refund_speed") }
            let outcome: String = switch note?.uppercased() {
            case "FAILED"?: "FAILED"
            case "PENDING"?, "ACTIVE"?: "PENDING"
            case "CANCELLED"?: "CANCELLED"
            default: "SUCCESS"
            }
            return try state.withLock { state throws(CashfreeFailure) -> SimulatorResult in
                guard let order = state.orders[orderID] else { throw CashfreeFailure(Self.orderNotFound()) }
                guard order.status == "PAID",
                      let payment = state.paymentSequence.compactMap({ state.payments[$0] })
                          .first(where: { $0.orderID == orderID && $0.status == "SUCCESS" }) else {
                    // Unsure: live wording for refunding an unpaid order.
                    throw CashfreeFailure(Self.error("refund can only be created for a PAID order", code: "request_failed"))
                }
                var existing = state.refunds[orderID] ?? [:]
                guard existing[refundID] == nil else {
                    throw CashfreeFailure(Self.error("refund with same id is already present", code: "refund_already_exists",
                                                     status: 409, help: false))
                }
                let refunded = existing.values.filter { $0.status != "FAILED" && $0.status != "CANCELLED" }.reduce(0) { $0 + $1.amount }
                guard amount <= order.paidAmount - refunded else { throw Self.invalid("refund_amount") }
                let refund = Cashfree.Refund(cfRefundID: String(state.nextCfRefundID), cfPaymentID: payment.cfPaymentID,
                                             orderID: orderID, refundID: refundID, amount: amount, currency: order.currency,
                                             note: note, status: outcome, speed: speed, createdAt: context.now,
                                             processedAt: outcome == "PENDING" ? nil : context.now, arn: Identifiers.digits(12))
                state.nextCfRefundID += 1
                existing[refundID] = refund
                state.refunds[orderID] = existing
                state.refundSequence.append(orderID + "/" + refundID)
                let webhooks = outcome == "PENDING" ? [] : [refundWebhook(refund, order: order, context)]
                return SimulatorResult(.json(refund.wire), webhooks: webhooks)
            }
        } catch {
            return SimulatorResult(error.response)
        }
    }

    func orderRefunds(_ orderID: String) -> SandboxResponse {
        state.withLock { state in
            guard state.orders[orderID] != nil else { return Self.orderNotFound() }
            let refunds = state.refundSequence.filter { $0.hasPrefix(orderID + "/") }
                .compactMap { state.refunds[orderID]?[String($0.dropFirst(orderID.count + 1))] }
            return .json(.array(refunds.map(\.wire)))
        }
    }

    func fetchRefund(_ orderID: String, _ refundID: String) -> SandboxResponse {
        state.withLock { state in
            guard state.orders[orderID] != nil else { return Self.orderNotFound() }
            guard let refund = state.refunds[orderID]?[refundID] else {
                return Self.error("refund not found for this order", code: "refund_not_found", status: 404, help: false)
            }
            return .json(refund.wire)
        }
    }
}
