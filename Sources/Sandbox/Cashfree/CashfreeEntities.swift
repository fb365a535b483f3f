/// Cashfree PG entities as stored, and their JSON shapes (field order from
/// `samples/cashfree/*.json`). Amounts are paise inside and decimal rupees
/// (JSON numbers) on the wire.
enum Cashfree {
    struct Order: Sendable {
        let cfOrderID: String
        let orderID: String
        let currency: String
        let amount: Int64
        var status = "ACTIVE"
        let paymentSessionID: String
        let expiry: Int64
        let expiryText: String
        let note: String?
        let createdAt: Int64
        let customerDetails: WireObject
        let orderMeta: WireObject
        let orderTags: Wire
        var paidAmount: Int64 = 0

        var notifyURL: String? { orderMeta["notify_url"]?.stringValue }

        var wire: Wire {
            .object(["cf_order_id": .string(cfOrderID), "order_id": .string(orderID), "entity": "order",
                     "order_currency": .string(currency), "order_amount": .decimal(Money.shortest(amount)),
                     "order_status": .string(status), "payment_session_id": .string(paymentSessionID),
                     "order_expiry_time": .string(expiryText), "order_note": .string(note),
                     "created_at": .string(Clock.istISO(createdAt)), "order_splits": .array([]),
                     "customer_details": .object(customerDetails), "order_meta": .object(orderMeta),
                     "order_tags": orderTags])
        }
    }

    struct Payment: Sendable {
        let cfPaymentID: String
        let orderID: String
        let orderAmount: Int64
        let amount: Int64
        let currency: String
        let status: String
        let message: String
        let group: String
        let method: WireObject
        let time: Int64
        let completionTime: Int64
        let bankReference: String?
        let error: WireObject?

        var wire: Wire {
            .object(["cf_payment_id": .string(cfPaymentID), "order_id": .string(orderID), "entity": "payment",
                     "error_details": error.map { .object($0) } ?? .null, "is_captured": .bool(status == "SUCCESS"),
                     "order_amount": .decimal(Money.shortest(orderAmount)), "payment_group": .string(group),
                     "payment_currency": .string(currency), "payment_amount": .decimal(Money.shortest(amount)),
                     "payment_time": .string(Clock.istISO(time)),
                     "payment_completion_time": .string(Clock.istISO(completionTime)),
                     "payment_status": .string(status), "payment_message": .string(message),
                     "bank_reference": .string(bankReference), "auth_id": .null, "authorization": .null,
                     "payment_method": .object(method)])
        }
    }

    struct Refund: Sendable {
        let cfRefundID: String
        let cfPaymentID: String
        let orderID: String
        let refundID: String
        let amount: Int64
        let currency: String
        let note: String?
        var status: String
        let speed: String
        let createdAt: Int64
        var processedAt: Int64?
        let arn: String

        var statusDescription: String {
            switch status {
            case "SUCCESS": "Refund processed successfully"
            case "PENDING": "In Progress"
            case "CANCELLED": "Refund cancelled"
            default: "Refund failed"
            }
        }

        var wire: Wire {
            .object(["cf_payment_id": .string(cfPaymentID), "cf_refund_id": .string(cfRefundID), "order_id": .string(orderID),
                     "refund_id": .string(refundID), "entity": "refund", "refund_amount": .decimal(Money.shortest(amount)),
                     "refund_currency": .string(currency), "refund_note": .string(note), "refund_status": .string(status),
                     "refund_arn": status == "SUCCESS" ? .string(arn) : .null, "refund_charge": .int(0),
                     "status_description": .string(statusDescription), "metadata": .null, "refund_splits": .array([]),
                     "refund_type": "MERCHANT_INITIATED", "refund_mode": .string(speed),
                     "created_at": .string(Clock.istISO(createdAt)),
                     "processed_at": processedAt.map { .string(Clock.istISO($0)) } ?? .null,
                     "refund_speed": .object(["requested": .string(speed), "accepted": .string(speed),
                                              "processed": status == "SUCCESS" ? .string(speed) : .null,
                                              "message": .null])])
        }

        /// The refund inside `REFUND_STATUS_WEBHOOK` (samples/cashfree/webhook_refund_status.json;
        /// Unsure: its capitalised `"entity": "Refund"` was not cross-checked against a live webhook).
        var webhookWire: Wire {
            .object(["cf_refund_id": .string(cfRefundID), "cf_payment_id": .string(cfPaymentID), "refund_id": .string(refundID),
                     "order_id": .string(orderID), "refund_amount": .decimal(Money.twoDecimals(amount)),
                     "refund_currency": .string(currency), "entity": "Refund", "refund_type": "MERCHANT_INITIATED",
                     "refund_arn": status == "SUCCESS" ? .string(arn) : .null, "refund_status": .string(status),
                     "status_description": .string(statusDescription), "created_at": .string(Clock.istISO(createdAt)),
                     "processed_at": processedAt.map { .string(Clock.istISO($0)) } ?? .null, "refund_charge": .int(0),
                     "refund_note": .string(note), "refund_mode": .string(speed)])
        }
    }

    /// The payment groups the control API accepts, with a `payment_method` object for each.
    static func paymentMethod(group: String, failed: Bool) -> WireObject? {
        switch group {
        case "upi":
            ["upi": .object(["channel": "collect", "upi_id": failed ? "testfailure@gocash" : "testsuccess@gocash"])]
        case "credit_card", "debit_card", "prepaid_card":
            ["card": .object(["channel": "link", "card_number": "XXXXXXXXXXXX1111", "card_network": "visa",
                              "card_type": .string(group)])]
        case "net_banking":
            ["netbanking": .object(["channel": "link", "netbanking_bank_code": .int(3021), "netbanking_bank_name": "HDFC Bank"])]
        case "wallet":
            ["app": .object(["channel": "link", "provider": "paytm", "phone": "9999999999"])]
        default:
            nil
        }
    }
}
