import Support
import Crypto

/// Finishing payments from the control API, and Cashfree's signed webhooks.
extension CashfreeSimulator {
    /// `paid`, `failed`, `user_dropped` or `expired`.
    func complete(orderID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        guard let outcome = completionStatus(body), ["paid", "failed", "user_dropped", "expired"].contains(outcome) else {
            return .refused(status: 400, message: "cashfree: \"status\" must be paid, failed, user_dropped or expired")
        }
        let group = body["method"]?.stringValue ?? "upi"
        guard let method = Cashfree.paymentMethod(group: group, failed: outcome != "paid") else {
            return .refused(status: 400, message: "cashfree: method must be upi, credit_card, debit_card, prepaid_card, net_banking or wallet")
        }
        return state.withLock { state -> ControlOutcome in
            guard var order = state.orders[orderID] else { return .refused(status: 404, message: "cashfree: no order \(orderID)") }
            if order.status == "ACTIVE", context.now > order.expiry { order.status = "EXPIRED" }
            guard order.status == "ACTIVE" else {
                return .refused(status: 409, message: "cashfree: order \(orderID) is \(order.status)")
            }
            if outcome == "expired" {
                order.status = "EXPIRED"
                state.orders[orderID] = order
                return .done(["provider": "cashfree", "order": order.wire, "payment": .null], [])
            }
            let status: String
            let message: String
            var error: WireObject?
            switch outcome {
            case "paid":
                status = "SUCCESS"
                message = "00::Transaction success"
            case "failed":
                status = "FAILED"
                message = "Transaction failed"
                error = ["error_code": "TRANSACTION_DECLINED", "error_description": "issuer bank declined",
                         "error_reason": "auth_declined", "error_source": "customer"]
            default:
                status = "USER_DROPPED"
                message = "User dropped and did not complete the two factor authentication"
                error = ["error_code": "TRANSACTION_DROPPED", "error_description": "user dropped",
                         "error_reason": "user_dropped", "error_source": "customer"]
            }
            let payment = Cashfree.Payment(
                cfPaymentID: String(state.nextCfPaymentID), orderID: orderID, orderAmount: order.amount, amount: order.amount,
                currency: order.currency, status: status, message: message, group: group, method: method,
                time: max(order.createdAt, context.now - 9), completionTime: context.now,
                bankReference: status == "SUCCESS" ? Identifiers.digits(12) : nil, error: error)
            state.nextCfPaymentID += 1
            state.payments[payment.cfPaymentID] = payment
            state.paymentSequence.append(payment.cfPaymentID)
            if status == "SUCCESS" {
                order.status = "PAID"
                order.paidAmount = order.amount
            }
            state.orders[orderID] = order
            let type = switch status {
            case "SUCCESS": "PAYMENT_SUCCESS_WEBHOOK"
            case "FAILED": "PAYMENT_FAILED_WEBHOOK"
            default: "PAYMENT_USER_DROPPED_WEBHOOK"
            }
            let webhook = paymentWebhook(type, order: order, payment: payment, context)
            return .done(["provider": "cashfree", "order": order.wire, "payment": payment.wire], [webhook])
        }
    }

