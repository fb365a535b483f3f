import Foundation
import JSON
import PaymentsCore
import Postgres

/// Ordered key/value notes (Razorpay `notes`, Cashfree `order_tags`), stored as a jsonb object.
struct Notes: Sendable, Hashable {
    /// The pairs, in the order given (jsonb keeps them sorted by key once stored).
    var pairs: [(key: String, value: String)]

    init(_ pairs: [(key: String, value: String)] = []) { self.pairs = pairs }

    static func == (lhs: Notes, rhs: Notes) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        for pair in pairs { hasher.combine(pair.key); hasher.combine(pair.value) }
    }

    /// As a dictionary for a provider request.
    var dictionary: [String: String] { Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }) }

    /// The jsonb text.
    var jsonb: PostgresJSONB {
        var object = JSONObject()
        for pair in pairs { object.append(pair.key, .string(pair.value)) }
        return PostgresJSONB(text: JSONWriter.string(.object(object)))
    }

    /// Reads the jsonb text written by ``jsonb``; anything else reads as no notes.
    init(jsonb: PostgresJSONB) {
        guard case .object(let object)? = try? JSONParser.parse(jsonb.text) else {
            self.init()
            return
        }
        self.init(object.members.compactMap { key, value in value.stringValue.map { (key, $0) } })
    }
}

/// A stored customer.
struct CustomerRecord: Sendable, Hashable {
    var id: UUID
    var name: String?
    var email: String?
    /// E.164.
    var phone: String?
    var gstin: String?
    var notes: Notes
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
}

/// Who created an order (decision 2): the merchant's key or an app session.
enum OrderCreator: String, Sendable {
    case secretKey = "SECRET_KEY"
    case clientSession = "CLIENT_SESSION"
}

/// A stored order.
struct OrderRecord: Sendable, Hashable {
    var id: UUID
    var customerID: UUID?
    var provider: ProviderName
    var providerOrderID: String?
    var amount: Amount
    var amountPaidMinor: Int64
    var amountRefundedMinor: Int64
    var receipt: String
    var method: String?
    var flow: String
    var bankAccountID: UUID?
    var status: OrderStatusName
    var providerStatus: String?
    var needsReconciliation: Bool
    /// What the client SDK needs (jsonb): per provider, see ``CheckoutPayload``.
    var checkout: CheckoutPayload?
    var notes: Notes
    var description: String?
    var returnURL: String?
    var createdBy: OrderCreator
    var attempts: Int?
    var expiresAt: PostgresTimestamp?
    var paidAt: PostgresTimestamp?
    var lastSyncedAt: PostgresTimestamp?
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
}

/// The order statuses of the contract, as stored.
enum OrderStatusName: String, Sendable, Hashable, CaseIterable {
    case created = "CREATED", attempted = "ATTEMPTED", pending = "PENDING", paid = "PAID"
    case failed = "FAILED", expired = "EXPIRED", cancelled = "CANCELLED"

    /// PAID, FAILED, EXPIRED, CANCELLED.
    var isFinal: Bool {
        switch self {
        case .created, .attempted, .pending: false
        case .paid, .failed, .expired, .cancelled: true
        }
    }
}

/// What a client SDK needs to pay an order, per provider (the contract's `Checkout` union).
enum CheckoutPayload: Sendable, Hashable {
    /// Razorpay Checkout: the public key id and the provider order id.
    case razorpay(keyID: String, orderID: String, environment: String)
    /// Cashfree: the order id and `payment_session_id`.
    case cashfree(orderID: String, paymentSessionID: String, environment: String)
    /// Instamojo: the gateway order / payment request and the hosted page.
    case instamojo(gatewayOrderID: String, paymentURL: String?, environment: String)

    /// The jsonb form stored in `orders.client_payload`.
    var jsonb: PostgresJSONB {
        let object: JSONObject = switch self {
        case .razorpay(let keyID, let orderID, let environment):
            ["provider": "razorpay", "keyId": .string(keyID), "orderId": .string(orderID), "environment": .string(environment)]
        case .cashfree(let orderID, let session, let environment):
            ["provider": "cashfree", "orderId": .string(orderID), "paymentSessionId": .string(session), "environment": .string(environment)]
        case .instamojo(let gatewayOrderID, let paymentURL, let environment):
            ["provider": "instamojo", "gatewayOrderId": .string(gatewayOrderID), "paymentUrl": paymentURL.map(JSONValue.string) ?? .null,
             "environment": .string(environment)]
        }
        return PostgresJSONB(text: JSONWriter.string(.object(object)))
    }

    /// Reads ``jsonb``'s form; nil for `{}` (no checkout yet) or anything unknown.
    init?(jsonb: PostgresJSONB) {
        guard case .object(let object)? = try? JSONParser.parse(jsonb.text) else { return nil }
        let environment = object["environment"]?.stringValue ?? "TEST"
        switch object["provider"]?.stringValue {
        case "razorpay":
            guard let keyID = object["keyId"]?.stringValue, let orderID = object["orderId"]?.stringValue else { return nil }
            self = .razorpay(keyID: keyID, orderID: orderID, environment: environment)
        case "cashfree":
            guard let orderID = object["orderId"]?.stringValue, let session = object["paymentSessionId"]?.stringValue else { return nil }
            self = .cashfree(orderID: orderID, paymentSessionID: session, environment: environment)
        case "instamojo":
            guard let gateway = object["gatewayOrderId"]?.stringValue else { return nil }
            self = .instamojo(gatewayOrderID: gateway, paymentURL: object["paymentUrl"]?.stringValue, environment: environment)
        default:
            return nil
        }
    }
}

/// A stored payment.
struct PaymentRecord: Sendable, Hashable {
    var id: UUID
    var orderID: UUID
    var provider: ProviderName
    var providerPaymentID: String
    var status: String
    var providerStatus: String?
    var method: String?
    var amount: Amount
    var amountRefundedMinor: Int64
    var verified: Bool
    var verificationMethod: String?
    var verifiedAt: PostgresTimestamp?
    var errorCode: String?
    var errorDescription: String?
    var failureReason: String?
    var failureSource: String?
    var failureStep: String?
    var bankReference: String?
    var clientReportedRewardStatus: Bool?
    var capturedAt: PostgresTimestamp?
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
}

/// A stored refund.
struct RefundRecord: Sendable, Hashable {
    var id: UUID
    var paymentID: UUID
    var orderID: UUID?
    var provider: ProviderName
    var providerRefundID: String?
    var reference: String
    var amount: Amount
    var status: String
    var providerStatus: String?
    var speedRequested: String?
    var speedProcessed: String?
    var reason: String?
    var note: String?
    var initiatedBy: String
    var failureReason: String?
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
    var processedAt: PostgresTimestamp?
    /// ARN / UTR / RRN once the provider reports it.
    var bankReference: String?
    /// The provider's outcome is unknown: the refund stays PENDING (and reserved) until reconciled.
    var needsReconciliation: Bool = false
}

/// One timeline entry.
struct OrderEventRecord: Sendable, Hashable {
    var id: Int64
    var orderID: UUID
    var at: PostgresTimestamp
    var kind: String
    var status: String
    var previousStatus: String?
    var providerStatus: String?
    var source: String
    var paymentID: UUID?
    var refundID: UUID?
    var webhookEventID: UUID?
    var message: String?
}

extension ProviderName {
    /// The contract's enum value (`RAZORPAY`).
    var graphQLName: String { rawValue.uppercased() }

    /// From the contract's enum value.
    init?(graphQLName: String) { self.init(rawValue: graphQLName.lowercased()) }
}
