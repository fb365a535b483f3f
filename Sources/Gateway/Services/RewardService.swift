import Foundation
import PaymentsCore
import Postgres

/// Reward offers and eligibility (docs/api.md, "Rewards"; API README decision 5). Allotment for
/// PAID orders is not here: it happens in the PAID transition (``RewardStore/allotForPaidOrder(_:source:onlyOffer:on:)``).
struct RewardService: Sendable {
    let store: RewardStore
    let customers: CustomerStore

    /// The most coupon codes one `upsertRewardOffer` adds.
    static let maxCouponsPerCall = 10_000

    /// What `upsertRewardOffer` asks, as decoded from its input.
    struct UpsertRequest: Sendable {
        var id: UUID?
        var name: String
        var action: String
        var partnerName: String
        var partnerLogoURL: String?
        var preAllotText: String?
        var postAllotText: String?
        var terms: [String]
        var minAmount: (minorUnits: Int64, currency: String)?
        var maxAmount: (minorUnits: Int64, currency: String)?
        var validFrom: String?
        var validUntil: String?
        var active: Bool
        var maxPerCustomer: Int64
        var addCouponCodes: [String]
    }

    /// Checks and stores an offer; every rule broken is a ``UserError`` naming its field, and nothing is written.
    func upsert(_ request: UpsertRequest) async throws -> RewardOfferRecord {
        let name = request.name.trimmingCharacters(in: .whitespaces)
        let partner = request.partnerName.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(name.count) else { throw UserError(.validationFailed, "name must be 1 to 200 characters", field: ["input", "name"]) }
        guard (1...200).contains(partner.count) else {
            throw UserError(.validationFailed, "partnerName must be 1 to 200 characters", field: ["input", "partnerName"])
        }
        guard ["ONBOARDING", "PAYMENT"].contains(request.action) else {
            throw UserError(.validationFailed, "action must be ONBOARDING or PAYMENT", field: ["input", "action"])
        }
        if request.action == "ONBOARDING", request.minAmount != nil || request.maxAmount != nil {
            throw UserError(.invalidParameterCombination, "an ONBOARDING offer has no amount window", field: ["input", "minAmount"])
        }
        let currency = request.minAmount?.currency ?? request.maxAmount?.currency ?? "INR"
        for (field, money) in [("minAmount", request.minAmount), ("maxAmount", request.maxAmount)] {
            guard let money else { continue }
            guard Currency.known(money.currency) != nil else {
                throw UserError(.unsupportedCurrency, "unknown currency \(money.currency)", field: ["input", field, "currency"])
            }
            guard money.currency == currency else {
                throw UserError(.validationFailed, "minAmount and maxAmount must be in one currency", field: ["input", field, "currency"])
            }
        }
        if let low = request.minAmount?.minorUnits, let high = request.maxAmount?.minorUnits, low > high {
            throw UserError(.amountOutOfRange, "minAmount is above maxAmount", field: ["input", "maxAmount"])
        }
        if let from = request.validFrom, let until = request.validUntil,
           let start = Self.date(from), let end = Self.date(until), start >= end {
            throw UserError(.validationFailed, "validUntil must be after validFrom", field: ["input", "validUntil"])
        }
        guard (1...1_000_000).contains(request.maxPerCustomer) else {
            throw UserError(.validationFailed, "maxPerCustomer must be between 1 and 1000000", field: ["input", "maxPerCustomer"])
        }
        if let index = request.terms.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw UserError(.validationFailed, "a term is empty", field: ["input", "termsAndConditions", String(index)])
        }
        guard request.addCouponCodes.count <= Self.maxCouponsPerCall else {
            throw UserError(.validationFailed, "at most \(Self.maxCouponsPerCall) coupon codes per call", field: ["input", "addCouponCodes"])
        }
        var codes: [String] = []
        var seen: Set<String> = []
        for (index, raw) in request.addCouponCodes.enumerated() {
            let code = raw.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(code.count) else {
                throw UserError(.validationFailed, "a coupon code must be 1 to 200 characters", field: ["input", "addCouponCodes", String(index)])
            }
            if seen.insert(code).inserted { codes.append(code) }
        }
        let stored = try await store.upsert(RewardStore.OfferInput(
            id: request.id, name: name, action: request.action, partnerName: partner, partnerLogoURL: request.partnerLogoURL,
            preAllotText: request.preAllotText, postAllotText: request.postAllotText, terms: request.terms, currency: currency,
            minAmountMinor: request.minAmount?.minorUnits, maxAmountMinor: request.maxAmount?.minorUnits, validFrom: request.validFrom,
            validUntil: request.validUntil, active: request.active, maxPerCustomer: Int(request.maxPerCustomer), addCouponCodes: codes))
        guard let stored else { throw UserError(.notFound, "no reward offer with this id", field: ["input", "id"]) }
        return stored
    }

    /// What `allotReward` asks.
    struct AllotRequest: Sendable {
        var action: String
        var orderID: UUID?
        var customerID: UUID?
        var mobile: String?
        var offerID: UUID?
    }

    /// `allotReward`: ONBOARDING for a customer or mobile (source MANUAL), or PAYMENT for a verified
    /// PAID order (the automatic allotment again, e.g. after coupons were added: still once per
    /// (offer, order); an already allotted reward is returned). None to give → NOT_ELIGIBLE.
    func allot(_ request: AllotRequest) async throws -> RewardRecord {
        if request.action == "PAYMENT" {
            guard let orderID = request.orderID else { throw UserError.required("orderId") }
            guard request.customerID == nil, request.mobile == nil else {
                throw UserError(.invalidParameterCombination, "a PAYMENT reward goes to the order's customer: give orderId only",
                                field: ["input", "customerId"])
            }
            let found = try await store.pool.withTransaction { connection -> RewardRecord? in
                guard let order = try await OrderStore.lock(orderID: orderID, on: connection) else {
                    throw UserError(.notFound, "no such order", field: ["input", "orderId"])
                }
                guard order.status == .paid else {
                    throw UserError(.notEligible, "the order is \(order.status.rawValue), not verified PAID", field: ["input", "orderId"])
                }
                try await RewardStore.allotForPaidOrder(order, source: "API", onlyOffer: request.offerID, on: connection)
                return try await connection.query("""
                    SELECT \(sql: RewardStore.rewardColumns) FROM rewards
                    WHERE order_id = \(orderID) AND status = 'ALLOTTED' AND (\(request.offerID)::uuid IS NULL OR offer_id = \(request.offerID))
                    ORDER BY created_at DESC, id DESC LIMIT 1
                    """).first.map(RewardStore.reward)
            }
            guard let found else { throw UserError(.notEligible, "no reward offer applies to this order, or its pool is empty") }
            return found
        }
        guard request.orderID == nil else {
            throw UserError(.invalidParameterCombination, "an ONBOARDING reward has no order", field: ["input", "orderId"])
        }
        var mobile = request.mobile
        if let id = request.customerID {
            guard let customer = try await customers.find(id: id) else { throw UserError(.notFound, "no such customer", field: ["input", "customerId"]) }
            if let given = mobile, let phone = customer.phone, given != phone {
                throw UserError(.invalidParameterCombination, "mobileNumber is not this customer's phone", field: ["input", "mobileNumber"])
            }
            mobile = mobile ?? customer.phone
        }
        guard let mobile else { throw UserError(.required, "customerId (with a phone) or mobileNumber is required", field: ["input", "mobileNumber"]) }
        guard let reward = try await store.allotOnboarding(customerID: request.customerID, mobile: mobile, onlyOffer: request.offerID) else {
            throw UserError(.notEligible, "no ONBOARDING offer applies (none active, cap reached, or pool empty)")
        }
        return reward
    }

    /// An RFC 3339 `DateTime` (already checked by the scalar), with or without fractional seconds.
    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// An eligibility answer: the offers the customer would get now.
    struct Eligibility: Sendable {
        var action: String
        var amount: (minorUnits: Int64, currency: String)?
        var offers: [RewardOfferRecord]
    }

    /// The offers of `action` (and `amount`) that the customer, named by id or mobile, can still get.
    /// A client session asks only for its own customer (another id, or a mobile that is not its
    /// customer's phone, is FORBIDDEN); a bare PUBLISHABLE key acts for nobody (FORBIDDEN).
    func eligibility(action: String, amount: (minorUnits: Int64, currency: String)?, customerID: UUID?, mobile: String?,
                     principal: Principal) async throws -> Eligibility {
        var customerID = customerID
        var mobile = mobile
        if let bound = principal.boundCustomerID {
            if let customerID, customerID != bound {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may ask only for its own customer")
            }
            customerID = bound
        } else if !principal.holdsAny(of: [.secret, .ops]) {
            throw GatewayRequestError(code: "FORBIDDEN", message: "a publishable key asks through a client session (createClientSession)")
        }
        if let id = customerID {
            guard let customer = try await customers.find(id: id) else { return Eligibility(action: action, amount: amount, offers: []) }
            if principal.boundCustomerID != nil, let given = mobile, given != customer.phone {
                throw GatewayRequestError(code: "FORBIDDEN", message: "a client session may ask only for its own customer's mobile")
            }
            mobile = mobile ?? customer.phone
        }
        guard customerID != nil || mobile != nil else {
            throw GatewayRequestError.badInput("rewardEligibility needs customerId or mobileNumber")
        }
        let offers = try await store.eligibleOffers(action: action, amountMinor: amount?.minorUnits, currency: amount?.currency ?? "INR",
                                                    customerID: customerID, mobile: mobile)
        return Eligibility(action: action, amount: amount, offers: offers)
    }
}
