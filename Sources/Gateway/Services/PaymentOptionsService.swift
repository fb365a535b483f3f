import Foundation
import PaymentsCore
import Providers
import Support

/// Instamojo's payment options for a custom checkout UI (flow F14) and the netbanking /
/// wallet form-post built from them (flow F15).
///
/// Options are read from the provider (`checkout-options` of the gateway order) and kept for
/// a short while (``cacheLifetime``, ≤ 60 s as the contract says), at most ``cacheCapacity``
/// orders, so a screen that re-renders does not cost an upstream call each time.
///
/// Decision 6 — PayQL's OAuth token never leaves the server. Instamojo's iOS SDK posts
/// `access_token=<the merchant's token>&bank_code=…` (or `&wallet_id=…`) to the option's
/// `submission_url` (seed 002:L131-141, L221-232). PayQL builds the same form **without**
/// the token: only the bank code or wallet id, posted to the order's own submission URL.
/// Unsure: no Instamojo document says whether the submission accepts the form without
/// `access_token`; the order id in the URL is the only credential here. If Instamojo turns
/// out to require the token, this form cannot be offered (decision 6 wins) and apps pay on
/// the hosted `paymentUrl` instead.
final class PaymentOptionsService: Sendable {
    /// How long fetched options are reused.
    static let cacheLifetime: Duration = .seconds(30)
    /// The most orders whose options are kept.
    static let cacheCapacity = 512

    /// Options of one gateway order and when they were read.
    struct Fetched: Sendable {
        var options: PaymentOptions
        var fetchedAt: Date
    }

    private let providers: ProviderRegistry
    private let cache = Locked<[String: (fetched: Fetched, until: ContinuousClock.Instant)]>([:])

    init(providers: ProviderRegistry) { self.providers = providers }

    /// The options of an Instamojo order; nil for orders of other providers (no such capability).
    /// A final order, or one whose gateway order is unknown, has nothing to offer (INVALID_STATE).
    func options(for order: OrderRecord, context: GatewayRequestContext) async throws -> Fetched? {
        guard order.provider == .instamojo else { return nil }
        guard !order.status.isFinal else { throw UserError(.invalidState, "the order is \(order.status.rawValue)") }
        guard case .instamojo(let gatewayOrderID, _, _)? = order.checkout else {
            throw UserError(.invalidState, "the order has no Instamojo gateway order yet (it is being reconciled)")
        }
        let now = ContinuousClock.now
        if let hit = cache.withLock({ $0[gatewayOrderID] }), hit.until > now { return hit.fetched }
        guard let instamojo = providers.instamojo else { throw UserError(.noRoute, "INSTAMOJO is not configured", provider: .instamojo) }
        let options: PaymentOptions
        do {
            options = try await context.timingProvider { try await instamojo.paymentOptions(gatewayOrderID: gatewayOrderID) }
        } catch let error as ProviderError {
            throw UserError.provider(error)
        }
        let fetched = Fetched(options: options, fetchedAt: Date())
        cache.withLock { cache in
            if cache.count >= Self.cacheCapacity {
                cache = cache.filter { $0.value.until > now }
                // Still full of live entries: drop one; a miss only costs an upstream call.
                if cache.count >= Self.cacheCapacity, let any = cache.keys.first { cache.removeValue(forKey: any) }
            }
            cache[gatewayOrderID] = (fetched, now + Self.cacheLifetime)
        }
        return fetched
    }

    /// The browser form-post for a NETBANKING bank or a WALLET (the SDK's `BrowserParams`).
    struct Redirect: Sendable, Hashable {
        var url: String
        var formFields: [(key: String, value: String)]
        var endURLPatterns: [String]

        static func == (lhs: Redirect, rhs: Redirect) -> Bool {
            lhs.url == rhs.url && lhs.endURLPatterns == rhs.endURLPatterns
                && lhs.formFields.map(\.key) == rhs.formFields.map(\.key) && lhs.formFields.map(\.value) == rhs.formFields.map(\.value)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(url)
            for field in formFields { hasher.combine(field.key); hasher.combine(field.value) }
        }
    }

    /// Builds the form for `method` from the order's current options; the bank code or wallet id
    /// must be one of them. Carries no token (see the type's comment).
    func redirect(for order: OrderRecord, method: String, bankCode: String?, walletID: String?,
                  context: GatewayRequestContext) async throws -> Redirect {
        guard order.provider == .instamojo else {
            throw UserError(.capabilityNotSupported, "\(order.provider.graphQLName) orders have no redirect payments; use the provider's checkout",
                            field: ["input", "orderId"])
        }
        let field: String, value: String, choices: [PaymentOptions.Choice], submission: String?
        switch method {
        case "NETBANKING":
            guard walletID == nil else {
                throw UserError(.invalidParameterCombination, "walletId is for WALLET; NETBANKING takes bankCode", field: ["input", "walletId"])
            }
            guard let bankCode, !bankCode.isEmpty else { throw UserError.required("bankCode") }
            (field, value) = ("bank_code", bankCode)
            guard let fetched = try await options(for: order, context: context) else { throw UserError(.capabilityNotSupported, "no options") }
            (choices, submission) = (fetched.options.netbankingBanks, fetched.options.netbankingSubmissionURL)
        case "WALLET":
            guard bankCode == nil else {
                throw UserError(.invalidParameterCombination, "bankCode is for NETBANKING; WALLET takes walletId", field: ["input", "bankCode"])
            }
            guard let walletID, !walletID.isEmpty else { throw UserError.required("walletId") }
            (field, value) = ("wallet_id", walletID)
            guard let fetched = try await options(for: order, context: context) else { throw UserError(.capabilityNotSupported, "no options") }
            (choices, submission) = (fetched.options.wallets, fetched.options.walletSubmissionURL)
        default:
            throw UserError(.validationFailed, "startRedirectPayment takes NETBANKING or WALLET (cards and EMI are paid in the SDK or on paymentUrl)",
                            field: ["input", "method"])
        }
        let inputField = field == "bank_code" ? "bankCode" : "walletId"
        guard let submission, submission.hasPrefix("https://") || submission.hasPrefix("http://") else {
            throw UserError(.capabilityNotSupported, "INSTAMOJO offers no \(method) for this order", field: ["input", "method"], provider: .instamojo)
        }
        guard choices.contains(where: { $0.id == value }) else {
            throw UserError(.validationFailed, "\(value) is not among this order's \(method) options (read order.paymentOptions)",
                            field: ["input", inputField])
        }
        return Redirect(url: submission, formFields: [(field, value)], endURLPatterns: order.returnURL.map { [Self.prefixPattern($0)] } ?? [])
    }

    /// A regular expression matching `url` and anything after it (the return URL with its query).
    static func prefixPattern(_ url: String) -> String {
        let special: Set<Character> = ["\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}"]
        var escaped = "^"
        for character in url {
            if special.contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + ".*"
    }
}