    /// `{"data":{order,payment,customer_details,payment_gateway_details|error_details},"event_time","type"}`,
    /// amounts with two decimals as Cashfree writes them (`170.00`).
    func paymentWebhook(_ type: String, order: Cashfree.Order, payment: Cashfree.Payment, _ context: SimulatorContext) -> WebhookMessage {
        let customer = order.customerDetails
        var data: WireObject = [
            "order": .object(["order_id": .string(order.orderID), "order_amount": .decimal(Money.twoDecimals(order.amount)),
                              "order_currency": .string(order.currency), "order_tags": order.orderTags]),
            "payment": .object(["cf_payment_id": .string(payment.cfPaymentID), "payment_status": .string(payment.status),
                                "payment_amount": .decimal(Money.twoDecimals(payment.amount)),
                                "payment_currency": .string(payment.currency), "payment_message": .string(payment.message),
                                "payment_time": .string(Clock.istISO(payment.time)),
                                "bank_reference": .string(payment.bankReference), "auth_id": .null,
                                "payment_method": .object(payment.method), "payment_group": .string(payment.group)]),
            "customer_details": .object(["customer_name": customer["customer_name"] ?? .null,
                                         "customer_id": customer["customer_id"] ?? .null,
                                         "customer_email": customer["customer_email"] ?? .null,
                                         "customer_phone": customer["customer_phone"] ?? .null]),
        ]
        if let error = payment.error {
            data["error_details"] = .object(error)
        } else {
            data["payment_gateway_details"] = .object(["gateway_name": "CASHFREE", "gateway_order_id": .string(order.cfOrderID),
                                                       "gateway_payment_id": .string(payment.cfPaymentID),
                                                       "gateway_status_code": .null])
        }
        return signed(type, data: data, orderURL: order.notifyURL, context)
    }

    func refundWebhook(_ refund: Cashfree.Refund, order: Cashfree.Order, _ context: SimulatorContext) -> WebhookMessage {
        signed("REFUND_STATUS_WEBHOOK", data: ["refund": refund.webhookWire], orderURL: order.notifyURL, context)
    }

    /// `x-webhook-signature = base64(HMAC-SHA256(client_secret, x-webhook-timestamp + raw body))`.
    private func signed(_ type: String, data: WireObject, orderURL: String?, _ context: SimulatorContext) -> WebhookMessage {
        let body: Wire = .object(["data": .object(data), "event_time": .string(Clock.istISO(context.now)), "type": .string(type)])
        let bytes = body.jsonBytes
        let timestamp = String(context.nowMilliseconds)
        let signature = Encoding.base64(Crypto.hmac(.sha256, key: Array(credentials.cashfreeClientSecret.utf8),
                                                    message: Array(timestamp.utf8) + bytes))
        let idempotencyKey = Encoding.base64((try? Crypto.randomBytes(32)) ?? Array(Identifiers.base62(32).utf8))
        return WebhookMessage(provider: .cashfree, event: type,
                              headers: [("content-type", "application/json"), ("x-webhook-attempt", "1"),
                                        ("x-webhook-signature", signature), ("x-webhook-timestamp", timestamp),
                                        ("x-webhook-version", "2025-01-01"), ("x-idempotency-key", idempotencyKey)],
                              body: bytes, orderURL: orderURL)
    }
}

extension CashfreeSimulator {
    /// Finishes a PENDING refund (made with `refund_note` `PENDING`): `success`, `failed` or
    /// `cancelled`, then sends `REFUND_STATUS_WEBHOOK` as Cashfree does for a final status.
    func completeRefund(orderID: String, refundID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        let status: String
        switch completionStatus(body) {
        case "success"?, "succeeded"?: status = "SUCCESS"
        case "failed"?: status = "FAILED"
        case "cancelled"?: status = "CANCELLED"
        default: return .refused(status: 400, message: "cashfree: \"status\" must be success, failed or cancelled")
        }
        return state.withLock { state -> ControlOutcome in
            guard let order = state.orders[orderID] else { return .refused(status: 404, message: "cashfree: no order \(orderID)") }
            guard var refund = state.refunds[orderID]?[refundID] else {
                return .refused(status: 404, message: "cashfree: no refund \(refundID) on order \(orderID)")
            }
            guard refund.status == "PENDING" else {
                return .refused(status: 409, message: "cashfree: refund \(refundID) is \(refund.status)")
            }
            refund.status = status
            refund.processedAt = context.now
            state.refunds[orderID]?[refundID] = refund
            return .done(["provider": "cashfree", "refund": refund.wire], [refundWebhook(refund, order: order, context)])
        }
    }
}
