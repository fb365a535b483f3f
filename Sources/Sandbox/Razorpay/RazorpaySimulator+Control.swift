import Support
import Crypto

/// Finishing payments from the control API, and Razorpay's webhooks.
extension RazorpaySimulator {
    /// `paid`, `authorized` or `failed`; Razorpay orders have no expired state.
    func complete(orderID: String, body: WireObject, context: SimulatorContext) -> ControlOutcome {
        guard let outcome = completionStatus(body) else {
            return .refused(status: 400, message: "body needs \"status\": paid, authorized or failed")
        }
        guard ["paid", "authorized", "failed"].contains(outcome) else {
            return .refused(status: 400, message: "razorpay: unsupported status '\(outcome)' (paid, authorized, failed; Razorpay orders have no expired state)")
        }
        let requestedMethod = body["method"]?.stringValue
        if let requestedMethod, !["upi", "card", "netbanking", "wallet", "emi"].contains(requestedMethod) {
            return .refused(status: 400, message: "razorpay: method must be upi, card, netbanking, wallet or emi")
        }
        return state.withLock { state -> ControlOutcome in
            guard var order = state.orders[orderID] else {
                return .refused(status: 404, message: "razorpay: no order \(orderID)")
            }
            guard order.status != "paid" else {
                return .refused(status: 409, message: "razorpay: order \(orderID) is already paid")
            }
            if let lateID = body["payment_id"]?.stringValue {
                return captureLate(lateID, order: &order, outcome: outcome, state: &state, context: context)
            }
            let method = requestedMethod ?? order.method ?? "upi"
            // TPV: "Payments will not be processed for an incorrect account number" (docs/providers/razorpay.md §3, Orders):
            // a payment from another account (`"account_number"` in the body) fails.
            let wrongAccount = order.bankAccount.map { account in
                guard let paidFrom = body["account_number"]?.stringValue else { return false }
                return paidFrom != (account["account_number"]?.stringValue ?? account["account_number"]?.numberText)
            } ?? false
            let failed = outcome == "failed" || wrongAccount
            let captured = outcome == "paid" && !wrongAccount
            let payment = Razorpay.Payment(
                id: Identifiers.razorpay("pay"), orderID: order.id, amount: order.amount - order.amountPaid,
                currency: order.currency, status: failed ? "failed" : (captured ? "captured" : "authorized"),
                method: method, captured: captured,
                email: body["email"]?.stringValue ?? "customer@example.com",
                contact: body["contact"]?.stringValue ?? "+919000090000",
                customerID: body["customer_id"]?.stringValue,
                vpa: method == "upi" ? (body["vpa"]?.stringValue ?? (failed ? "failure@razorpay" : "success@razorpay")) : nil,
                bank: method == "netbanking" ? "HDFC" : nil, wallet: method == "wallet" ? "paytm" : nil,
                cardID: method == "card" || method == "emi" ? Identifiers.razorpay("card") : nil,
                error: wrongAccount ? Razorpay.PaymentError(
                    code: "BAD_REQUEST_ERROR", description: "Payment failed because the bank account does not match the one registered for this order.",
                    source: "customer", step: "payment_authorization", reason: "bank_account_mismatch")
                    : failed ? Razorpay.PaymentError(
                    code: "BAD_REQUEST_ERROR", description: "Payment failed because the customer declined the collect request.",
                    source: "customer", step: "payment_authorization", reason: "payment_cancelled") : nil,
                createdAt: context.now, rrn: Identifiers.digits(12))
            order.attempts += 1
            var webhooks: [WebhookMessage] = []
            if failed {
                order.status = "attempted"
                webhooks.append(event("payment.failed", payment: payment, order: nil, context))
            } else if captured {
                order.amountPaid = order.amount
                order.status = "paid"
                // The authorized snapshot first, as Razorpay sends both events.
                var authorizedSnapshot = payment
                authorizedSnapshot.status = "authorized"
                authorizedSnapshot.captured = false
                webhooks.append(event("payment.authorized", payment: authorizedSnapshot, order: nil, context))
                webhooks.append(event("payment.captured", payment: payment, order: nil, context))
                webhooks.append(event("order.paid", payment: payment, order: order, context))
            } else {
                order.status = "attempted"
                webhooks.append(event("payment.authorized", payment: payment, order: nil, context))
            }
            state.orders[order.id] = order
            state.payments[payment.id] = payment
            state.paymentSequence.append(payment.id)
            var result: WireObject = ["provider": "razorpay", "order": order.wire, "payment": payment.wire]
            if !failed {
                // What Checkout hands the frontend: hex(HMAC-SHA256(key_secret, order_id|payment_id)).
                let signature = Encoding.hex(Crypto.hmac(.sha256, key: credentials.razorpayKeySecret,
                                                         message: order.id + "|" + payment.id))
                result["checkout"] = .object(["razorpay_payment_id": .string(payment.id),
                                              "razorpay_order_id": .string(order.id),
                                              "razorpay_signature": .string(signature)])
            }
            return .done(result, webhooks)
        }
    }

