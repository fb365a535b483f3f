import Foundation
import GraphQL
import JSON
import PaymentsCore
import Postgres

/// Rewards in the schema: `upsertRewardOffer`, `allotReward`, `rewardEligibility`, `rewardOffers`, `rewards`,
/// `Customer.rewards`, `Order.rewards` / `Order.rewardStatus`, `Reward.offer` / `.customer` / `.order` and `node(id:)`
/// for RewardOffer and Reward ids.
enum RewardResolvers {
    static func register(_ set: inout ResolverSet, services: GatewayServices) {
        MutationResolvers.mutation(&set, "upsertRewardOffer", services) { input, _ in
            let offer = try await services.rewards.upsert(RewardService.UpsertRequest(
                id: try input.id("id", of: .rewardOffer), name: try input.requiredString("name"), action: try input.requiredString("action"),
                partnerName: try input.requiredString("partnerName"), partnerLogoURL: input.string("partnerLogoUrl"),
                preAllotText: input.string("preAllotText"), postAllotText: input.string("postAllotText"),
                terms: input.strings("termsAndConditions") ?? [], minAmount: try input.money("minAmount"), maxAmount: try input.money("maxAmount"),
                validFrom: input.string("validFrom"), validUntil: input.string("validUntil"), active: input.bool("active") ?? true,
                maxPerCustomer: input.int("maxPerCustomer") ?? 1, addCouponCodes: input.strings("addCouponCodes") ?? []))
            return MutationResolvers.MutationResult(members: ["rewardOffer": RewardOfferView(record: offer)], ids: ["offer": offer.id])
        } replay: { ids in
            ["rewardOffer": try await ids.uuid("offer").asyncMap { try await services.rewardStore.offers(ids: [$0])[$0] }?.map(RewardOfferView.init)]
        }

        MutationResolvers.mutation(&set, "allotReward", services) { input, _ in
            let reward = try await services.rewards.allot(RewardService.AllotRequest(
                action: try input.requiredString("action"), orderID: try input.id("orderId", of: .order),
                customerID: try input.id("customerId", of: .customer), mobile: input.string("mobileNumber"),
                offerID: try input.id("offerId", of: .rewardOffer)))
            return MutationResolvers.MutationResult(members: ["reward": RewardView(record: reward)], ids: ["reward": reward.id])
        } replay: { ids in
            ["reward": try await ids.uuid("reward").asyncMap { try await services.rewardStore.rewards(ids: [$0])[$0] }?.map(RewardView.init)]
        }

        set.async("Query", "rewardEligibility") { input in
            let context = try input.gateway
            let reader = InputReader(arguments: input.arguments)
            let amount: (minorUnits: Int64, currency: String)?
            let customerID: UUID?
            do throws(UserError) {
                amount = try reader.money("amount")
                customerID = try reader.id("customerId", of: .customer)
            } catch {
                throw GatewayRequestError.badInput(error.message)
            }
            let action = reader.string("action") ?? "PAYMENT"
            let found = try await services.rewards.eligibility(action: action, amount: amount, customerID: customerID,
                                                               mobile: reader.string("mobileNumber"), principal: context.principal)
            return RewardEligibilityView(eligibility: found)
        }
        set.async("Query", "rewardOffers") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue, order: nil)
            let filter = input[argument: "filter"]?.objectValue
            let rows = try await services.rewardStore.listOffers(action: filter?["action"]?.stringValue, active: filter?["active"]?.boolValue,
                                                                 after: page.after, limit: page.first)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { RewardOfferView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        set.async("Query", "rewards") { input in
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue,
                                       order: input[argument: "order"]?.stringValue)
            let reader = InputReader(input[argument: "filter"]?.objectValue ?? JSONObject(), path: ["filter"])
            // An id of another type matches nothing (not an error for a filter).
            let nothing = UUID(uuid: UUID.zero)
            let filter = RewardStore.Filter(
                customerID: reader.string("customerId").map { GlobalID($0, of: .customer)?.uuid ?? nothing },
                mobile: reader.string("mobileNumber"), action: reader.string("action"), statuses: reader.strings("status") ?? [],
                orderID: reader.string("orderId").map { GlobalID($0, of: .order)?.uuid ?? nothing },
                createdAfter: reader.string("createdAfter"), createdBefore: reader.string("createdBefore"))
            let rows = try await services.rewardStore.list(filter: filter, after: page.after, limit: page.first, newestFirst: page.newestFirst)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { RewardView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }

        set.async("Customer", "rewards") { input in
            guard let customer = input.source as? CustomerView else { return nil }
            let page = try PageRequest(first: input[argument: "first"]?.intValue, after: input[argument: "after"]?.stringValue, order: nil)
            let rows = try await services.rewardStore.list(filter: RewardStore.Filter(customerID: customer.record.id), after: page.after,
                                                           limit: page.first, newestFirst: true)
            return ConnectionView(rows: rows, limit: page.first, hadCursor: page.after != nil, node: { RewardView(record: $0) },
                                  cursor: { KeysetCursor(createdAt: $0.createdAt, id: $0.id) })
        }
        set.sync("Order", "rewards") { input in
            guard let order = input.source as? OrderView else { return [] as [any Sendable] }
            return orderRewards(input, services).load(order.record.id)
        }
        set.sync("Order", "rewardStatus") { input in
            guard let order = input.source as? OrderView else { return nil }
            let deferred = orderRewards(input, services).load(order.record.id)
            return Deferred {
                // The best standing of the order's rewards: ALLOTTED over REVOKED over the rest; null when none.
                let statuses = (try await deferred.run() as? [any Sendable] ?? []).compactMap { ($0 as? RewardView)?.record.status }
                return ["ALLOTTED", "REVOKED", "EXPIRED", "ELIGIBLE", "INELIGIBLE"].first(where: statuses.contains)
            }
        }
        set.sync("Reward", "offer") { input in
            guard let reward = input.source as? RewardView, let id = reward.record.offerID else { return nil }
            return input.loaders.loader("rewardOffers") {
                BatchLoader<UUID, RewardOfferView> { ids in
                    let found = try await services.rewardStore.offers(ids: ids)
                    return ids.map { found[$0].map(RewardOfferView.init) }
                }
            }.load(id)
        }
        set.sync("Reward", "customer") { input in
            guard let reward = input.source as? RewardView, let id = reward.record.customerID else { return nil }
            return ObjectResolvers.customerLoader(input, services).load(id)
        }
        set.sync("Reward", "order") { input in
            guard let reward = input.source as? RewardView, let id = reward.record.orderID else { return nil }
            return ObjectResolvers.orderLoader(input, services).load(id)
        }
    }

