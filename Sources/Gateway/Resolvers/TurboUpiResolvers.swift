import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Razorpay Turbo UPI in the schema: `createTurboUpiSession`, `syncLinkedUpiAccounts`,
/// `removeLinkedUpiAccount`, `Query.linkedUpiAccounts`, `Customer.linkedUpiAccounts`,
/// `LinkedUpiAccount.customer` / `.tpvBankAccount` and `node(id:)` for LinkedUpiAccount ids.
enum TurboUpiResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        MutationResolvers.mutation(&set, "createTurboUpiSession", services) { input, context in
            let session = try await createSession(input, context: context, services: services)
            return MutationResolvers.MutationResult(members: members(session), ids: ["customer": session.customerID])
        } replayWithInput: { _, input, context in
            // The token is never stored for replay: the same (hash-checked) input mints a fresh one.
            members(try await createSession(input, context: context, services: services))
        }

        MutationResolvers.mutation(&set, "syncLinkedUpiAccounts", services, hashedInput: maskedForHash) { input, context in
            let accounts = try (input.object["accounts"]?.arrayValue ?? []).enumerated().map { index, value throws(UserError) in
                guard let object = value.objectValue else {
                    throw UserError(.validationFailed, "each account is an object", field: ["input", "accounts", String(index)])
                }
                let account = InputReader(object, path: ["input", "accounts", String(index)])
                return LinkedUpiAccountService.AccountInput(
                    accountNumber: account.string("accountNumber"), type: account.string("type"), ifsc: account.string("ifsc"),
                    bankName: account.string("bankName"), bankLogoURL: account.string("bankLogoUrl"),
                    bankPlaceholderURL: account.string("bankPlaceholderUrl"), pinLength: account.int("pinLength"),
                    accountType: account.string("accountType"))
            }
            let stored = try await services.linkedUpiAccounts.sync(LinkedUpiAccountService.SyncRequest(
                mobileNumber: try input.requiredString("mobileNumber"), customerID: try input.id("customerId", of: .customer),
                source: try input.requiredString("source"), accounts: accounts, isCompleteList: input.bool("isCompleteList") ?? false,
                orderID: try input.id("orderId", of: .order)), context: context)
            var ids: [String: UUID?] = [:]
            for (index, account) in stored.enumerated() { ids["account.\(index)"] = account.id }
            return MutationResolvers.MutationResult(members: ["linkedUpiAccounts": stored.map(LinkedUpiAccountView.init) as [any Sendable]], ids: ids)
        } replay: { ids in
            var found: [UUID] = []
            while let id = ids.uuid("account.\(found.count)") { found.append(id) }
            let records = try await services.linkedAccountStore.find(ids: found)
            return ["linkedUpiAccounts": found.compactMap { records[$0] }.map(LinkedUpiAccountView.init) as [any Sendable]]
        }

        MutationResolvers.mutation(&set, "removeLinkedUpiAccount", services) { input, context in
            let removed = try await services.linkedUpiAccounts.remove(id: try input.requiredID("linkedUpiAccountId", of: .linkedUpiAccount),
                                                                      context: context)
            return MutationResolvers.MutationResult(members: ["linkedUpiAccount": LinkedUpiAccountView(record: removed)], ids: ["account": removed.id])
        } replay: { ids in
            ["linkedUpiAccount": try await ids.uuid("account").asyncMap { try await services.linkedAccountStore.find(id: $0) }?.map(LinkedUpiAccountView.init)]
        }

        set.async("Query", "linkedUpiAccounts") { input in
            let principal = try input.gateway.principal
            let customerID: UUID?
            if let text = input[argument: "customerId"]?.stringValue {
                // A malformed or foreign-typed id names no customer: nothing to list.
                guard let id = GlobalID(text, of: .customer) else { return [] as [any Sendable] }
                customerID = id.uuid
            } else {
                customerID = nil
            }
            let found = try await services.linkedUpiAccounts.list(
                customerID: customerID, mobileNumber: input[argument: "mobileNumber"]?.stringValue,
                includeInactive: input[argument: "includeInactive"]?.boolValue ?? false, principal: principal)
            return found.map(LinkedUpiAccountView.init) as [any Sendable]
        }

        set.sync("Customer", "linkedUpiAccounts") { input in
            guard let customer = input.source as? CustomerView else { return [] as [any Sendable] }
            let includeInactive = input[argument: "includeInactive"]?.boolValue ?? false
            return input.loaders.loader(includeInactive ? "linkedUpiAccounts.all" : "linkedUpiAccounts.active") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.linkedAccountStore.list(customerIDs: ids, includeInactive: includeInactive)
                    return ids.map { (found[$0] ?? []).map(LinkedUpiAccountView.init) as [any Sendable] }
                }
            }.load(customer.record.id)
        }
        set.sync("LinkedUpiAccount", "customer") { input in
            guard let account = input.source as? LinkedUpiAccountView, let id = account.record.customerID else { return nil }
            return ObjectResolvers.customerLoader(input, services).load(id)
        }
        set.sync("LinkedUpiAccount", "tpvBankAccount") { input in
            guard let account = input.source as? LinkedUpiAccountView, let id = account.record.bankAccountID else { return nil }
            return BankAccountResolvers.loader(input, services).load(id)
        }
    }

    /// The input whose hash is stored with the idempotency key: each `accountNumber` reduced to
    /// its mask, so no hash of a full account or card number sent by mistake is kept either.
    @Sendable private static func maskedForHash(_ input: JSONObject) -> JSONObject {
        guard let accounts = input["accounts"]?.arrayValue else { return input }
        var copy = input
        copy["accounts"] = .array(accounts.map { value in
            guard var account = value.objectValue, let number = account["accountNumber"]?.stringValue else { return value }
            account["accountNumber"] = LinkedUpiAccountService.mask(number).map(JSONValue.string) ?? .string("invalid")
            return .object(account)
        })
        return copy
    }

    /// Decodes `createTurboUpiSession`'s input and asks the service.
    private static func createSession(_ input: InputReader, context: GatewayRequestContext,
                                      services: GatewayServices) async throws -> TurboSessionService.Session {
        let tpv = try input.nested("tpv").map { tpv throws(UserError) in
            TurboSessionService.Request.TPV(orderID: try tpv.id("orderId", of: .order), bankAccountID: try tpv.id("bankAccountId", of: .bankAccount))
        }
        return try await services.turboSessions.create(TurboSessionService.Request(
            customerID: try input.id("customerId", of: .customer), mobileNumber: input.string("mobileNumber"), tpv: tpv), context: context)
    }

    /// The payload members of a minted session.
    private static func members(_ session: TurboSessionService.Session) -> [String: (any Sendable)?] {
        ["session": TurboUpiSessionView(session: session), "tpvLinking": session.linking.map(TurboTpvLinkingView.init)]
    }

    /// `node(id:)` for a LinkedUpiAccount id: null when absent or not the caller's to see.
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> LinkedUpiAccountView? {
        guard let record = try await services.linkedAccountStore.find(id: id), principal.maySee(customerID: record.customerID) else { return nil }
        return LinkedUpiAccountView(record: record)
    }
}

