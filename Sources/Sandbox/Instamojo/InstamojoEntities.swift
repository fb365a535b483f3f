/// Instamojo v2 entities as stored, and their JSON shapes (field order from
/// `samples/instamojo/*.json`). Amounts are paise inside, decimal strings outside.
enum Instamojo {
    /// The merchant the sandbox plays (appears in `user` / `seller` URLs).
    static let userID = "5a1d0c0ed4e94e76b0e3b1e6c0de5a4d"

    struct PaymentRequest: Sendable {
        let id: String
        let phone: String?
        let email: String?
        let buyerName: String?
        let amount: Int64
        let purpose: String
        var status = "Pending"
        let sendSMS: Bool
        let sendEmail: Bool
        let redirectURL: String?
        let webhook: String?
        let allowRepeatedPayments: Bool
        let createdAt: Int64
        var modifiedAt: Int64
        var payments: [String] = []
        let expiresAt: String?
        let markFulfilled: Bool
        var enabled = true

        func wire(root: String) -> Wire {
            let base = root + SandboxProvider.instamojo.basePath
            return .object([
                "id": .string(id), "user": .string(base + "/v2/users/\(Instamojo.userID)/"), "phone": .string(phone),
                "email": .string(email), "buyer_name": .string(buyerName), "amount": .string(Money.twoDecimals(amount)),
                "purpose": .string(purpose), "status": .string(status), "send_sms": .bool(sendSMS),
                "send_email": .bool(sendEmail), "sms_status": sendSMS ? "Pending" : .null,
                "email_status": sendEmail ? "Pending" : .null, "shorturl": .null,
                "longurl": .string(Instamojo.longURL(root: root, id: id)), "redirect_url": .string(redirectURL),
                "webhook": .string(webhook), "allow_repeated_payments": .bool(allowRepeatedPayments),
                "created_at": .string(Clock.utcISO(milliseconds: createdAt)),
                "modified_at": .string(Clock.utcISO(milliseconds: modifiedAt)),
                "payments": .array(payments.map { .string(base + "/v2/payments/\($0)/") }), "scheduled_at": .null,
                "expires_at": .string(expiresAt), "mark_fulfilled": .bool(markFulfilled),
                "resource_uri": .string(base + "/v2/payment_requests/\(id)/"),
            ])
        }
    }

    struct GatewayOrder: Sendable {
        let id: String
        let transactionID: String?
        var status = "pending"
        let currency: String
        let amount: Int64
        let name: String
        let email: String
        let phone: String
        let description: String?
        let redirectURL: String?
        let webhookURL: String?
        let createdAt: Int64
        var payments: [String] = []
        /// Set for orders made from a payment request (`POST /v2/gateway/orders/payment-request/`).
        let paymentRequestID: String?

        func wire(root: String) -> Wire {
            let base = root + SandboxProvider.instamojo.basePath
            return .object([
                "id": .string(id), "transaction_id": .string(transactionID), "status": .string(status),
                "currency": .string(currency), "amount": .string(Money.twoDecimals(amount)), "name": .string(name),
                "email": .string(email), "phone": .string(phone), "description": .string(description),
                "redirect_url": .string(redirectURL), "webhook_url": .string(webhookURL),
                "created_at": .string(Clock.utcISO(milliseconds: createdAt)),
                "resource_uri": .string(base + "/v2/gateway/orders/id:\(id)/"),
                "payments": .array(payments.map { .string(base + "/v2/payments/\($0)/") }),
            ])
        }
    }

    struct Payment: Sendable {
        let id: String
        let title: String
        let paymentRequestID: String?
        let orderID: String?
        /// `true` success, `false` failed, nil initiated.
        var status: Bool?
        let amount: Int64
        let name: String?
        let email: String?
        let phone: String?
        let instrument: String
        var failure: (reason: String, message: String)?
        let createdAt: Int64
        var updatedAt: Int64
        var refunded: Int64 = 0
        var cases: [String] = []
        /// UPI collect: the payer's VPA.
        let vpa: String?
        /// UPI collect: how many status checks were answered (shows a client's polling).
        var statusChecks = 0

        /// 1.9% of `amount`, rounded down, computed without the product `amount * 19`
        /// (which would overflow for amounts above ~4.8 × 10^17 paise).
        var fees: Int64 { amount / 1000 * 19 + amount % 1000 * 19 / 1000 }
        var taxes: Int64 { fees * 18 / 100 }

