import PaymentsCore
import Support
// Setu BBPS BillPay (pre-built screens, custom payment) wire models
// (docs/providers/setu.md §1–§7): Codable DTOs only, names as on the wire (camelCase).
// Amounts are rupee strings ("3522.20"); some samples carry numbers.

struct SetuTokenRequest: Encodable {
    var clientID: String
    var secret: String
}

struct SetuToken: Decodable {
    var expiresIn: Int
    var token: String
    var success: Bool?
    var traceId: String?
}

struct SetuBillParam: Codable {
    var name: String
    var value: String
}

struct SetuLinkRequest: Encodable {
    var orgId: String
    var mobileNumber: String
    var custID: String?
    var categoryName: String?
    var billerId: String?
    var billParams: [SetuBillParam]?
    var additionalInfo: [String: String]?
    var redirectTo: String?
    var shortLink: String?
}

struct SetuLink: Decodable {
    var link: String
    var sessionId: String?
    var shortLink: String?
    var success: Bool?
    var traceId: String?
}

/// The `initiate_payment` data the webview posts to the app, including the
/// deprecated names (docs/providers/setu.md §3, step 2). Every member is optional here; the
/// transformer decides what is required after mapping the old names.
struct SetuInitiatePaymentWire: Decodable {
    var orderId: String?
    var amount: WireDecimal?
    var postPaymentUrl: String?
    var customerMobileNumber: String?
    var customerId: String?
    /// A comma-separated string in the app flow, an array in the web flow.
    var allowedPaymentModes: SetuModes?
    // Deprecated names.
    var refId: String?
    var callback: String?
    var mobileNumber: String?
    var beneficiaryVPA: String?
    var remarks: String?
}

/// `"UPI,NETBANKING"` or `["UPI", "CREDIT CARD"]`.
struct SetuModes: Decodable {
    var values: [String]
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            values = text.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        } else {
            values = try container.decode([String].self)
        }
    }
}

struct SetuFailureReason: Encodable {
    var code: String
    var message: String
}

struct SetuPaymentEventRequest: Encodable {
    var orderId: String
    var transactionId: String
    var paymentDateTime: String
    var amount: String
    var paymentMode: String
    var paymentStatus: String
    var failureReason: SetuFailureReason?
    var remarks: String?
}

struct SetuRefundEventRequest: Encodable {
    var orderId: String
    var refundId: String
    var refundStatus: String
    var refundDateTime: String
}

struct SetuAcknowledgement: Decodable {
    var status: String
}

struct SetuErrorEnvelope: Decodable {
    struct Body: Decodable {
        var code: String?
        var message: String?
    }
    var success: Bool?
    var traceId: String?
    var error: Body?
}

/// A user-event webhook (docs/providers/setu.md §6), the fields PayQL reads.
struct SetuWebhookEvent: Decodable {
    var event: String
    var status: String?
    var orderId: String?
    var txnId: String?
    var refId: String?
    var amountPaid: WireDecimal?
}
