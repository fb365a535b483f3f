import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

// The Setu bill-pay object types (F19–F24). Fields that load other rows (`order`, `customer`,
// `confirmation`, `billPayments`, `billFetches`, `refunds`) have resolvers in BillPayResolvers.swift.

/// `BillPayLink`.
struct BillPayLinkView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: BillPayLinkRecord
    var graphQLTypeName: String { "BillPayLink" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.billPayLink, record.id).description
        case "link": record.link
        case "shortLink": record.shortLink
        case "sessionId": record.sessionID
        case "scenario": record.scenario
        // Stored as Setu wants it (digits); the contract's PhoneNumber is E.164 for Indian 10-digit numbers.
        case "mobileNumber": record.mobileNumber.utf8.count == 10 ? "+91" + record.mobileNumber : "+" + record.mobileNumber
        case "category": record.category
        case "billerId": record.billerID
        case "billParameters": record.billParameters.map(BillParameterView.init) as [any Sendable]
        case "redirectTo": record.redirectTo
        case "traceId": record.traceID
        case "expiresAt": record.expiresAt.rfc3339
        case "createdAt": record.createdAt.rfc3339
        default: nil
        }
    }
}

/// `BillParameter`.
struct BillParameterView: GraphQLFieldReadable {
    var parameter: BillPayLinkRecord.BillParameter
    init(_ parameter: BillPayLinkRecord.BillParameter) { self.parameter = parameter }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "name": parameter.name
        case "value": parameter.value
        default: nil
        }
    }
}

/// `BillPayment`.
struct BillPaymentView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: BillPaymentRecord
    var graphQLTypeName: String { "BillPayment" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.billPayment, record.id).description
        case "setuOrderId": record.setuOrderID
        case "customerMobileNumber":
            record.customerMobileNumber.utf8.count == 10 ? "+91" + record.customerMobileNumber : "+" + record.customerMobileNumber
        case "setuCustomerId": record.setuCustomerID
        case "amount": MoneyView(record.amount)
        case "allowedPaymentModes": record.allowedModes.map(BillPaymentModes.graphQLName) as [any Sendable]
        case "unrecognisedPaymentModes": record.unrecognisedModes
        case "postPaymentUrl": record.postPaymentURL
        case "deprecatedFieldsUsed": record.deprecatedFields
        case "status": record.status
        case "paymentMode": record.paymentMode.map(BillPaymentModes.graphQLName)
        case "biller": record.billerID.map { BillerView(id: $0, name: record.billerName, category: record.billerCategory) }
        case "bills": BillDetailView.list(record.billsJSON)
        case "setuTransactionId": record.setuTransactionID
        case "flaggedReason": record.flaggedReason
        case "flaggedAt": record.flaggedAt?.rfc3339
        case "createdAt": record.createdAt.rfc3339
        case "updatedAt": record.updatedAt.rfc3339
        default: nil
        }
    }
}

/// `Biller`.
struct BillerView: GraphQLFieldReadable {
    var id: String
    var name: String?
    var category: String?

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": id
        case "name": self.name
        case "category": category
        default: nil
        }
    }
}

/// `BillFetch`: a bill fetch Setu reported for a link.
struct BillFetchView: GraphQLFieldReadable {
    var record: BillFetchRecord

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "success": record.success
        case "biller": record.billerID.map { BillerView(id: $0, name: record.billerName, category: record.billerCategory) }
        case "bills": BillDetailView.list(record.billsJSON)
        case "errorCode": record.errorCode
        case "errorMessage": record.errorMessage
        case "at": record.fetchedAt.rfc3339
        default: nil
        }
    }
}

/// `BillDetail`, read from Setu's `billDetails[]` as stored.
struct BillDetailView: GraphQLFieldReadable {
    var bill: JSONValue

    static func list(_ json: String) -> [any Sendable] {
        guard let parsed = try? JSONParser.parse(Array(json.utf8)), let items = parsed.arrayValue else { return [] }
        return items.map { BillDetailView(bill: $0) }
    }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "billNumber": bill["billNumber"]?.stringValue
        case "amount":
            (bill["billAmount"]?.stringValue).flatMap { try? BillPayService.billAmount($0) }.map { MoneyView(minorUnits: $0, currency: .inr) }
        case "billDate": bill["billDate"]?.stringValue
        case "dueDate": bill["dueDate"]?.stringValue
        case "customerName": bill["customerName"]?.stringValue
        default: nil
        }
    }
}

/// `BillPaymentConfirmation`.
struct BillConfirmationView: GraphQLFieldReadable {
    var record: BillConfirmationRecord
    /// Whether the give-up time has passed (a PENDING or SENDING confirmation then reads FAILED).
    var pastGiveUp: Bool

    init(record: BillConfirmationRecord, now: PostgresTimestamp = PostgresTimestamp(Date())) {
        self.record = record
        pastGiveUp = record.giveUpAt < now
    }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "status": ["PENDING", "SENDING"].contains(record.status) && pastGiveUp ? "FAILED" : record.status
        case "paymentStatus": record.outcome
        case "transactionId": record.transactionID
        case "paymentMode": BillPaymentModes.graphQLName(record.paymentMode)
        case "paidAt": record.paidAt.rfc3339
        case "amount": MoneyView(record.amount)
        case "failureCode": record.failureCode
        case "failureMessage": record.failureMessage
        case "attempts": record.attempts
        case "lastAttemptAt": record.lastAttemptAt?.rfc3339
        case "lastError": record.lastError
        case "acknowledgedAt": record.acknowledgedAt?.rfc3339
        case "bankReference": record.bankReference
        default: nil
        }
    }
}
