import Foundation
import PaymentsCore
import Postgres

/// A row of `reward_offers`.
struct RewardOfferRecord: Sendable, Hashable {
    var id: UUID
    var name: String
    /// `ONBOARDING` or `PAYMENT`.
    var action: String
    var partnerName: String
    var partnerLogoURL: String?
    var preAllotText: String?
    var postAllotText: String?
    var terms: [String]
    var currency: Currency
    var minAmountMinor: Int64?
    var maxAmountMinor: Int64?
    var validFrom: PostgresTimestamp?
    var validUntil: PostgresTimestamp?
    var active: Bool
    var maxPerCustomer: Int
    /// Coupons of the pool not yet allotted.
    var couponsRemaining: Int64
    var createdAt: PostgresTimestamp
    var updatedAt: PostgresTimestamp
}

/// A row of `rewards`.
struct RewardRecord: Sendable, Hashable {
    var id: UUID
    var offerID: UUID?
    var customerID: UUID?
    var mobile: String
    var action: String
    var status: String
    var coupon: String?
    var orderID: UUID?
    var source: String
    var allottedAt: PostgresTimestamp?
    var expiresAt: PostgresTimestamp?
    var createdAt: PostgresTimestamp
}

/// Reward offers, their coupon pools and allotted rewards.
///
/// Allotment (``allotForPaidOrder(_:source:onlyOffer:on:)``) runs inside the transaction that moves an order to
/// PAID: one reward per (offer, order) by the `rewards_offer_order_key` constraint, and the
/// coupon taken from the pool with `FOR UPDATE SKIP LOCKED`, so concurrent allotments never
/// hand out one coupon twice and never wait on each other's coupon rows.
struct RewardStore: Sendable {
    let pool: PostgresPool

    /// The columns every offer read selects, in ``offer(_:)``'s order (`o` is `reward_offers`).
    static let offerColumns: StaticString = """
        o.id, o.name, o.action, o.partner_name, o.partner_logo_url, o.pre_allot_text, o.post_allot_text, o.terms, o.currency, \
        o.min_amount_minor, o.max_amount_minor, o.valid_from, o.valid_until, o.active, o.max_per_customer, \
        (SELECT count(*) FROM reward_coupons c WHERE c.offer_id = o.id AND c.reward_id IS NULL), o.created_at, o.updated_at
        """

    static func offer(_ row: PostgresRow) throws -> RewardOfferRecord {
        guard let currency = Currency.known(try row.decode(String.self, at: 8)) else {
            throw GatewayRequestError.internal("a reward offer row holds an unknown currency")
        }
        return RewardOfferRecord(
            id: try row.decode(UUID.self, at: 0), name: try row.decode(String.self, at: 1), action: try row.decode(String.self, at: 2),
            partnerName: try row.decode(String.self, at: 3), partnerLogoURL: try row.decode(String?.self, at: 4),
            preAllotText: try row.decode(String?.self, at: 5), postAllotText: try row.decode(String?.self, at: 6),
            terms: try row.decode([String].self, at: 7), currency: currency, minAmountMinor: try row.decode(Int64?.self, at: 9),
            maxAmountMinor: try row.decode(Int64?.self, at: 10), validFrom: try row.decode(PostgresTimestamp?.self, at: 11),
            validUntil: try row.decode(PostgresTimestamp?.self, at: 12), active: try row.decode(Bool.self, at: 13),
            maxPerCustomer: Int(try row.decode(Int32.self, at: 14)), couponsRemaining: try row.decode(Int64.self, at: 15),
            createdAt: try row.decode(PostgresTimestamp.self, at: 16), updatedAt: try row.decode(PostgresTimestamp.self, at: 17))
    }

    /// The columns every reward read selects, in ``reward(_:)``'s order.
    static let rewardColumns: StaticString = """
        id, offer_id, customer_id, mobile, action, status, coupon, order_id, source, allotted_at, expires_at, created_at
        """

    static func reward(_ row: PostgresRow) throws -> RewardRecord {
        RewardRecord(
            id: try row.decode(UUID.self, at: 0), offerID: try row.decode(UUID?.self, at: 1), customerID: try row.decode(UUID?.self, at: 2),
            mobile: try row.decode(String.self, at: 3), action: try row.decode(String.self, at: 4), status: try row.decode(String.self, at: 5),
            coupon: try row.decode(String?.self, at: 6), orderID: try row.decode(UUID?.self, at: 7), source: try row.decode(String.self, at: 8),
            allottedAt: try row.decode(PostgresTimestamp?.self, at: 9), expiresAt: try row.decode(PostgresTimestamp?.self, at: 10),
            createdAt: try row.decode(PostgresTimestamp.self, at: 11))
    }

