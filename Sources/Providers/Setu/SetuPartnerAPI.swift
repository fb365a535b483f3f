public import PaymentsCore
/// The endpoints Setu calls on the merchant in the custom-payment flow
/// (docs/providers/setu.md §5): `getPaymentStatus`, `refund` and (web flow) `getPaymentLink`,
/// all under a base URL registered with Setu and authenticated by the static
/// `X-SETU-BILLPAY-API-KEY` header. These functions read Setu's requests and
/// write the answers; the Gateway serves them.
public enum SetuPartnerAPI {
    /// The header Setu authenticates with.
    public static let apiKeyHeader = "X-SETU-BILLPAY-API-KEY"

    /// Checks `X-SETU-BILLPAY-API-KEY` against the shared key, in constant time.
    public static func authenticate(_ request: WebhookRequest, key: Secret) -> WebhookVerdict {
        guard request.headerCount(apiKeyHeader) <= 1 else { return .invalid("more than one \(apiKeyHeader) header") }
        return WebhookVerifier.verifyStaticKey(presented: request.header(apiKeyHeader), expected: key, headerName: apiKeyHeader)
    }

    /// `POST …/setu/v1/getPaymentStatus` body `{"orderId"}` → the order id.
    public static func paymentStatusRequest(_ body: [UInt8]) throws(ProviderError) -> String {
        guard let wire = WireCoding.decode(SetuOrderIDWire.self, from: body), !wire.orderId.isEmpty else {
            throw .invalid("getPaymentStatus needs {\"orderId\"}", provider: .setu, operation: "getPaymentStatus", field: "orderId")
        }
        return wire.orderId
    }

    /// The `getPaymentStatus` answer: the confirmation PayQL holds for the order,
    /// or `invalid-order-id` when there is none.
    public static func paymentStatusResponse(_ confirmation: SetuPaymentConfirmation?) throws(ProviderError) -> [UInt8] {
        guard let confirmation else {
            return encode(SetuStatusAnswer(status: "invalid-order-id", message: "No such order", data: nil), operation: "getPaymentStatus")
        }
        let event = try SetuTransformers.paymentEvent(confirmation, rules: SetuConfiguration.defaultAmountRules)
        let data = SetuStatusAnswer.Data(orderId: event.orderId, transactionId: event.transactionId, paymentDateTime: event.paymentDateTime,
                                         amount: event.amount, paymentMode: event.paymentMode, paymentStatus: event.paymentStatus)
        return encode(SetuStatusAnswer(status: "success", message: "", data: data), operation: "getPaymentStatus")
    }

    /// A refund Setu asks the merchant to make.
    public struct RefundRequest: Sendable, Hashable {
        /// Setu's order id (`COUWL…`).
        public var orderID: String
        /// The amount to refund, exact.
        public var amount: Amount
        /// The merchant's payment reference given in the payment-event.
        public var transactionID: String
    }

    /// `POST …/setu/v1/refund` body `{orderId, amount, transactionId}`; the amount is exact.
    public static func refundRequest(_ body: [UInt8]) throws(ProviderError) -> RefundRequest {
        let operation = "setuRefund"
        guard let wire = WireCoding.decode(SetuRefundWire.self, from: body) else {
            throw .invalid("refund needs {orderId, amount, transactionId}", provider: .setu, operation: operation)
        }
        do {
            let amount = try AmountConversion.parse(wire.amount.text, currency: .inr, rules: SetuConfiguration.defaultAmountRules)
            return RefundRequest(orderID: wire.orderId, amount: amount, transactionID: wire.transactionId)
        } catch {
            throw .amount(error, provider: .setu, operation: operation, field: "amount")
        }
    }

    /// The refund answer: accepted with the merchant's refund id, or refused with a reason.
    /// The endpoint must be idempotent: answer the same refund id for a repeated request.
    public static func refundResponse(_ request: RefundRequest, refundID: String?, failureReason: String? = nil) -> [UInt8] {
        let accepted = refundID != nil && failureReason == nil
        let answer = SetuRefundAnswer(status: accepted ? "success" : "failure", message: accepted ? "Accepted" : (failureReason ?? "Refused"),
                                      data: .init(orderId: request.orderID, transactionId: request.transactionID, refundId: refundID))
        return encode(answer, operation: "setuRefund")
    }

    /// What Setu's web flow asks a payment link for.
    public struct PaymentLinkRequest: Sendable, Hashable {
        /// Setu's order id.
        public var orderID: String
        /// The amount to collect, exact.
        public var amount: Amount
        /// The customer's mobile number.
        public var customerMobileNumber: String
        /// Where to send the customer after paying.
        public var postPaymentURL: String
        /// Modes the payment may use; empty means any.
        public var allowedPaymentModes: [SetuPaymentMode]
    }

    /// `POST …/setu/v1/getPaymentLink`: `amount` is a JSON number (read exactly),
    /// `allowedPaymentModes` an array (docs/providers/setu.md §5) [M].
    public static func paymentLinkRequest(_ body: [UInt8]) throws(ProviderError) -> PaymentLinkRequest {
        let operation = "getPaymentLink"
        guard let wire = WireCoding.decode(SetuInitiatePaymentWire.self, from: body) else {
            throw .invalid("getPaymentLink body is not understood", provider: .setu, operation: operation)
        }
        let initiation = try SetuTransformers.initiation(wire, rules: SetuConfiguration.defaultAmountRules)
        return PaymentLinkRequest(orderID: initiation.orderID, amount: initiation.amount, customerMobileNumber: initiation.customerMobileNumber,
                                  postPaymentURL: initiation.postPaymentURL, allowedPaymentModes: initiation.allowedPaymentModes)
    }

    /// Why no payment link could be made (the documented codes).
    public enum PaymentLinkRefusal: String, Sendable {
        /// The mobile number cannot be used.
        case invalidMobileNumber = "invalid-mobile-number"
        /// The customer cannot pay this amount.
        case insufficientBalance = "insufficient-balance"
    }

    /// The `getPaymentLink` answer: `{"code":"success","data":{"link"}}` or a refusal code.
    public static func paymentLinkResponse(link: String?, refusal: PaymentLinkRefusal? = nil) -> [UInt8] {
        let code = link != nil && refusal == nil ? "success" : (refusal ?? .invalidMobileNumber).rawValue
        return encode(SetuLinkAnswer(code: code, data: link.map { .init(link: $0) }), operation: "getPaymentLink")
    }

    private static func encode(_ value: some Encodable, operation: String) -> [UInt8] {
        // These answers hold only strings: encoding cannot fail; an empty body would be refused by Setu.
        (try? WireCoding.encode(value)) ?? []
    }
}

struct SetuOrderIDWire: Decodable { var orderId: String }

struct SetuRefundWire: Decodable {
    var orderId: String
    var amount: WireDecimal
    var transactionId: String
}

struct SetuStatusAnswer: Encodable {
    struct Data: Encodable {
        var orderId: String
        var transactionId: String
        var paymentDateTime: String
        var amount: String
        var paymentMode: String
        var paymentStatus: String
    }
    var status: String
    var message: String
    var data: Data?
}

struct SetuRefundAnswer: Encodable {
    struct Data: Encodable {
        var orderId: String
        var transactionId: String
        var refundId: String?
    }
    var status: String
    var message: String
    var data: Data
}

struct SetuLinkAnswer: Encodable {
    struct Data: Encodable { var link: String }
    var code: String
    var data: Data?
}