    /// Razorpay's late authorisation: a `failed` payment is captured after all
    /// (`payment.failed` followed by `payment.captured`, webhooks/payments.md).
    private func captureLate(_ paymentID: String, order: inout Razorpay.Order, outcome: String, state: inout State,
                             context: SimulatorContext) -> ControlOutcome {
        guard outcome == "paid" else {
            return .refused(status: 400, message: "razorpay: with payment_id only \"paid\" is accepted (a late capture)")
        }
        guard var payment = state.payments[paymentID], payment.orderID == order.id else {
            return .refused(status: 404, message: "razorpay: no payment \(paymentID) on order \(order.id)")
        }
        guard payment.status == "failed" else {
            return .refused(status: 409, message: "razorpay: payment \(paymentID) is \(payment.status), not failed")
        }
        payment.status = "captured"
        payment.captured = true
        payment.error = nil
        order.amountPaid = order.amount
        order.status = "paid"
        state.payments[paymentID] = payment
        state.orders[order.id] = order
        let signature = Encoding.hex(Crypto.hmac(.sha256, key: credentials.razorpayKeySecret, message: order.id + "|" + payment.id))
        let result: WireObject = [
            "provider": "razorpay", "order": order.wire, "payment": payment.wire,
            "checkout": .object(["razorpay_payment_id": .string(payment.id), "razorpay_order_id": .string(order.id),
                                 "razorpay_signature": .string(signature)]),
        ]
        return .done(result, [event("payment.captured", payment: payment, order: nil, context),
                              event("order.paid", payment: payment, order: order, context)])
    }

    /// A payment / order event: `{"entity":"event","account_id",…,"payload":{"payment":{"entity":…}}}`.
    func event(_ name: String, payment: Razorpay.Payment, order: Razorpay.Order?, _ context: SimulatorContext) -> WebhookMessage {
        var payload: WireObject = ["payment": .object(["entity": payment.wire])]
        var contains: [Wire] = ["payment"]
        if let order {
            payload["order"] = .object(["entity": order.wire])
            contains.append("order")
        }
        return signed(name, contains: contains, payload: payload, context)
    }

    func refundEvent(_ name: String, refund: Razorpay.Refund, payment: Razorpay.Payment, _ context: SimulatorContext) -> WebhookMessage {
        signed(name, contains: ["refund", "payment"],
               payload: ["refund": .object(["entity": refund.wire]), "payment": .object(["entity": payment.wire])], context)
    }

    /// Signs the exact body: `X-Razorpay-Signature: hex(HMAC-SHA256(webhook_secret, raw body))`,
    /// with `x-razorpay-event-id` for de-duplication.
    private func signed(_ name: String, contains: [Wire], payload: WireObject, _ context: SimulatorContext) -> WebhookMessage {
        let envelope: Wire = .object(["entity": "event", "account_id": .string(accountID), "event": .string(name),
                                      "contains": .array(contains), "payload": .object(payload),
                                      "created_at": .int(context.now)])
        let body = envelope.jsonBytes
        let signature = Encoding.hex(Crypto.hmac(.sha256, key: Array(credentials.razorpayWebhookSecret.utf8), message: body))
        return WebhookMessage(provider: .razorpay, event: name,
                              headers: [("Content-Type", "application/json"), ("X-Razorpay-Signature", signature),
                                        ("x-razorpay-event-id", Identifiers.base62(14))],
                              body: body, orderURL: nil)
    }
}