    /// An offer as `upsertRewardOffer` writes it (already validated by ``RewardService``).
    struct OfferInput: Sendable {
        var id: UUID?
        var name: String
        var action: String
        var partnerName: String
        var partnerLogoURL: String?
        var preAllotText: String?
        var postAllotText: String?
        var terms: [String]
        var currency: String
        var minAmountMinor: Int64?
        var maxAmountMinor: Int64?
        var validFrom: String?
        var validUntil: String?
        var active: Bool
        var maxPerCustomer: Int
        var addCouponCodes: [String]
    }

    /// Creates or replaces an offer and adds coupon codes to its pool (a code already in the
    /// pool is not added again); nil when `input.id` names no offer.
    func upsert(_ input: OfferInput) async throws -> RewardOfferRecord? {
        try await pool.withTransaction { connection in
            let id: UUID
            if let existing = input.id {
                let rows = try await connection.query("""
                    UPDATE reward_offers SET name = \(input.name), action = \(input.action), partner_name = \(input.partnerName),
                        partner_logo_url = \(input.partnerLogoURL), pre_allot_text = \(input.preAllotText),
                        post_allot_text = \(input.postAllotText), terms = \(input.terms), currency = \(input.currency),
                        min_amount_minor = \(input.minAmountMinor), max_amount_minor = \(input.maxAmountMinor),
                        valid_from = \(input.validFrom)::timestamptz, valid_until = \(input.validUntil)::timestamptz,
                        active = \(input.active), max_per_customer = \(Int32(clamping: input.maxPerCustomer)), updated_at = now()
                    WHERE id = \(existing) RETURNING id
                    """)
                guard let found = try rows.single(UUID.self) else { return nil }
                id = found
            } else {
                let rows = try await connection.query("""
                    INSERT INTO reward_offers (name, action, partner_name, partner_logo_url, pre_allot_text, post_allot_text, terms,
                                               currency, min_amount_minor, max_amount_minor, valid_from, valid_until, active, max_per_customer)
                    VALUES (\(input.name), \(input.action), \(input.partnerName), \(input.partnerLogoURL), \(input.preAllotText),
                            \(input.postAllotText), \(input.terms), \(input.currency), \(input.minAmountMinor), \(input.maxAmountMinor),
                            \(input.validFrom)::timestamptz, \(input.validUntil)::timestamptz, \(input.active),
                            \(Int32(clamping: input.maxPerCustomer)))
                    RETURNING id
                    """)
                guard let created = try rows.single(UUID.self) else { throw GatewayRequestError.internal("the offer was not stored") }
                id = created
            }
            if !input.addCouponCodes.isEmpty {
                _ = try await connection.query("""
                    INSERT INTO reward_coupons (offer_id, code) SELECT \(id), code FROM unnest(\(input.addCouponCodes)::text[]) AS code
                    ON CONFLICT (offer_id, code) DO NOTHING
                    """)
            }
            return try await connection.query("SELECT \(sql: Self.offerColumns) FROM reward_offers o WHERE o.id = \(id)").first.map(Self.offer)
        }
    }

