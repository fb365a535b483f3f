import Support
import Crypto

/// Orders, payments, refunds and Turbo UPI sessions (`/v1/orders…`, `/v1/payments…`, `/v1/refunds…`).
extension RazorpaySimulator {
    func createOrder(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            guard let amountValue = object["amount"], !amountValue.isNull else {
                throw RazorpayFailure(Self.error("The amount field is required.", field: "amount"))
            }
            let amountText: String? = switch amountValue {
            case .number(let n): n
            case .string(let s): s
            default: nil
            }
            guard let amountText, let amount = Int64(amountText) else {
                throw RazorpayFailure(Self.error("The amount must be an integer.", field: "amount"))
            }
            // The reference's own example (api/orders/create.md).
            guard amount >= 100 else {
                throw RazorpayFailure(Self.error("The amount must be at least INR 1.00", field: "amount"))
            }
            // docs/providers/razorpay.md §2 documents only the minimum; the maximum is ours (see `Razorpay.maximumAmount`).
            // Unsure: the live API's wording.
            guard amount <= Razorpay.maximumAmount else {
                throw RazorpayFailure(Self.error("Order amount exceeds maximum amount allowed.", field: "amount"))
            }
            guard let currency = object["currency"]?.stringValue, !currency.isEmpty else {
                throw RazorpayFailure(Self.error("The currency field is required.", field: "currency"))
            }
            // The sandbox speaks INR only (TPV and Turbo accept nothing else either).
            guard currency == "INR" else {
                throw RazorpayFailure(Self.error("Currency is not supported", field: "currency"))
            }
            let receipt = try optionalString(object, "receipt", limit: 40)
            let notes = try notes(object["notes"])
            var partial = false
            switch object["partial_payment"] {
            case nil, .null?: break
            case .bool(let flag)?: partial = flag
            case .string("1")?, .string("true")?, .number("1")?: partial = true
            case .string("0")?, .string("false")?, .number("0")?: partial = false
            default: throw RazorpayFailure(Self.error("The partial payment field must be true or false.", field: "partial_payment"))
            }
            let method = try optionalString(object, "method", limit: 20)
            if let method, !["netbanking", "card", "upi", "emandate", "nach"].contains(method) {
                throw RazorpayFailure(Self.error("Invalid payment method given: \(method)", field: "method"))
            }
            var tpvAccount: WireObject?
            if let account = object["bank_account"], !account.isNull {
                guard let fields = account.objectValue else {
                    throw RazorpayFailure(Self.error("The bank account must be an array.", field: "bank_account"))
                }
                for key in ["account_number", "name", "ifsc"] {
                    guard let value = fields[key]?.stringValue ?? fields[key]?.numberText, !value.isEmpty else {
                        throw RazorpayFailure(Self.error("The bank_account.\(key) field is required.", field: "bank_account.\(key)"))
                    }
                }
                if let ifsc = fields["ifsc"]?.stringValue, !isIFSC(ifsc) {
                    throw RazorpayFailure(Self.error("The bank_account.ifsc is invalid.", field: "bank_account.ifsc"))
                }
                // TPV orders name the method; the reference marks it required with bank_account.
                guard method != nil else {
                    throw RazorpayFailure(Self.error("The method field is required when bank account is present.", field: "method"))
                }
                tpvAccount = ["account_number": fields["account_number"] ?? .null, "name": fields["name"] ?? .null, "ifsc": fields["ifsc"] ?? .null]
            }
            let order = Razorpay.Order(id: Identifiers.razorpay("order"), amount: amount, currency: currency,
                                       receipt: receipt, notes: notes, createdAt: context.now, method: method,
                                       partialPayment: partial, bankAccount: tpvAccount)
            state.withLock { state in
                state.orders[order.id] = order
                state.orderSequence.append(order.id)
            }
            return .json(order.wire)
        } catch {
            return error.response
        }
    }

    /// The stored order with its `method` and TPV `bank_account` (for the control API).
    func inspect(orderID: String) -> WireObject? {
        state.withLock { state in
            guard let order = state.orders[orderID], var object = order.wire.objectValue else { return nil }
            object["method"] = .string(order.method)
            object["bank_account"] = order.bankAccount.map(Wire.object) ?? .null
            return object
        }
    }

    func fetchOrder(_ id: String) -> SandboxResponse {
        state.withLock { state in
            guard let order = state.orders[id] else { return Self.notFound() }
            return .json(order.wire)
        }
    }

    func listOrders(_ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let page = try paging(request)
            let from = request.queryValue("from").flatMap { Int64($0) }
            let to = request.queryValue("to").flatMap { Int64($0) }
            let receipt = request.queryValue("receipt")
            let authorizedOnly = request.queryValue("authorized") == "1"
            return state.withLock { state in
                let matching = state.orderSequence.reversed().compactMap { state.orders[$0] }.filter { order in
                    if let from, order.createdAt < from { return false }
                    if let to, order.createdAt > to { return false }
                    if let receipt, order.receipt != receipt { return false }
                    if authorizedOnly {
                        return state.payments.values.contains { $0.orderID == order.id && $0.status == "authorized" }
                    }
                    return true
                }
                return .json(Razorpay.collection(matching.dropFirst(page.skip).prefix(page.count).map(\.wire)))
            }
        } catch {
            return error.response
        }
    }

    func updateOrder(_ id: String, _ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            // Only notes can change; the live API's wording for extra fields.
            if let extra = object.keys.first(where: { $0 != "notes" }) {
                throw RazorpayFailure(Self.error("\(extra) is/are not required and should not be sent", field: extra))
            }
            let newNotes = try notes(object["notes"])
            return state.withLock { state in
                guard var order = state.orders[id] else { return Self.notFound() }
                order.notes = newNotes
                state.orders[id] = order
                return .json(order.wire)
            }
        } catch {
            return error.response
        }
    }

    func orderPayments(_ id: String) -> SandboxResponse {
        state.withLock { state in
            guard state.orders[id] != nil else { return Self.notFound() }
            let items = state.paymentSequence.reversed().compactMap { state.payments[$0] }.filter { $0.orderID == id }
            return .json(Razorpay.collection(items.map(\.wire)))
        }
    }

    func listPayments(_ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let page = try paging(request)
            return state.withLock { state in
                let items = state.paymentSequence.reversed().dropFirst(page.skip).prefix(page.count)
                    .compactMap { state.payments[$0]?.wire }
                return .json(Razorpay.collection(items))
            }
        } catch {
            return error.response
        }
    }

    func fetchPayment(_ id: String) -> SandboxResponse {
        state.withLock { state in
            guard let payment = state.payments[id] else { return Self.notFound() }
            return .json(payment.wire)
        }
    }

    /// `POST /v1/payments/{id}/capture` with `{amount, currency}` equal to the authorized payment.
    func capture(paymentID: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SimulatorResult {
        do throws(RazorpayFailure) {
            let object = try body(request)
            guard let amountText = object["amount"]?.numberText ?? object["amount"]?.stringValue else {
                throw RazorpayFailure(Self.error("The amount field is required.", field: "amount"))
            }
            guard let amount = Int64(amountText) else {
                throw RazorpayFailure(Self.error("The amount must be an integer.", field: "amount"))
            }
            guard let currency = object["currency"]?.stringValue else {
                throw RazorpayFailure(Self.error("The currency field is required.", field: "currency"))
            }
            return try state.withLock { state throws(RazorpayFailure) -> SimulatorResult in
                guard var payment = state.payments[paymentID] else { throw RazorpayFailure(Self.notFound()) }
                switch payment.status {
                case "authorized": break
                case "captured", "refunded":
                    throw RazorpayFailure(Self.error("This payment has already been captured", source: "NA", step: "NA", reason: "NA"))
                default:
                    throw RazorpayFailure(Self.error("Only payments which have been authorized and not yet captured can be captured",
                                                     source: "NA", step: "NA", reason: "NA"))
                }
                guard amount == payment.amount else {
                    throw RazorpayFailure(Self.error("Capture amount must be equal to the amount authorized", field: "amount"))
                }
                guard currency == payment.currency else {
                    throw RazorpayFailure(Self.error("The currency should be same as the payment currency", field: "currency"))
                }
                payment.status = "captured"
                payment.captured = true
                state.payments[paymentID] = payment
                var webhooks = [event("payment.captured", payment: payment, order: nil, context)]
                if var order = state.orders[payment.orderID] {
                    order.amountPaid = min(order.amount, order.amountPaid + payment.amount)
                    order.status = "paid"
                    state.orders[order.id] = order
                    webhooks.append(event("order.paid", payment: payment, order: order, context))
                }
                return SimulatorResult(.json(payment.wire), webhooks: webhooks)
            }
        } catch {
            return SimulatorResult(error.response)
        }
    }

    /// `POST /v1/payments/{id}/refund` and `POST /v1/refunds`.
    func createRefund(paymentID: String, _ request: SandboxRequest, _ context: SimulatorContext) -> SimulatorResult {
        do throws(RazorpayFailure) {
            let object = try body(request)
            var amount: Int64?
            if let value = object["amount"], !value.isNull {
                guard let text = value.numberText ?? value.stringValue, let parsed = Int64(text) else {
                    throw RazorpayFailure(Self.error("The amount must be an integer.", field: "amount"))
                }
                guard parsed >= 100 else {
                    throw RazorpayFailure(Self.error("The amount must be at least INR 1.00", field: "amount"))
                }
                amount = parsed
            }
            let speed = try optionalString(object, "speed", limit: 10)
            if let speed, speed != "normal", speed != "optimum" {
                throw RazorpayFailure(Self.error("The selected speed is invalid.", field: "speed"))
            }
            let receipt = try optionalString(object, "receipt", limit: 40)
            let refundNotes = try notes(object["notes"])
            let key = request.header("x-refund-idempotency")
            if let key {
                let valid = key.count >= 10 && key.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
                // Unsure: the live API's wording for a malformed key.
                guard valid else { throw RazorpayFailure(Self.error("The idempotency key is invalid.", source: "NA", step: "NA", reason: "NA")) }
            }
            let fingerprint = Crypto.hash(.sha256, Array(paymentID.utf8) + [0x0A] + request.body)
            return try state.withLock { state throws(RazorpayFailure) -> SimulatorResult in
                if let key, let previous = state.refundKeys[key] {
                    guard Crypto.constantTimeEquals(previous.fingerprint, fingerprint),
                          let refund = state.refunds[previous.refundID] else {
                        // samples/razorpay/error_refund_idempotency.json
                        throw RazorpayFailure(Self.error("Different request with the same idempotency key has already been processed.",
                                                         source: "NA", step: "NA", reason: "NA"))
                    }
                    return SimulatorResult(.json(refund.wire))
                }
                guard var payment = state.payments[paymentID] else { throw RazorpayFailure(Self.notFound()) }
                guard payment.captured else {
                    // Unsure: live wording.
                    throw RazorpayFailure(Self.error("The payment has not been captured yet and cannot be refunded",
                                                     source: "NA", step: "NA", reason: "NA"))
                }
                let remaining = payment.amount - payment.amountRefunded
                let refundAmount = amount ?? remaining
                guard refundAmount > 0, refundAmount <= remaining else {
                    throw RazorpayFailure(Self.error("The total refund amount is greater than the refund payment amount",
                                                     field: "amount"))
                }
                let refund = Razorpay.Refund(id: Identifiers.razorpay("rfnd"), paymentID: paymentID, amount: refundAmount,
                                             currency: payment.currency, notes: refundNotes, receipt: receipt,
                                             createdAt: context.now, speedRequested: speed, arn: Identifiers.digits(14))
                payment.amountRefunded += refundAmount
                if payment.amountRefunded == payment.amount { payment.status = "refunded" }
                state.payments[paymentID] = payment
                state.refunds[refund.id] = refund
                state.refundSequence.append(refund.id)
                if let key { state.refundKeys[key] = (fingerprint, refund.id) }
                let webhooks = [refundEvent("refund.created", refund: refund, payment: payment, context),
                                refundEvent("refund.processed", refund: refund, payment: payment, context)]
                return SimulatorResult(.json(refund.wire), webhooks: webhooks)
            }
        } catch {
            return SimulatorResult(error.response)
        }
    }

    func fetchRefund(_ id: String, paymentID: String?) -> SandboxResponse {
        state.withLock { state in
            guard let refund = state.refunds[id], paymentID == nil || refund.paymentID == paymentID else { return Self.notFound() }
            return .json(refund.wire)
        }
    }

    func paymentRefunds(_ paymentID: String) -> SandboxResponse {
        state.withLock { state in
            guard state.payments[paymentID] != nil else { return Self.notFound() }
            let items = state.refundSequence.reversed().compactMap { state.refunds[$0] }.filter { $0.paymentID == paymentID }
            return .json(Razorpay.collection(items.map(\.wire)))
        }
    }

    func updateRefund(_ id: String, _ request: SandboxRequest) -> SandboxResponse {
        do throws(RazorpayFailure) {
            let object = try body(request)
            let newNotes = try notes(object["notes"])
            return state.withLock { state in
                guard let refund = state.refunds[id] else { return Self.notFound() }
                let updated = Razorpay.Refund(id: refund.id, paymentID: refund.paymentID, amount: refund.amount,
                                              currency: refund.currency, notes: newNotes, receipt: refund.receipt,
                                              createdAt: refund.createdAt, speedRequested: refund.speedRequested,
                                              status: refund.status, arn: refund.arn)
                state.refunds[id] = updated
                return .json(updated.wire)
            }
        } catch {
            return error.response
        }
    }

    /// `POST /v1/upi/turbo/customer/session` → `{token, expire_at}` (15 minutes).
    func turboSession(_ request: SandboxRequest, _ context: SimulatorContext) -> SandboxResponse {
        let object = request.jsonObject() ?? WireObject()
        guard let reference = object["customer_reference"]?.stringValue ?? object["customer_reference"]?.numberText,
              !reference.isEmpty else {
            // samples/razorpay/error_turbo_session.json
            return Self.error("customer_reference is required", source: "customer", step: "CreateSession",
                              reason: "customer_reference_field_is_missing")
        }
        return .json(.object(["token": .string("turbo_" + Identifiers.base62(40)), "expire_at": .int(context.now + 900)]))
    }
}
