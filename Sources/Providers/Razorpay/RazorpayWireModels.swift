import PaymentsCore
// Razorpay wire models: Codable DTOs only, property names exactly as on the
// wire (docs/providers/razorpay.md §3). Amounts are integer paise.

struct RazorpayCustomerRequest: Encodable {
    /// Optional per the API doc, required per the SDK doc (docs/providers/razorpay.md §7): sent when known.
    var name: String?
    var contact: String?
    var email: String?
    /// `"1"` (default): error if the customer exists; `"0"`: return the existing one.
    var fail_existing: String
    var gstin: String?
    var notes: [String: String]?
}

struct RazorpayCustomer: Decodable {
    var id: String
    var name: String?
    var email: String?
    var contact: String?
    var gstin: String?
    /// An object, or `[]` when empty.
    var notes: WireNotes?
    // `created_at` is left out on purpose: several official samples spell the
    // key "created_at " with a trailing space (docs/providers/razorpay.md §3), and PayQL does not need it.
}

struct RazorpayBankAccountRequest: Encodable {
    var account_number: String
    var ifsc_code: String
    var beneficiary_name: String
    /// Address line 1 (docs/providers/razorpay.md §3, Customers). Razorpay's page was read
    /// as calling it "the virtual payment address", apparently a slip [unverified].
    var beneficiary_address1: String?
    var beneficiary_address2: String?
    var beneficiary_address3: String?
    var beneficiary_address4: String?
    var beneficiary_email: String?
    var beneficiary_mobile: String?
    var beneficiary_city: String?
    var beneficiary_state: String?
    var beneficiary_country: String?
    /// Documented as an integer; sent as the digits' text, as the other fields (a PIN has no arithmetic).
    var beneficiary_pin: String?
}

/// The add-bank-account answer. The API doc and the SDK mock show this
/// `bank_account` entity; the SDK's own doc shows a customer instead [M].
struct RazorpayBankAccount: Decodable {
    var id: String
    var entity: String?
    var ifsc: String?
    var bank_name: String?
    var name: String?
    /// Masked, e.g. `XXXXXXXXXXXXXXX0434`.
    var account_number: String?
    /// `deleted` on the delete answer.
    var status: String?
}

struct RazorpayTPVAccount: Codable {
    var account_number: String
    var name: String
    var ifsc: String
}

/// `payment_capture` is deliberately absent: it appears only in an SDK docstring,
/// not on the current API page [L]; authorized payments are captured explicitly.
struct RazorpayOrderRequest: Encodable {
    var amount: Int64
    var currency: String
    var receipt: String?
    var notes: [String: String]?
    var method: String?
    var bank_account: RazorpayTPVAccount?
}

struct RazorpayOrder: Decodable {
    var id: String
    var amount: Int64
    var amount_paid: Int64?
    var amount_due: Int64?
    var currency: String
    var receipt: String?
    var status: String
    var attempts: Int?
    var created_at: Int64?
}

struct RazorpayCollection<Item: Decodable>: Decodable {
    var count: Int?
    var items: [Item]
}

struct RazorpayPayment: Decodable {
    var id: String
    var amount: Int64
    var currency: String
    var status: String
    var order_id: String?
    var method: String?
    var captured: Bool?
    /// `null`, `partial` or `full`.
    var refund_status: String?
    var amount_refunded: Int64?
    var error_code: String?
    var error_description: String?
    var error_source: String?
    var error_step: String?
    var error_reason: String?
}

struct RazorpayCaptureRequest: Encodable {
    var amount: Int64
    var currency: String
}

struct RazorpayRefundRequest: Encodable {
    var amount: Int64?
    var speed: String?
    var notes: [String: String]?
    var receipt: String?
}

struct RazorpayRefund: Decodable {
    var id: String
    var amount: Int64?
    var currency: String?
    var payment_id: String?
    var receipt: String?
    var status: String
}

struct RazorpayTurboSessionRequest: Encodable {
    var customer_reference: String
}

struct RazorpayTurboSession: Decodable {
    var token: String
    var expire_at: Int64
}

struct RazorpayErrorEnvelope: Decodable {
    struct Body: Decodable {
        var code: String?
        var description: String?
        var source: String?
        var step: String?
        var reason: String?
        var field: String?
    }
    var error: Body
}

/// The part of a webhook event PayQL reads (the event envelope of docs/providers/razorpay.md §5b).
struct RazorpayWebhookEvent: Decodable {
    struct PaymentWrapper: Decodable { var entity: RazorpayPayment }
    struct OrderWrapper: Decodable { var entity: RazorpayOrder }
    struct RefundWrapper: Decodable { var entity: RazorpayRefund }
    struct Payload: Decodable {
        var payment: PaymentWrapper?
        var order: OrderWrapper?
        var refund: RefundWrapper?
    }
    var event: String
    var account_id: String?
    var payload: Payload
    var created_at: Int64?
}
