import Crypto
import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// TPV bank accounts in the schema: `addTpvBankAccount`, `removeTpvBankAccount`,
/// `Customer.bankAccounts`, `BankAccount.customer`, `Order.tpvBankAccount` and `node(id:)` for
/// BankAccount ids. Only ``BankAccountView`` reaches a response, and it has no field for the number.
enum BankAccountResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        MutationResolvers.mutation(&set, "addTpvBankAccount", services, hashedInput: { input in
            // The request hash is stored with the idempotency key: hash the number's keyed blind index, not the number.
            var copy = input
            if let number = input["accountNumber"]?.stringValue {
                // Without a data key the call fails (CAPABILITY_NOT_SUPPORTED) and nothing keyed exists: leave the number out.
                copy["accountNumber"] = services.configuration.dataKeys.map { .string(Encoding.hex($0.blindIndex(number))) } ?? .null
            }
            return copy
        }) { input, context in
            let request = BankAccountService.AddRequest(
                customerID: try input.requiredID("customerId", of: .customer), accountNumber: try input.requiredString("accountNumber"),
                ifsc: try input.requiredString("ifsc"), beneficiaryName: try input.requiredString("beneficiaryName"),
                beneficiaryEmail: input.string("beneficiaryEmail"), beneficiaryMobile: input.string("beneficiaryMobile"),
                addressLines: input.strings("beneficiaryAddressLines"), city: input.string("beneficiaryCity"),
                state: input.string("beneficiaryState"), country: input.string("beneficiaryCountry"), pin: input.string("beneficiaryPin"))
            let added = try await services.bankAccounts.add(request, context: context)
            return MutationResolvers.MutationResult(members: ["bankAccount": BankAccountView(record: added.account)], ids: ["bankAccount": added.account.id])
        } replay: { ids in
            ["bankAccount": try await ids.uuid("bankAccount").asyncMap { try await services.bankAccountStore.find(id: $0) }?.map(BankAccountView.init)]
        }

        MutationResolvers.mutation(&set, "removeTpvBankAccount", services) { input, context in
            let removed = try await services.bankAccounts.remove(id: try input.requiredID("bankAccountId", of: .bankAccount), context: context)
            return MutationResolvers.MutationResult(members: ["bankAccount": BankAccountView(record: removed)], ids: ["bankAccount": removed.id])
        } replay: { ids in
            ["bankAccount": try await ids.uuid("bankAccount").asyncMap { try await services.bankAccountStore.find(id: $0) }?.map(BankAccountView.init)]
        }

        set.sync("Customer", "bankAccounts") { input in
            guard let customer = input.source as? CustomerView else { return [] as [any Sendable] }
            let includeRemoved = input[argument: "includeRemoved"]?.boolValue ?? false
            return input.loaders.loader(includeRemoved ? "bankAccounts.all" : "bankAccounts.active") {
                BatchLoader<UUID, [any Sendable]> { ids in
                    let found = try await services.bankAccountStore.list(customerIDs: ids, includeRemoved: includeRemoved)
                    return ids.map { (found[$0] ?? []).map(BankAccountView.init) as [any Sendable] }
                }
            }.load(customer.record.id)
        }
        set.sync("BankAccount", "customer") { input in
            guard let account = input.source as? BankAccountView else { return nil }
            return ObjectResolvers.customerLoader(input, services).load(account.record.customerID)
        }
        set.sync("Order", "tpvBankAccount") { input in
            guard let order = input.source as? OrderView, let id = order.record.bankAccountID else { return nil }
            return loader(input, services).load(id)
        }
    }

    /// Bank accounts by id for this request; a client session sees only its own customer's.
    static func loader(_ input: ResolveInput, _ services: GatewayServices) -> BatchLoader<UUID, BankAccountView> {
        let principal = (input.context as? GatewayRequestContext)?.principal
        return input.loaders.loader("bankAccounts") {
            BatchLoader<UUID, BankAccountView> { ids in
                let found = try await services.bankAccountStore.find(ids: ids)
                return ids.map { id in
                    guard let record = found[id], principal?.maySee(customerID: record.customerID) == true else { return nil }
                    return BankAccountView(record: record)
                }
            }
        }
    }

    /// `node(id:)` for a BankAccount id: null when absent or not the caller's to see.
    static func node(_ id: UUID, principal: Principal, services: GatewayServices) async throws -> BankAccountView? {
        guard let record = try await services.bankAccountStore.find(id: id), principal.maySee(customerID: record.customerID) else { return nil }
        return BankAccountView(record: record)
    }
}

/// `BankAccount`: the mask, the last four digits and the holder; never the number.
struct BankAccountView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: BankAccountRecord
    var graphQLTypeName: String { "BankAccount" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.bankAccount, record.id).description
        case "maskedAccountNumber": record.maskedAccountNumber
        case "last4": record.last4
        case "ifsc": record.providerIFSC ?? record.ifsc
        case "bankName": record.bankName
        case "beneficiaryName": record.beneficiaryName
        case "status": record.status
        case "providerBankAccountIds":
            record.providerRefs.map { ProviderBankAccountIDView(provider: $0.provider.graphQLName, id: $0.id) } as [any Sendable]
        case "createdAt": record.createdAt.rfc3339
        case "removedAt": record.removedAt?.rfc3339
        default: nil
        }
    }
}

/// `ProviderBankAccountId`.
struct ProviderBankAccountIDView: GraphQLFieldReadable {
    var provider: String
    var id: String

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": provider
        case "id": id
        default: nil
        }
    }
}
