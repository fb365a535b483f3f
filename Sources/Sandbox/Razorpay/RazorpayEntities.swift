/// Razorpay's entities as the simulator stores them, and their JSON shapes
/// (field order from `samples/razorpay/*.json`). Amounts are integer paise.
enum Razorpay {
    /// Largest order amount, in paise. docs/providers/razorpay.md §2 gives only the minimum (100 paise);
    /// the maximum is the sandbox's ceiling for every provider (`Money.maximumPaise`),
    /// the same bound PayQL's Razorpay adapter sends at most.
    static let maximumAmount: Int64 = Money.maximumPaise

    struct Customer: Sendable {
        let id: String
        var name: String?
        var email: String?
        var contact: String?
        var gstin: String?
        var notes: WireObject
        let createdAt: Int64

        var wire: Wire {
            .object(["id": .string(id), "entity": "customer", "name": .string(name), "email": .string(email),
                     "contact": .string(contact), "gstin": .string(gstin), "notes": notesWire(notes),
                     "created_at": .int(createdAt)])
        }
    }

    struct BankAccount: Sendable {
        let id: String
        let customerID: String
        let ifsc: String
        let name: String
        let accountNumber: String
        var deleted = false

        var bankName: String { Razorpay.bankName(ifsc: ifsc) }
        var masked: String { String(repeating: "X", count: max(0, accountNumber.count - 4)) + accountNumber.suffix(4) }

        var wire: Wire {
            .object(["id": .string(id), "entity": "bank_account", "ifsc": .string(ifsc), "bank_name": .string(bankName),
                     "name": .string(name), "notes": .array([]), "account_number": .string(masked)])
        }

        var deletedWire: Wire {
            .object(["id": .string(id), "ifsc": .string(ifsc), "bank_name": .string(bankName), "name": .string(name),
                     "account_number": .string(masked), "status": "deleted"])
        }
    }

    struct Order: Sendable {
        let id: String
        let amount: Int64
        var amountPaid: Int64 = 0
        let currency: String
        let receipt: String?
        var status = "created"
        var attempts: Int64 = 0
        var notes: WireObject
        let createdAt: Int64
        let method: String?
        let partialPayment: Bool
        /// TPV: the `bank_account` the order was created with (not in Razorpay's order answers; the control API shows it).
        var bankAccount: WireObject?

        var wire: Wire {
            .object(["id": .string(id), "entity": "order", "amount": .int(amount), "amount_paid": .int(amountPaid),
                     "amount_due": .int(amount - amountPaid), "currency": .string(currency), "receipt": .string(receipt),
                     "offer_id": .null, "status": .string(status), "attempts": .int(attempts), "notes": notesWire(notes),
                     "created_at": .int(createdAt)])
        }
    }

    struct PaymentError: Sendable {
        let code: String
        let description: String
        let source: String
        let step: String
        let reason: String
    }

    struct Payment: Sendable {
        let id: String
        let orderID: String
        let amount: Int64
        let currency: String
        var status: String
        let method: String
        var amountRefunded: Int64 = 0
        var captured: Bool
        let email: String
        let contact: String
        let customerID: String?
        let vpa: String?
        let bank: String?
        let wallet: String?
        let cardID: String?
        var error: PaymentError?
        let createdAt: Int64
        let rrn: String

        var refundStatus: String? {
            amountRefunded == 0 ? nil : (amountRefunded >= amount ? "full" : "partial")
        }

        /// Razorpay's fee: 2% plus 18% GST on it, in paise (`fee` includes `tax`).
        /// `amount / 50` is `amount * 2 / 100` for a non-negative amount without the
        /// product, so no amount can overflow it (the old product trapped from 2^62 on).
        var fee: Int64 { amount / 50 + tax }
        var tax: Int64 { amount / 50 * 18 / 100 }

        var wire: Wire {
            var acquirer: WireObject = ["rrn": captured || status == "authorized" ? .string(rrn) : .null]
            if method == "upi", captured || status == "authorized" {
                acquirer["upi_transaction_id"] = .string("npci_txn_id_for_" + id.dropFirst(4))
            }
            let settled = status == "captured" || status == "refunded"
            return .object([
                "id": .string(id), "entity": "payment", "amount": .int(amount), "currency": .string(currency),
                "status": .string(status), "order_id": .string(orderID), "invoice_id": .null, "international": false,
                "method": .string(method), "amount_refunded": .int(amountRefunded), "refund_status": .string(refundStatus),
                "captured": .bool(captured), "description": .string("Payment for " + orderID), "card_id": .string(cardID),
                "bank": .string(bank), "wallet": .string(wallet), "vpa": .string(vpa), "email": .string(email),
                "contact": .string(contact), "customer_id": .string(customerID), "token_id": .null, "notes": .array([]),
                "fee": settled ? .int(fee) : .null, "tax": settled ? .int(tax) : .null,
                "error_code": .string(error?.code), "error_description": .string(error?.description),
                "error_source": .string(error?.source), "error_step": .string(error?.step),
                "error_reason": .string(error?.reason), "acquirer_data": .object(acquirer), "created_at": .int(createdAt),
            ])
        }
    }

    struct Refund: Sendable {
        let id: String
        let paymentID: String
        let amount: Int64
        let currency: String
        let notes: WireObject
        let receipt: String?
        let createdAt: Int64
        let speedRequested: String?
        var status = "processed"
        let arn: String

        var wire: Wire {
            var object: WireObject = [
                "id": .string(id), "entity": "refund", "amount": .int(amount), "receipt": .string(receipt),
                "currency": .string(currency), "payment_id": .string(paymentID), "notes": notesWire(notes),
                "acquirer_data": .object(["arn": .string(arn)]), "created_at": .int(createdAt), "batch_id": .null,
                "status": .string(status),
            ]
            // Both speed fields appear only when `speed` was sent (docs/providers/razorpay.md §3, Refunds).
            if let speedRequested {
                object["speed_processed"] = .string(speedRequested == "optimum" ? "instant" : "normal")
                object["speed_requested"] = .string(speedRequested)
            }
            return .object(object)
        }
    }

    /// Empty notes come back as `[]`, as the live API (and the samples) show.
    static func notesWire(_ notes: WireObject) -> Wire { notes.isEmpty ? .array([]) : .object(notes) }

    /// A bank name for the first four letters of an IFSC (enough for the sandbox).
    static func bankName(ifsc: String) -> String {
        switch ifsc.prefix(4).uppercased() {
        case "HDFC": "HDFC Bank"
        case "ICIC": "ICICI Bank"
        case "SBIN": "State Bank of India"
        case "UTIB": "Axis Bank"
        case "KKBK": "Kotak Mahindra Bank"
        default: "Sandbox Bank"
        }
    }

    /// `{"entity":"collection","count":n,"items":[…]}`.
    static func collection(_ items: [Wire]) -> Wire {
        .object(["entity": "collection", "count": .int(Int64(items.count)), "items": .array(items)])
    }
}

extension Wire: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    init(stringLiteral value: String) { self = .string(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
}
