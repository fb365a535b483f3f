import PaymentsCore
// Cashfree PG wire models (docs/providers/cashfree.md §3, API version 2025-01-01): Codable
// DTOs only, names as on the wire. Amounts are JSON numbers in rupees, read
// and written as exact decimal text through `WireDecimal`.

/// An id Cashfree documents as a string but that some answers may carry as a
/// number (`cf_order_id`, `cf_payment_id`) [L]: read both, keep the text.
struct CashfreeID: Codable, Hashable {
    let text: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) { text = string } else { text = String(try container.decode(Int64.self)) }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

struct CashfreeCustomerDetails: Codable {
    var customer_id: String
    var customer_phone: String
    var customer_email: String?
    var customer_name: String?
    var customer_bank_account_number: String?
    var customer_bank_ifsc: String?
    var customer_uid: String?
}

struct CashfreeOrderMeta: Codable {
    var return_url: String?
    var notify_url: String?
    var payment_methods: String?
}

struct CashfreeOrderRequest: Encodable {
    var order_id: String
    var order_amount: WireDecimal
    var order_currency: String
    var customer_details: CashfreeCustomerDetails
    var order_meta: CashfreeOrderMeta?
    var order_note: String?
    var order_tags: [String: String]?
}

struct CashfreeTerminateRequest: Encodable {
    var order_status: String
}

struct CashfreeOrder: Decodable {
    var cf_order_id: CashfreeID?
    var order_id: String
    var order_currency: String?
    var order_amount: WireDecimal
    var order_status: String
    var payment_session_id: String?
    var created_at: String?
}

struct CashfreeErrorDetails: Decodable {
    var error_code: String?
    var error_description: String?
    var error_reason: String?
    var error_source: String?
}

struct CashfreePayment: Decodable {
    var cf_payment_id: CashfreeID
    var order_id: String?
    var payment_amount: WireDecimal
    var payment_currency: String?
    var payment_status: String
    var payment_group: String?
    var payment_message: String?
    var error_details: CashfreeErrorDetails?
}

struct CashfreeRefundRequest: Encodable {
    var refund_amount: WireDecimal
    var refund_id: String
    var refund_note: String?
    var refund_speed: String?
}

struct CashfreeRefund: Decodable {
    var cf_refund_id: CashfreeID?
    var cf_payment_id: CashfreeID?
    var order_id: String?
    var refund_id: String
    var refund_amount: WireDecimal?
    var refund_currency: String?
    var refund_status: String
}

struct CashfreeError: Decodable {
    var message: String?
    var code: String?
    var type: String?
    var help: String?
}

/// The webhook envelope `{"data":{…},"event_time","type"}` (docs/providers/cashfree.md §6).
struct CashfreeWebhookEvent: Decodable {
    struct Order: Decodable {
        var order_id: String
        var order_amount: WireDecimal?
        var order_currency: String?
    }
    struct Payment: Decodable {
        var cf_payment_id: CashfreeID?
        var payment_status: String?
        var payment_amount: WireDecimal?
        var payment_currency: String?
        var payment_group: String?
    }
    struct Data: Decodable {
        var order: Order?
        var payment: Payment?
        var refund: CashfreeRefund?
    }
    var type: String
    var event_time: String?
    var data: Data
}