    /// The rewards of orders, for this request.
    private static func orderRewards(_ input: ResolveInput, _ services: GatewayServices) -> BatchLoader<UUID, [any Sendable]> {
        input.loaders.loader("orderRewards") {
            BatchLoader<UUID, [any Sendable]> { ids in
                let found = try await services.rewardStore.rewards(orderIDs: ids)
                return ids.map { (found[$0] ?? []).map(RewardView.init) as [any Sendable] }
            }
        }
    }

    /// `node(id:)` for RewardOffer ids (SECRET/OPS only) and Reward ids (when the caller may see the customer).
    static func node(_ id: GlobalID, principal: Principal, services: GatewayServices) async throws -> (any Sendable)? {
        switch id.type {
        case .rewardOffer:
            guard principal.holdsAny(of: [.secret, .ops]) else { return nil }
            return try await services.rewardStore.offers(ids: [id.uuid])[id.uuid].map(RewardOfferView.init)
        case .reward:
            guard let record = try await services.rewardStore.rewards(ids: [id.uuid])[id.uuid],
                  principal.maySee(customerID: record.customerID) else { return nil }
            return RewardView(record: record)
        default:
            return nil
        }
    }
}

/// `RewardOffer`.
struct RewardOfferView: GraphQLFieldReadable, GraphQLTypeNamed {
    /// The stored offer.
    var record: RewardOfferRecord
    var graphQLTypeName: String { "RewardOffer" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.rewardOffer, record.id).description
        case "name": record.name
        case "action": record.action
        case "partnerName": record.partnerName
        case "partnerLogoUrl": record.partnerLogoURL
        case "preAllotText": record.preAllotText
        case "postAllotText": record.postAllotText
        case "termsAndConditions": record.terms
        case "minAmount": record.minAmountMinor.map { MoneyView(minorUnits: $0, currency: record.currency) }
        case "maxAmount": record.maxAmountMinor.map { MoneyView(minorUnits: $0, currency: record.currency) }
        case "validFrom": record.validFrom?.rfc3339
        case "validUntil": record.validUntil?.rfc3339
        case "active": record.active
        case "maxPerCustomer": record.maxPerCustomer
        // GraphQL Int is 32-bit: a pool beyond it is clamped (an ops figure).
        case "couponsRemaining": Int(min(record.couponsRemaining, Int64(Int32.max)))
        case "createdAt": record.createdAt.rfc3339
        case "updatedAt": record.updatedAt.rfc3339
        default: nil
        }
    }
}

/// `RewardEligibility`: coupon codes are never in it (only an allotted `Reward` shows one).
struct RewardEligibilityView: GraphQLFieldReadable {
    /// The service's answer.
    var eligibility: RewardService.Eligibility
    /// When the answer was computed.
    var checkedAt = PostgresTimestamp(Date())

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "eligible": !eligibility.offers.isEmpty
        case "action": eligibility.action
        case "amount":
            eligibility.amount.flatMap { amount in Currency.known(amount.currency).map { MoneyView(minorUnits: amount.minorUnits, currency: $0) } }
        case "offers": eligibility.offers.map(RewardOfferView.init) as [any Sendable]
        case "checkedAt": checkedAt.rfc3339
        default: nil
        }
    }
}

/// `Reward`.
struct RewardView: GraphQLFieldReadable, GraphQLTypeNamed {
    /// The stored reward.
    var record: RewardRecord
    var graphQLTypeName: String { "Reward" }

    func graphQLField(_ name: String) -> (any Sendable)? {
        switch name {
        case "id": GlobalID(.reward, record.id).description
        case "mobileNumberMasked": Self.mask(record.mobile)
        case "action": record.action
        case "status": record.status
        case "couponCode": record.status == "ALLOTTED" ? record.coupon : nil
        case "source": record.source
        case "allottedAt": record.allottedAt?.rfc3339
        case "expiresAt": record.expiresAt?.rfc3339
        case "createdAt": record.createdAt.rfc3339
        default: nil
        }
    }

    /// `+91******3210`: the country code and the last four digits.
    static func mask(_ mobile: String) -> String {
        let characters = Array(mobile)
        guard characters.count > 7 else { return String(repeating: "*", count: characters.count) }
        let head = mobile.hasPrefix("+") ? 3 : 0
        return String(characters[..<head]) + String(repeating: "*", count: characters.count - head - 4) + String(characters.suffix(4))
    }
}
