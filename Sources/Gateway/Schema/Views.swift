import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

// The values resolvers hand to the executor for the contract's object types. Each reads
// its fields from a stored record by name; fields that need loading or arguments have
// resolvers of their own (Resolvers/). A field a view does not know resolves to null —
// `ViewCoverageTests` checks every non-null field of these types is answered.

/// `Money`.
struct MoneyView: GraphQLFieldReadable, GraphQLTypeNamed {
    var minorUnits: Int64
    var currency: Currency

    init(_ amount: Amount) {
        minorUnits = amount.minorUnits
        currency = amount.currency
    }

    init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    var graphQLTypeName: String { "Money" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "amount": String(minorUnits)
        case "currency": currency.code
        case "decimal": DecimalText.format(minorUnits: minorUnits, exponent: currency.minorUnitExponent)
        default: nil
        }
    }
}

/// `KeyValue`.
struct KeyValueView: GraphQLFieldReadable {
    var key: String
    var value: String

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "key": key
        case "value": value
        default: nil
        }
    }

    static func list(_ notes: Notes) -> [any Sendable] { notes.pairs.map { KeyValueView(key: $0.key, value: $0.value) } }
}

/// `UserError`.
struct UserErrorView: GraphQLFieldReadable {
    var error: UserError

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "code": error.code.rawValue
        case "message": error.message
        case "field": error.field
        case "provider": error.provider?.graphQLName
        case "providerCode": error.providerCode
        case "providerTraceId": error.providerTraceID
        case "retryable": error.retryable
        default: nil
        }
    }
}

/// `Customer`.
struct CustomerView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: CustomerRecord
    var graphQLTypeName: String { "Customer" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.customer, record.id).description
        case "name": record.name
        case "email": record.email
        case "phone": record.phone
        case "gstin": record.gstin
        case "notes": KeyValueView.list(record.notes)
        case "createdAt": record.createdAt.rfc3339
        case "updatedAt": record.updatedAt.rfc3339
        default: nil
        }
    }
}

/// `ProviderCustomerId`.
struct ProviderCustomerIDView: GraphQLFieldReadable {
    var provider: String
    var id: String
    var createdAt: String

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": provider
        case "id": id
        case "createdAt": createdAt
        default: nil
        }
    }
}

/// `Order`.
struct OrderView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: OrderRecord
    /// The order's customer when it was read with the order (`order(id)` selecting `customer`:
    /// one statement instead of two); nil when it was not read (then `Order.customer` loads it).
    var customer: CustomerRecord?
    /// Its payments when they were read with the order (`order(id)` selecting `payments`); nil:
    /// not read (then `Order.payments` loads them).
    var payments: [PaymentRecord]?
    var graphQLTypeName: String { "Order" }

    /// The view of `record`; what is selected of its customer and payments is loaded.
    init(record: OrderRecord) {
        self.record = record
    }

    /// The view of a single-order read: the customer and payments read with it.
    init(_ read: OrderStore.Read) {
        record = read.order
        customer = read.customer
        payments = read.payments
    }

    func graphQLField(_ name: String) -> (any Sendable)? {
        let currency = record.amount.currency
        switch name {
        case "id": return GlobalID(.order, record.id).description
        case "provider": return record.provider.graphQLName
        case "providerOrderId": return record.providerOrderID
        case "receipt": return record.receipt
        case "amount": return MoneyView(record.amount)
        case "amountPaid": return MoneyView(minorUnits: record.amountPaidMinor, currency: currency)
        case "amountDue":
            let due = record.amount.minorUnits.subtractingReportingOverflow(record.amountPaidMinor)
            return MoneyView(minorUnits: due.overflow ? 0 : max(0, due.partialValue), currency: currency)
        case "amountRefunded": return MoneyView(minorUnits: record.amountRefundedMinor, currency: currency)
        case "status": return record.status.rawValue
        case "providerStatus": return record.providerStatus
        case "needsReconciliation": return record.needsReconciliation
        case "method": return record.method
        case "flow": return record.flow
        case "description": return record.description
        case "notes": return KeyValueView.list(record.notes)
        case "returnUrl": return record.returnURL
        case "attempts": return record.attempts
        case "checkout":
            // The contract: null once the order is final (a cancelled order is not offered for payment any more).
            return record.status.isFinal ? nil : record.checkout.map { CheckoutView(payload: $0, order: record) }
        case "expiresAt": return record.expiresAt?.rfc3339
        case "paidAt": return record.paidAt?.rfc3339
        case "lastSyncedAt": return record.lastSyncedAt?.rfc3339
        case "createdAt": return record.createdAt.rfc3339
        case "updatedAt": return record.updatedAt.rfc3339
        case "createdBy": return record.createdBy.rawValue
        default: return nil
        }
    }
}

