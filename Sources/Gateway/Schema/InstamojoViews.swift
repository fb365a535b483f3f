import Foundation
import GraphQL
import PaymentsCore
import Postgres
import Providers

// GraphQL values of the Instamojo custom UI (flows F14, F15, F18).

/// `PaymentOptions`: a method's option is null when the provider does not offer it (the seed's
/// `order.netBankingOptions == nil`); a list option with no entries counts as not offered.
struct PaymentOptionsView: GraphQLFieldReadable {
    /// What the provider answered, and when.
    var fetched: PaymentOptionsService.Fetched
    /// The order's provider.
    var provider: ProviderName

    private var options: PaymentOptions { fetched.options }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "provider": provider.graphQLName
        case "enabledMethods": enabledMethods
        case "card": options.cards ? CardOptionView() : nil
        case "netbanking": options.netbankingBanks.isEmpty ? nil : ChoiceListView(key: "banks", choices: options.netbankingBanks)
        case "emi": options.emiBanks.isEmpty ? nil : EmiOptionView(banks: options.emiBanks)
        case "wallet": options.wallets.isEmpty ? nil : ChoiceListView(key: "wallets", choices: options.wallets)
        case "upi": options.upi ? UpiOptionView() : nil
        case "fetchedAt": PostgresTimestamp(fetched.fetchedAt).rfc3339
        default: nil
        }
    }

    /// The `PaymentMethod`s whose option is not null, in the contract's order.
    var enabledMethods: [String] {
        var methods: [String] = []
        if options.cards { methods.append("CARD") }
        if !options.netbankingBanks.isEmpty { methods.append("NETBANKING") }
        if !options.emiBanks.isEmpty { methods.append("EMI") }
        if !options.wallets.isEmpty { methods.append("WALLET") }
        if options.upi { methods.append("UPI") }
        return methods
    }
}

/// `CardOption`: card numbers are typed into Instamojo's SDK (seed 002:L57-103), never into PayQL.
struct CardOptionView: GraphQLFieldReadable {
    func graphQLField(_ name: String) -> (any Sendable)? { name == "cardEntry" ? "PROVIDER_SDK" : nil }
}

/// `NetbankingOption` (`banks`) or `WalletOption` (`wallets`).
struct ChoiceListView: GraphQLFieldReadable {
    var key: String
    var choices: [PaymentOptions.Choice]

    func graphQLField(_ name: String) -> (any Sendable)? {
        name == key ? choices.map(PaymentOptionChoiceView.init) as [any Sendable] : nil
    }
}

/// `PaymentOptionChoice`.
struct PaymentOptionChoiceView: GraphQLFieldReadable {
    var choice: PaymentOptions.Choice

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "code": choice.id
        case "name": choice.name
        case "logoUrl": choice.imageURL
        default: nil
        }
    }
}

/// `EmiOption`.
struct EmiOptionView: GraphQLFieldReadable {
    var banks: [PaymentOptions.EMIBank]
    func graphQLField(_ name: String) -> (any Sendable)? { name == "banks" ? banks.map(EmiBankView.init) as [any Sendable] : nil }
}

/// `EmiBank`: plans shortest tenure first (the adapter sorts them).
struct EmiBankView: GraphQLFieldReadable {
    var bank: PaymentOptions.EMIBank

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "code": bank.code
        case "name": bank.name
        case "plans": bank.plans.map(EmiPlanView.init) as [any Sendable]
        default: nil
        }
    }
}

/// `EmiPlan`: the rate as the provider's exact decimal text.
struct EmiPlanView: GraphQLFieldReadable {
    var plan: PaymentOptions.EMIPlan

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "tenureMonths": plan.tenureMonths
        case "annualInterestRatePercent": plan.interestRatePercent
        default: nil
        }
    }
}

/// `UpiOption`.
struct UpiOptionView: GraphQLFieldReadable {
    func graphQLField(_ name: String) -> (any Sendable)? { name == "collectEnabled" ? true : nil }
}

/// `RedirectPayment`: built for this response only (a replay builds it again).
struct RedirectPaymentView: GraphQLFieldReadable {
    var redirect: PaymentOptionsService.Redirect

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "url": redirect.url
        case "httpMethod": "POST"
        case "formFields": redirect.formFields.map { KeyValueView(key: $0.key, value: $0.value) } as [any Sendable]
        // Juspay's client id is SDK-internal (seed 002:L137 `order.clientID`); PayQL has none to give.
        case "sdkClientId": nil
        case "endUrlPatterns": redirect.endURLPatterns
        case "expiresAt": nil
        default: nil
        }
    }
}

/// `UpiCollect`. `order` and `payment` have resolvers of their own.
struct UpiCollectView: GraphQLFieldReadable, GraphQLTypeNamed {
    var record: UpiCollectRecord
    /// ``UpiCollectSettings/clientPollIntervalSeconds``.
    var pollIntervalSeconds: Int
    var graphQLTypeName: String { "UpiCollect" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.upiCollect, record.id).description
        case "provider": record.provider.graphQLName
        case "providerPaymentId": record.providerPaymentID
        case "vpaMasked": record.vpaMasked
        case "status": record.status
        case "providerStatusCode": record.providerStatusCode
        case "providerMessage": record.providerMessage
        case "requestedAt": record.requestedAt.rfc3339
        case "lastCheckedAt": record.lastCheckedAt?.rfc3339
        case "nextCheckAt": record.isPending ? record.nextCheckAt.rfc3339 : nil
        case "pollIntervalSeconds": pollIntervalSeconds
        case "lastCheckError": record.lastCheckError
        case "expiresAt": record.expiresAt.rfc3339
        case "completedAt": record.completedAt?.rfc3339
        default: nil
        }
    }
}
