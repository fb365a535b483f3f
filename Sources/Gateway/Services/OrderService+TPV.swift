import Foundation
import PaymentsCore
import Providers

/// TPV orders (flow F3, decision 9): the order names one of its customer's ACTIVE whitelisted
/// accounts and a method; the provider gets the full number (Razorpay `bank_account`, Cashfree
/// `customer_bank_account_number` + `customer_bank_ifsc`) opened from the sealed column.
extension OrderService {
    /// The methods Razorpay's TPV orders accept (docs/providers/razorpay.md §3, Orders).
    static let tpvMethods: Set<String> = ["NETBANKING", "CARD", "UPI"]

    /// The account a TPV order must be paid from, and what the provider is sent; nil for other flows.
    func tpvAccount(_ request: CreateRequest, customer: CustomerRecord?,
                    provider: ProviderName) async throws -> (account: BankAccountRecord, details: BankAccountDetails)? {
        guard request.flow == "TPV" else {
            if request.tpvBankAccountID != nil {
                throw UserError(.invalidParameterCombination, "tpvBankAccountId is only for flow TPV", field: ["input", "tpvBankAccountId"])
            }
            return nil
        }
        guard provider == .razorpay || provider == .cashfree else {
            throw UserError(.capabilityNotSupported, "\(provider.graphQLName) has no TPV orders (RAZORPAY, or CASHFREE per order)",
                            field: ["input", "provider"], provider: provider)
        }
        guard let method = request.method else {
            throw UserError(.required, "a TPV order needs a method (NETBANKING, CARD or UPI)", field: ["input", "method"])
        }
        guard Self.tpvMethods.contains(method) else {
            throw UserError(.invalidParameterCombination, "a TPV order's method is NETBANKING, CARD or UPI, not \(method)", field: ["input", "method"])
        }
        guard let accountID = request.tpvBankAccountID else {
            throw UserError(.required, "a TPV order needs tpvBankAccountId", field: ["input", "tpvBankAccountId"])
        }
        guard let customer else { throw UserError(.required, "a TPV order needs its customer", field: ["input", "customerId"]) }
        // Another customer's account reads as absent: its existence is not the caller's business.
        guard let account = try await bankAccounts.accounts.find(id: accountID), account.customerID == customer.id else {
            throw UserError(.notFound, "the customer has no bank account with this id", field: ["input", "tpvBankAccountId"])
        }
        guard account.status == "ACTIVE" else {
            throw UserError(.invalidState, "the bank account was removed", field: ["input", "tpvBankAccountId"])
        }
        let number = try bankAccounts.accountNumber(of: account)
        return (account, BankAccountDetails(accountNumber: number, ifsc: account.ifsc, beneficiaryName: account.beneficiaryName))
    }

    /// A provider's refusal with any echo of the TPV account number masked.
    static func masked(_ error: UserError, tpv: BankAccountDetails?) -> UserError {
        guard let number = tpv?.accountNumber else { return error }
        var copy = error
        copy.message = BankAccountService.scrub(copy.message, number: number)
        copy.providerCode = copy.providerCode.map { BankAccountService.scrub($0, number: number) }
        return copy
    }
}