        var billingInstrument: String {
            switch instrument {
            case "CARD": "Domestic Regular Credit Card (Visa/Mastercard)"
            case "EMI": "EMI Credit Card"
            case "NETBANKING": "Net Banking"
            case "WALLET": "Wallet"
            default: "UPI"
            }
        }

        func wire(root: String) -> Wire {
            let base = root + SandboxProvider.instamojo.basePath
            let succeeded = status == true
            return .object([
                "id": .string(id), "title": .string(title), "payment_type": "api_rap",
                "payment_request": paymentRequestID.map { .string(base + "/v2/payment_requests/\($0)/") } ?? .null,
                "status": status.map { .bool($0) } ?? .null, "link": .null, "product": .null,
                "seller": .string(base + "/v2/users/\(Instamojo.userID)/"), "currency": "INR",
                "amount": .string(Money.twoDecimals(amount)), "name": .string(name), "email": .string(email),
                "phone": .string(phone), "payout": .null,
                "fees": succeeded ? .string(Money.twoDecimals(fees)) : .null,
                "total_taxes": succeeded ? .string(Money.twoDecimals(taxes)) : .null,
                "cases": .array(cases.map { .string(base + "/v2/resolutioncenter/cases/\($0)/") }),
                "affiliate_id": .null, "affiliate_commission": succeeded ? "0.00" : .null,
                "order_info": .object(["shipping_address": .null, "shipping_city": .null, "shipping_state": .null,
                                       "shipping_zip": .null, "shipping_country": .null, "quantity": .int(1),
                                       "unit_price": .string(Money.twoDecimals(amount)), "custom_fields": .object([:]),
                                       "variants": .array([])]),
                "instrument_type": .string(instrument), "billing_instrument": .string(billingInstrument),
                "failure": failure.map { .object(["reason": .string($0.reason), "message": .string($0.message)]) } ?? .null,
                "created_at": .string(Clock.utcISO(milliseconds: createdAt)),
                "updated_at": .string(Clock.utcISO(milliseconds: updatedAt)), "tax_invoice_id": "",
                "resource_uri": .string(base + "/v2/payments/\(id)/"),
            ])
        }
    }

    struct RefundCase: Sendable {
        let id: String
        let paymentID: String
        let type: String
        let body: String
        let requestedAmount: String
        let amount: Int64
        let totalAmount: Int64
        let transactionID: String
        let createdAt: Int64
        let refundID: String
        let bankReference: String

        /// The create-refund answer: `{"refund":{...},"success":true}`.
        var createWire: Wire {
            .object(["refund": .object(["id": .string(id), "payment_id": .string(paymentID), "status": "Refunded",
                                        "type": .string(type), "body": .string(body),
                                        "refund_amount": .string(requestedAmount),
                                        "total_amount": .string(Money.twoDecimals(totalAmount)),
                                        "created_at": .string(Clock.utcISO(milliseconds: createdAt))]),
                     "success": true])
        }

        func caseWire(root: String) -> Wire {
            let base = root + SandboxProvider.instamojo.basePath
            let created = Clock.utcISO(milliseconds: createdAt)
            return .object([
                "id": .string(id), "created_by": .null, "payment": .string(base + "/v2/payments/\(paymentID)/"),
                "status": "FINI", "resolution_status": "FINI_CONC", "status_text": "Refunded", "type": .string(type),
                "body": .string(body), "refund_amount": .string(Money.twoDecimals(amount)),
                "references": .array([.object(["id": .string(paymentID), "type": "Payment held.", "created_at": .string(created)])]),
                "refunds": .array([.object(["id": .string(refundID), "status": "Completed",
                                            "bank_reference_number": .string(bankReference), "created_at": .string(created)])]),
                "transaction_id": .string(transactionID), "created_at": .string(created), "updated_at": .string(created),
                "resource_uri": .string(base + "/v2/resolutioncenter/cases/\(id)/"), "creator_name": "Sandbox seller",
            ])
        }
    }

    static func longURL(root: String, id: String) -> String {
        root + SandboxProvider.instamojo.basePath + "/@sandbox/\(id)"
    }

    /// Reason codes for refunds (docs/providers/instamojo.md §3, Refunds).
    static let refundTypes: Set<String> = ["RFD", "TNR", "QFL", "QNR", "EWN", "TAN", "PTH"]
}