/// `TurboUpiSession`: the token exists only in this value, for this response.
struct TurboUpiSessionView: GraphQLFieldReadable {
    /// The minted session.
    var session: TurboSessionService.Session

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "token": session.token.revealed
        case "expiresAt":
            session.expiresAtUnix.multipliedReportingOverflow(by: 1_000_000).overflow
                ? nil : PostgresTimestamp(microsecondsSinceEpoch: session.expiresAtUnix * 1_000_000).rfc3339
        case "customerReference": session.customerReference
        default: nil
        }
    }
}

/// `TurboTpvLinkParameters`.
struct TurboTpvLinkingView: GraphQLFieldReadable {
    /// The builder's values.
    var linking: TurboSessionService.Linking

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "mobileNumber": linking.mobileNumber
        case "razorpayOrderId": linking.razorpayOrderID
        case "razorpayCustomerId": linking.razorpayCustomerID
        case "whitelistedAccounts": linking.whitelistedAccounts.map(BankAccountView.init) as [any Sendable]
        default: nil
        }
    }
}

/// `LinkedUpiAccount`: the mask and display details; no other digit was ever kept.
struct LinkedUpiAccountView: GraphQLFieldReadable, GraphQLTypeNamed {
    /// The stored account.
    var record: LinkedAccountRecord
    var graphQLTypeName: String { "LinkedUpiAccount" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.linkedUpiAccount, record.id).description
        case "mobileNumber": record.mobileNumber
        case "provider": record.provider.graphQLName
        case "type": record.kind
        case "maskedAccountNumber": record.maskedIdentifier
        case "ifsc": record.ifsc
        case "bankName": record.bankName
        case "bankLogoUrl": record.bankLogoURL
        case "bankPlaceholderUrl": record.bankPlaceholderURL
        case "pinLength": record.pinLength
        case "accountType": record.accountType
        case "status": record.status
        case "source": record.source
        case "linkedAt": record.linkedAt.rfc3339
        case "lastSeenAt": record.lastSeenAt.rfc3339
        default: nil
        }
    }
}