/// The `Checkout` union: `RazorpayCheckout`, `CashfreeCheckout` or `InstamojoCheckout`.
struct CheckoutView: GraphQLFieldReadable, GraphQLTypeNamed {
    var payload: CheckoutPayload
    var order: OrderRecord

    var graphQLTypeName: String {
        switch payload {
        case .razorpay: "RazorpayCheckout"
        case .cashfree: "CashfreeCheckout"
        case .instamojo: "InstamojoCheckout"
        }
    }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch payload {
        case .razorpay(let keyID, let orderID, let environment):
            switch name {
            case "keyId": return keyID
            case "environment": return environment
            case "orderId": return orderID
            case "amount": return MoneyView(order.amount)
            case "customerId": return nil
            case "prefill": return PrefillView()
            case "method": return order.method
            case "upiFlow": return nil
            case "tpv": return order.flow == "TPV"
            case "authorizePayload":
                // What Razorpay Checkout / the Android SDK take as options (key, order_id, amount in paise, currency).
                let options: JSONObject = ["key": .string(keyID), "order_id": .string(orderID), "amount": .int(order.amount.minorUnits),
                                           "currency": .string(order.amount.currency.code)]
                return JSONValue.object(options)
            default: return nil
            }
        case .cashfree(let orderID, let session, let environment):
            switch name {
            case "orderId": return orderID
            case "paymentSessionId": return session
            case "environment": return environment
            case "expiresAt": return order.expiresAt?.rfc3339
            default: return nil
            }
        case .instamojo(let gatewayOrderID, let paymentURL, let environment):
            switch name {
            case "gatewayOrderId": return gatewayOrderID
            case "paymentRequestId": return nil
            case "paymentUrl": return paymentURL
            case "environment": return environment
            default: return nil
            }
        }
    }
}

/// `CheckoutPrefill`: resolved from the order's customer by a resolver; empty here.
struct PrefillView: GraphQLFieldReadable {
    var name: String?
    var email: String?
    var contact: String?

    func graphQLField(_ field: String) -> (any Sendable)? {
        switch field {
        case "name": name
        case "email": email
        case "contact": contact
        default: nil
        }
    }
}

/// `Payment`.
struct PaymentView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: PaymentRecord
    var graphQLTypeName: String { "Payment" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": return GlobalID(.payment, record.id).description
        case "provider": return record.provider.graphQLName
        case "providerPaymentId": return record.providerPaymentID
        case "status": return record.status
        case "providerStatus": return record.providerStatus ?? record.status.lowercased()
        case "amount": return MoneyView(record.amount)
        case "amountRefunded": return MoneyView(minorUnits: record.amountRefundedMinor, currency: record.amount.currency)
        case "method": return PaymentMethodName.contract(record.method)
        case "methodDetails":
            return record.method.map { MethodDetailsView(providerMethod: $0) }
        case "bankReference": return record.bankReference
        case "verified": return record.verified
        case "verification":
            guard let method = record.verificationMethod, let at = record.verifiedAt else { return nil }
            return VerificationView(method: method, at: at.rfc3339)
        case "failure":
            guard record.errorCode != nil || record.errorDescription != nil || record.failureReason != nil else { return nil }
            return FailureView(record: record)
        case "clientReportedRewardStatus": return record.clientReportedRewardStatus
        case "createdAt": return record.createdAt.rfc3339
        case "updatedAt": return record.updatedAt.rfc3339
        case "capturedAt": return record.capturedAt?.rfc3339
        default: return nil
        }
    }
}

/// Provider method words to the contract's `PaymentMethod` (nil when there is no clear match).
enum PaymentMethodName {
    static func contract(_ providerMethod: String?) -> String? {
        guard let method = providerMethod?.lowercased() else { return nil }
        if method.contains("upi") { return "UPI" }
        if method.contains("card") { return "CARD" }
        if method.contains("netbanking") || method == "nb" { return "NETBANKING" }
        if method.contains("wallet") || method == "app" { return "WALLET" }
        if method.contains("emi") { return "EMI" }
        return nil
    }
}