    /// Offers by id.
    func offers(ids: [UUID]) async throws -> [UUID: RewardOfferRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.offerColumns) FROM reward_offers o WHERE o.id = ANY(\(ids.map { $0.uuidString })::uuid[])
            """)
        return Dictionary(try rows.map(Self.offer).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A page of offers, newest first.
    func listOffers(action: String?, active: Bool?, after cursor: KeysetCursor?, limit: Int) async throws -> [RewardOfferRecord] {
        var conditions: [PostgresQuery] = []
        if let action { conditions.append("o.action = \(action)") }
        if let active { conditions.append("o.active = \(active)") }
        if let cursor { conditions.append("(o.created_at, o.id) < (\(cursor.createdAt), \(cursor.id))") }
        return try await pool.query("""
            SELECT \(sql: Self.offerColumns) FROM reward_offers o \(SQLPattern.whereClause(conditions))
            ORDER BY o.created_at DESC, o.id DESC LIMIT \(Int64(limit + 1))
            """).map(Self.offer)
    }

    /// The offers of `action` valid now, active, with a coupon left and (when `amountMinor` is
    /// given) a window that holds it, which the customer (or mobile) has not reached the cap of.
    func eligibleOffers(action: String, amountMinor: Int64?, currency: String, customerID: UUID?, mobile: String?) async throws -> [RewardOfferRecord] {
        try await pool.query("""
            SELECT \(sql: Self.offerColumns) FROM reward_offers o
            WHERE o.action = \(action) AND o.active AND o.currency = \(currency)
              AND (o.valid_from IS NULL OR o.valid_from <= now()) AND (o.valid_until IS NULL OR o.valid_until > now())
              AND (\(amountMinor)::bigint IS NULL OR ((o.min_amount_minor IS NULL OR o.min_amount_minor <= \(amountMinor))
                                                  AND (o.max_amount_minor IS NULL OR o.max_amount_minor >= \(amountMinor))))
              AND EXISTS (SELECT 1 FROM reward_coupons c WHERE c.offer_id = o.id AND c.reward_id IS NULL)
              AND (SELECT count(*) FROM rewards r WHERE r.offer_id = o.id AND r.status = 'ALLOTTED'
                     AND (r.customer_id = \(customerID) OR r.mobile = \(mobile))) < o.max_per_customer
            ORDER BY o.created_at, o.id
            """).map(Self.offer)
    }

    /// Rewards by id.
    func rewards(ids: [UUID]) async throws -> [UUID: RewardRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query("SELECT \(sql: Self.rewardColumns) FROM rewards WHERE id = ANY(\(ids.map { $0.uuidString })::uuid[])")
        return Dictionary(try rows.map(Self.reward).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The rewards of these orders, oldest first per order.
    func rewards(orderIDs: [UUID]) async throws -> [UUID: [RewardRecord]] {
        guard !orderIDs.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT \(sql: Self.rewardColumns) FROM rewards WHERE order_id = ANY(\(orderIDs.map { $0.uuidString })::uuid[]) ORDER BY created_at, id
            """)
        var found: [UUID: [RewardRecord]] = [:]
        for row in rows {
            let reward = try Self.reward(row)
            if let order = reward.orderID { found[order, default: []].append(reward) }
        }
        return found
    }

    /// The contract's `RewardFilter`, decoded.
    struct Filter: Sendable {
        var customerID: UUID?
        var mobile: String?
        var action: String?
        var statuses: [String] = []
        var orderID: UUID?
        var createdAfter: String?
        var createdBefore: String?
    }

    /// A page of rewards.
    func list(filter: Filter, after cursor: KeysetCursor?, limit: Int, newestFirst: Bool) async throws -> [RewardRecord] {
        var conditions: [PostgresQuery] = []
        if let customerID = filter.customerID { conditions.append("customer_id = \(customerID)") }
        if let mobile = filter.mobile { conditions.append("mobile = \(mobile)") }
        if let action = filter.action { conditions.append("action = \(action)") }
        if !filter.statuses.isEmpty { conditions.append("status = ANY(\(filter.statuses))") }
        if let orderID = filter.orderID { conditions.append("order_id = \(orderID)") }
        if let after = filter.createdAfter { conditions.append("created_at > \(after)::timestamptz") }
        if let before = filter.createdBefore { conditions.append("created_at < \(before)::timestamptz") }
        conditions = KeysetCursor.page(conditions, after: cursor, newestFirst: newestFirst)
        let order = KeysetCursor.ordering(newestFirst: newestFirst)
        return try await pool.query("""
            SELECT \(sql: Self.rewardColumns) FROM rewards \(SQLPattern.whereClause(conditions)) \(order) LIMIT \(Int64(limit + 1))
            """).map(Self.reward)
    }

    /// Marks the ALLOTTED rewards of a fully refunded order REVOKED (decision 5); call inside the
    /// transaction that recorded the refund. PayQL does not learn whether a coupon was used, so every
    /// allotted one is revoked; its code stays taken (it was shown) and is no longer returned.
    static func revokeForRefundedOrder(_ orderID: UUID, on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            UPDATE rewards SET status = 'REVOKED', revoked_at = now(), updated_at = now() WHERE order_id = \(orderID) AND status = 'ALLOTTED'
            """)
    }

    /// Allots the PAYMENT rewards `order` earns now that it is verified PAID; call inside the
    /// transaction that moved it to PAID (its row locked). An order without a customer, or whose
    /// customer has no phone number, earns none; an offer whose pool is empty gives none (the
    /// order stays PAID). Each allotment adds a REWARD_ALLOTTED timeline entry from `source` (the
    /// PAID transition's). Returns the ids of the rewards allotted.
    @discardableResult
    static func allotForPaidOrder(_ order: OrderRecord, source: String, onlyOffer: UUID? = nil,
                                  on connection: PostgresConnection) async throws -> [UUID] {
        guard let customerID = order.customerID,
              let mobile = try await connection.query("SELECT contact FROM customers WHERE id = \(customerID)").single(String?.self) ?? nil
        else { return [] }
        let offers = try await connection.query("""
            SELECT id FROM reward_offers
            WHERE action = 'PAYMENT' AND active AND currency = \(order.amount.currency.code)
              AND (\(onlyOffer)::uuid IS NULL OR id = \(onlyOffer))
              AND (valid_from IS NULL OR valid_from <= now()) AND (valid_until IS NULL OR valid_until > now())
              AND (min_amount_minor IS NULL OR min_amount_minor <= \(order.amount.minorUnits))
              AND (max_amount_minor IS NULL OR max_amount_minor >= \(order.amount.minorUnits))
            ORDER BY created_at, id
            """).decode(UUID.self)
        var allotted: [UUID] = []
        for offerID in offers {
            guard let rewardID = try await allotOne(offerID: offerID, action: "PAYMENT", customerID: customerID, mobile: mobile,
                                                    order: order, source: "PAYQL", on: connection) else { continue }
            try await OrderStore.appendEvent(orderID: order.id, kind: "REWARD_ALLOTTED", status: order.status, previous: nil,
                                             providerStatus: nil, source: source, message: nil, on: connection)
            allotted.append(rewardID)
        }
        return allotted
    }

    /// Allots the first ONBOARDING offer (or `onlyOffer`) valid now that the customer or mobile is
    /// under the cap of and that has a coupon left; nil when none (`allotReward`, source MANUAL).
    func allotOnboarding(customerID: UUID?, mobile: String, onlyOffer: UUID?) async throws -> RewardRecord? {
        try await pool.withTransaction { connection in
            let offers = try await connection.query("""
                SELECT id FROM reward_offers
                WHERE action = 'ONBOARDING' AND active AND (\(onlyOffer)::uuid IS NULL OR id = \(onlyOffer))
                  AND (valid_from IS NULL OR valid_from <= now()) AND (valid_until IS NULL OR valid_until > now())
                ORDER BY created_at, id
                """).decode(UUID.self)
            for offerID in offers {
                if let id = try await Self.allotOne(offerID: offerID, action: "ONBOARDING", customerID: customerID, mobile: mobile,
                                                    order: nil, source: "MANUAL", on: connection) {
                    return try await connection.query("SELECT \(sql: Self.rewardColumns) FROM rewards WHERE id = \(id)").first.map(Self.reward)
                }
            }
            return nil
        }
    }

    /// One reward of `offerID` for the customer (or mobile) if under the offer's cap and a coupon is
    /// left; at most one per (offer, order) by the `rewards_offer_order_key` constraint. Returns its id.
    private static func allotOne(offerID: UUID, action: String, customerID: UUID?, mobile: String, order: OrderRecord?, source: String,
                                 on connection: PostgresConnection) async throws -> UUID? {
        // The per-customer cap is counted under a lock on (offer, customer): two orders of one
        // customer paid at once cannot both pass it. Locks are taken in offer order (no deadlock).
        let holder = customerID?.uuidString ?? mobile
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(offerID.uuidString) || ':' || \(holder), 7011))")
        // The cap is counted and the reward inserted by one statement: two allotments for one customer
        // in one transaction (group-committed webhooks apply several orders side by side on one
        // connection, where the advisory lock above does not separate them) see each other's rows,
        // as statements run one after another. Exactly once per (offer, order): the constraint decides.
        guard let rewardID = try await connection.query("""
            INSERT INTO rewards (customer_id, mobile, action, amount_minor, currency, status, order_id, offer_id, source)
            SELECT \(customerID), \(mobile), \(action), \(order?.amount.minorUnits ?? 0), \(order?.amount.currency.code ?? "INR"),
                   'ALLOTTED', \(order?.id), \(offerID), \(source)
            FROM reward_offers AS offer
            WHERE offer.id = \(offerID)
              AND (SELECT count(*) FROM rewards WHERE offer_id = \(offerID) AND status = 'ALLOTTED'
                     AND (customer_id = \(customerID) OR mobile = \(mobile))) < offer.max_per_customer
            ON CONFLICT (offer_id, order_id) DO NOTHING RETURNING id
            """).single(UUID.self) else { return nil }
        // One free coupon, skipping rows another allotment holds: never the same coupon twice.
        guard let (couponID, code) = try await connection.query("""
            UPDATE reward_coupons SET reward_id = \(rewardID), allotted_at = now()
            WHERE id = (SELECT id FROM reward_coupons WHERE offer_id = \(offerID) AND reward_id IS NULL
                        ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, code
            """).single((UUID, String).self) else {
            // Pool empty: no reward (a PAID order stays PAID all the same).
            _ = try await connection.query("DELETE FROM rewards WHERE id = \(rewardID)")
            return nil
        }
        _ = try await connection.query("""
            UPDATE rewards SET coupon_id = \(couponID), coupon = \(code), allotted_at = now(), updated_at = now() WHERE id = \(rewardID)
            """)
        return rewardID
    }
}
