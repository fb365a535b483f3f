import PaymentsCore
// Instamojo v2 wire models (docs/providers/instamojo.md §1–§5): Codable DTOs only, names as
// on the wire. Amounts are decimal strings in rupees. Create calls are sent as
// form data (the v2 reference's encoding), so request models are field lists.

struct InstamojoToken: Decodable {
    var access_token: String
    var token_type: String?
    var expires_in: Int
    var scope: String?
}

struct InstamojoTokenError: Decodable {
    var error: String
}

struct InstamojoPaymentRequest: Decodable {
    var id: String
    var amount: WireDecimal
    var purpose: String?
    var status: String
    var payments: [String]?
    var longurl: String?
    var shorturl: String?
    var buyer_name: String?
    var email: String?
    var phone: String?
    var created_at: String?
}

/// `POST /v2/gateway/orders/payment-request/` answer.
struct InstamojoGatewayOrderFromRequest: Decodable {
    var order_id: String
    var amount: WireDecimal?
}

struct InstamojoGatewayOrder: Decodable {
    var id: String
    var transaction_id: String?
    var status: String
    var currency: String?
    var amount: WireDecimal
    var created_at: String?
    /// The order's payments as resource URLs (`…/v2/payments/MOJO…/`), when the answer lists them.
    var payments: [String]?
}

/// `POST /v2/gateway/orders/` answer.
struct InstamojoGatewayOrderCreated: Decodable {
    struct Options: Decodable { var payment_url: String? }
    var order: InstamojoGatewayOrder
    var payment_options: Options?
}

struct InstamojoFailure: Decodable {
    var reason: String?
    var message: String?
}

struct InstamojoPayment: Decodable {
    var id: String
    /// `true` success, `false` failed, `null` initiated.
    var status: Bool?
    var amount: WireDecimal
    var currency: String?
    var payment_request: String?
    var instrument_type: String?
    var billing_instrument: String?
    var failure: InstamojoFailure?
}

struct InstamojoRefund: Decodable {
    var id: String
    var payment_id: String?
    var status: String
    var type: String?
    var refund_amount: WireDecimal?
    var total_amount: WireDecimal?
}

struct InstamojoRefundCreated: Decodable {
    var refund: InstamojoRefund
    var success: Bool?
}

struct InstamojoRefundCase: Decodable {
    var id: String
    var payment: String?
    var status: String?
    /// null while open; `FINI_CONC`, `FINI_DENY`, `FINI_WITH`, `FINI_INIT` when closed.
    var resolution_status: String?
    var status_text: String?
    var refund_amount: WireDecimal?
    var transaction_id: String?
}

/// `GET /v2/gateway/orders/{id}/checkout-options/` — the mobile SDK's payment
/// options. Shape from the official Android SDK's parser, not the v2 reference [L].
struct InstamojoCheckoutOptions: Decodable {
    struct Choice: Decodable {
        /// A bank code (text) or a wallet id (an integer in the iOS SDK's parser).
        var id: TextOrInteger
        var name: String
        var image: String?
    }
    struct Choices: Decodable {
        var choices: [Choice]?
        var submission_url: String?
    }
    struct Rate: Decodable {
        var tenure: Int
        /// Interest rate, percent per year.
        var interest: WireDecimal
    }
    struct EMIBank: Decodable {
        var bank_name: String
        var bank_code: String
        var rates: [Rate]
    }
    struct EMIOptions: Decodable {
        var emi_list: [EMIBank]?
        var submission_url: String?
    }
    struct Submission: Decodable {
        var submission_url: String?
    }
    struct PaymentOptions: Decodable {
        var card_options: Submission?
        var netbanking_options: Choices?
        var emi_options: EMIOptions?
        var wallet_options: Choices?
        var upi_options: Submission?
    }
    var payment_options: PaymentOptions
}

/// `POST /v2/gateway/orders/{id}/upi/` answer (Android SDK model) [L].
struct InstamojoUPISubmission: Decodable {
    var payment_id: String
    var status_code: Int
    var payer_virtual_address: String?
    var payee_virtual_address: String?
    var status_check_url: String?
    var upi_bank: String?
    var status_message: String?
}

/// The UPI collect status answer [L].
struct InstamojoUPIStatus: Decodable {
    var status_code: Int
    var status_message: String?
    var payment_id: String?
}

/// `{"success": false, "message": "..."}` (401 and v1.1-style errors).
struct InstamojoMessageError: Decodable {
    var success: Bool?
    var message: String
}

/// A JSON string or integer, read as text (Instamojo's wallet ids are integers,
/// bank codes strings).
struct TextOrInteger: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else {
            text = try container.decode(String.self)
        }
    }
}