/// `PaymentMethodDetails` (what the provider reported; more fields as the adapters report them).
struct MethodDetailsView: GraphQLFieldReadable {
    var providerMethod: String
    func graphQLField(_ name: String) -> (any Sendable)? { name == "providerMethod" ? providerMethod : nil }
}

/// `PaymentVerification`.
struct VerificationView: GraphQLFieldReadable {
    var method: String
    var at: String
    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "method": method
        case "at": at
        default: nil
        }
    }
}

/// `PaymentFailure`.
struct FailureView: GraphQLFieldReadable {
    var record: PaymentRecord
    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "code": record.errorCode
        case "description": record.errorDescription
        case "reason": record.failureReason
        case "source": record.failureSource
        case "step": record.failureStep
        default: nil
        }
    }
}

/// `Refund`.
struct RefundView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: RefundRecord
    var graphQLTypeName: String { "Refund" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.refund, record.id).description
        case "provider": record.provider.graphQLName
        case "providerRefundId": record.providerRefundID
        case "reference": record.reference
        case "amount": MoneyView(record.amount)
        case "status": record.status
        case "providerStatus": record.providerStatus
        case "speedRequested": record.speedRequested
        case "speedProcessed": record.speedProcessed
        case "reason": record.reason
        case "note": record.note
        case "bankReference": record.bankReference
        case "needsReconciliation": record.needsReconciliation
        case "initiatedBy": record.initiatedBy
        case "failureReason": record.failureReason
        case "createdAt": record.createdAt.rfc3339
        case "updatedAt": record.updatedAt.rfc3339
        case "processedAt": record.processedAt?.rfc3339
        default: nil
        }
    }
}

/// `OrderEvent`.
struct OrderEventView: GraphQLFieldReadable {
    var record: OrderEventRecord

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "at": record.at.rfc3339
        case "kind": record.kind
        case "status": record.status
        case "previousStatus": record.previousStatus
        case "providerStatus": record.providerStatus
        case "source": record.source == "RECONCILER" || record.source == "CLIENT" || record.source == "OPS" ? "API" : record.source
        case "message": record.message
        default: nil
        }
    }
}

/// `PageInfo`.
struct PageInfoView: GraphQLFieldReadable {
    var hasNextPage: Bool
    var hasPreviousPage: Bool
    var startCursor: String?
    var endCursor: String?

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "hasNextPage": hasNextPage
        case "hasPreviousPage": hasPreviousPage
        case "startCursor": startCursor
        case "endCursor": endCursor
        default: nil
        }
    }
}

/// A Relay connection page: `edges`, `nodes`, `pageInfo`.
struct ConnectionView: GraphQLFieldReadable {
    var nodes: [any Sendable]
    var cursors: [String]
    var pageInfo: PageInfoView

    /// A page from `limit + 1` fetched rows (the extra row means there is a next page).
    init<Row>(rows: [Row], limit: Int, hadCursor: Bool, node: (Row) -> any Sendable, cursor: (Row) -> KeysetCursor) {
        let page = Array(rows.prefix(limit))
        nodes = page.map(node)
        cursors = page.map { cursor($0).text }
        pageInfo = PageInfoView(hasNextPage: rows.count > limit, hasPreviousPage: hadCursor,
                                startCursor: cursors.first, endCursor: cursors.last)
    }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "nodes": nodes
        case "edges": zip(cursors, nodes).map { EdgeView(cursor: $0, node: $1) } as [any Sendable]
        case "pageInfo": pageInfo
        default: nil
        }
    }
}

/// A connection edge.
struct EdgeView: GraphQLFieldReadable {
    var cursor: String
    var node: any Sendable
    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "cursor": cursor
        case "node": node
        default: nil
        }
    }
}

/// A mutation payload: named members plus `userErrors`.
struct PayloadView: GraphQLFieldReadable {
    var members: [String: any Sendable]
    var userErrors: [UserError]

    /// Non-null Boolean payload fields, false when the mutation did not get that far.
    static let booleanFields: Set<String> = ["existing", "verified", "revoked", "removed", "allotted", "eligible"]

    func graphQLField(_ name: String) -> (any Sendable)? {
        if name == "userErrors" { return userErrors.map(UserErrorView.init) as [any Sendable] }
        if let member = members[name] { return member }
        if Self.listFields.contains(name) { return [] as [any Sendable] }
        return Self.booleanFields.contains(name) ? false : nil
    }

    /// Non-null list payload fields, empty when the mutation did not get that far.
    static let listFields: Set<String> = ["linkedUpiAccounts"]
}
