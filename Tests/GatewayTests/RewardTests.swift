import Foundation
import JSON
import Postgres
@testable import Gateway
import Testing

/// Rewards (issue 11, decision 5): offers, eligibility, allotment exactly once per (offer, order)
/// when an order is verified PAID, and coupons never given twice under concurrency.
@Suite struct RewardTests {
    static let offerFields = """
        id name action partnerName partnerLogoUrl preAllotText postAllotText termsAndConditions
        minAmount { amount } maxAmount { amount } active maxPerCustomer couponsRemaining
        """

    /// Creates a PAYMENT offer as OPS; the whole answer.
    static func upsertOffer(_ h: GatewayHarness, extra: String = "", coupons: [String] = ["CPN-1", "CPN-2"],
                            key: String? = nil) async throws -> GatewayHarness.Answer {
        try await h.graphQL("""
            mutation($c: [String!]) { upsertRewardOffer(input: {name: "Cashback", action: PAYMENT, partnerName: "Acme",
                partnerLogoUrl: "https://acme.example/logo.png", preAllotText: "Pay to win", postAllotText: "You won",
                termsAndConditions: ["One per customer"], addCouponCodes: $c \(extra)}) {
              rewardOffer { \(offerFields) } userErrors { code field } } }
            """, variables: ["c": .array(coupons.map(JSONValue.string))], key: .some(key ?? h.opsKey))
    }

    @Test func offersAreUpsertedByOpsAndValidated() async throws {
        try await GatewayHarness.run { h in
            let created = try await Self.upsertOffer(h, extra: #"minAmount: {amount: "10000"}, maxAmount: {amount: "90000"}"#,
                                                     coupons: ["A1", "A2", "A1"])
            #expect(created.userErrorCodes("upsertRewardOffer") == [])
            let offer = try #require(created.data("upsertRewardOffer")?["rewardOffer"])
            #expect(offer["partnerName"]?.stringValue == "Acme")
            #expect(offer["minAmount"]?["amount"]?.stringValue == "10000")
            #expect(offer["couponsRemaining"]?.intValue == 2)
            #expect(offer["maxPerCustomer"]?.intValue == 1)
            let id = try #require(offer["id"]?.stringValue)

            // Editing keeps the pool and adds to it (a code already there is not added twice).
            let edited = try await h.graphQL("""
                mutation($id: ID) { upsertRewardOffer(input: {id: $id, name: "Cashback 2", action: PAYMENT, partnerName: "Acme",
                    addCouponCodes: ["A2", "A3"], active: false}) { rewardOffer { name active couponsRemaining } userErrors { code } } }
                """, variables: ["id": .string(id)], key: .some(h.opsKey))
            #expect(edited.data("upsertRewardOffer")?["rewardOffer"]?["couponsRemaining"]?.intValue == 3)
            #expect(edited.data("upsertRewardOffer")?["rewardOffer"]?["active"]?.boolValue == false)
            #expect(try await h.count("reward_offers") == 1)

            // Bad input: clear userErrors, nothing written.
            let inverted = try await Self.upsertOffer(h, extra: #"minAmount: {amount: "9000"}, maxAmount: {amount: "100"}"#)
            #expect(inverted.userErrorCodes("upsertRewardOffer") == ["AMOUNT_OUT_OF_RANGE"])
            let window = try await Self.upsertOffer(h, extra: #"validFrom: "2026-05-01T00:00:00Z", validUntil: "2026-04-01T00:00:00Z""#)
            #expect(window.userErrorCodes("upsertRewardOffer") == ["VALIDATION_FAILED"])
            let cap = try await Self.upsertOffer(h, extra: "maxPerCustomer: 0")
            #expect(cap.userErrorCodes("upsertRewardOffer") == ["VALIDATION_FAILED"])
            let blank = try await Self.upsertOffer(h, coupons: ["ok", "  "])
            #expect(blank.userErrorCodes("upsertRewardOffer") == ["VALIDATION_FAILED"])
            #expect(try await h.count("reward_offers") == 1)
            #expect(try await h.count("reward_coupons") == 3)

            // Only OPS may write offers.
            let secret = try await Self.upsertOffer(h, key: h.secretKey)
            #expect(secret.json["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "FORBIDDEN")
            #expect(try await h.count("reward_offers") == 1)
        }
    }

    @Test func eligibilityFollowsActionAmountPoolAndCap() async throws {
        try await GatewayHarness.run { h in
            _ = try await Self.upsertOffer(h, extra: #"minAmount: {amount: "10000"}"#, coupons: ["E1"])
            let customer = try await OrderLifecycleTests.createCustomer(h)
            func eligible(_ amount: String, action: String = "PAYMENT") async throws -> (Bool?, Int?) {
                let answer = try await h.graphQL("""
                    query($c: ID) { rewardEligibility(input: {customerId: $c, action: \(action), amount: {amount: "\(amount)"}}) {
                      eligible offers { partnerName preAllotText } } }
                    """, variables: ["c": .string(customer)])
                let data = answer.data("rewardEligibility")
                return (data?["eligible"]?.boolValue, data?["offers"]?.arrayValue?.count)
            }
            #expect(try await eligible("50000") == (true, 1))
            #expect(try await eligible("5000") == (false, 0))
            #expect(try await eligible("50000", action: "ONBOARDING") == (false, 0))
            // By mobile number, as the Turbo SDK asks.
            let byMobile = try await h.graphQL("""
                { rewardEligibility(input: {mobileNumber: "9876543210", action: PAYMENT}) { eligible offers { partnerName } } }
                """)
            #expect(byMobile.data("rewardEligibility")?["eligible"]?.boolValue == true)
            // A bare publishable key acts for nobody; a client session only for its own customer.
            let bare = try await h.graphQL("{ rewardEligibility(input: {mobileNumber: \"9876543210\", action: PAYMENT}) { eligible } }",
                                           key: .some(h.publishableKey))
            #expect(bare.json["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "FORBIDDEN")
            let session = try await h.graphQL("mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { token } } }",
                                              variables: ["c": .string(customer)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let own = try await h.graphQL("{ rewardEligibility(input: {action: PAYMENT, amount: {amount: \"50000\"}}) { eligible } }",
                                          key: .some(token))
            #expect(own.data("rewardEligibility")?["eligible"]?.boolValue == true)
            let other = try await h.graphQL("{ rewardEligibility(input: {mobileNumber: \"9123456789\", action: PAYMENT}) { eligible } }",
                                            key: .some(token))
            #expect(other.json["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "FORBIDDEN")

            // Once the customer got it (cap 1) and the pool is empty, no longer eligible.
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "50000", customer: customer)
            try await h.complete("razorpay", order: try #require(order["providerOrderId"]?.stringValue))
            let id = try #require(order["id"]?.stringValue)
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
            #expect(try await eligible("50000") == (false, 0))
        }
    }

    @Test func paidOrderGetsItsRewardOnceAndRedeliveryAllotsNothingTwice() async throws {
        try await GatewayHarness.run { h in
            _ = try await Self.upsertOffer(h, extra: "maxPerCustomer: 5", coupons: ["ONLY-1", "ONLY-2"])
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "50000", customer: customer)
            let id = try #require(order["id"]?.stringValue)
            let query = """
                query($id: ID!) { order(id: $id) { status rewardStatus
                  rewards { status couponCode source mobileNumberMasked offer { partnerName postAllotText } order { id } } timeline { kind } } }
                """
            let before = try await h.graphQL(query, variables: ["id": .string(id)]).data("order")
            #expect(before?["rewardStatus"] == .null)
            #expect(before?["rewards"]?.arrayValue?.isEmpty == true)

            let completion = try await h.complete("razorpay", order: try #require(order["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
            let paid = try #require(try await h.graphQL(query, variables: ["id": .string(id)]).data("order"))
            #expect(paid["rewardStatus"]?.stringValue == "ALLOTTED")
            let rewards = try #require(paid["rewards"]?.arrayValue)
            #expect(rewards.count == 1)
            let coupon = try #require(rewards.first?["couponCode"]?.stringValue)
            #expect(["ONLY-1", "ONLY-2"].contains(coupon))
            #expect(rewards.first?["source"]?.stringValue == "PAYQL")
            #expect(rewards.first?["mobileNumberMasked"]?.stringValue == "+91******3210")
            #expect(rewards.first?["offer"]?["postAllotText"]?.stringValue == "You won")
            #expect(rewards.first?["order"]?["id"]?.stringValue == id)
            #expect(paid["timeline"]?.arrayValue?.contains { $0["kind"]?.stringValue == "REWARD_ALLOTTED" } == true)

            // Every webhook delivered again: still one reward, one coupon taken.
            for delivery in completion["webhooks"]?.arrayValue?.compactMap({ $0["id"]?.stringValue }) ?? [] {
                _ = try await h.sandboxControl("/webhooks/\(delivery)/redeliver")
            }
            _ = try await h.graphQL("mutation($id: ID!) { syncOrder(input: {orderId: $id}) { userErrors { code } } }", variables: ["id": .string(id)])
            #expect(try await h.count("rewards") == 1)
            #expect(try await h.pool.query("SELECT count(*) FROM reward_coupons WHERE reward_id IS NOT NULL").single(Int64.self) == 1)

            // OPS lists it.
            let listed = try await h.graphQL("{ rewards(filter: {status: [ALLOTTED]}) { nodes { couponCode order { id } } } }")
            #expect(listed.data("rewards")?["nodes"]?.arrayValue?.count == 1)
        }
    }

    @Test func emptyPoolGivesNoRewardAndTheOrderIsStillPaid() async throws {
        try await GatewayHarness.run { h in
            _ = try await Self.upsertOffer(h, coupons: [])
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "50000", customer: customer)
            let id = try #require(order["id"]?.stringValue)
            try await h.complete("razorpay", order: try #require(order["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
            let read = try await h.graphQL("query($id: ID!) { order(id: $id) { rewardStatus rewards { status } } }",
                                           variables: ["id": .string(id)]).data("order")
            #expect(read?["rewardStatus"] == .null)
            #expect(read?["rewards"]?.arrayValue?.isEmpty == true)
            #expect(try await h.count("rewards") == 0)
        }
    }

    @Test func fullRefundRevokesTheRewardAndPartialDoesNot() async throws {
        try await GatewayHarness.run { h in
            _ = try await Self.upsertOffer(h, coupons: ["R-1"])
            let (order, payment) = try await RefundTests.paidOrder(h, provider: "RAZORPAY", amount: "50000")
            let query = "query($id: ID!) { order(id: $id) { rewardStatus rewards { status couponCode } } }"
            func read() async throws -> JSONValue? { try await h.graphQL(query, variables: ["id": .string(order)]).data("order") }
            #expect(try await read()?["rewardStatus"]?.stringValue == "ALLOTTED")

            _ = try RefundTests.refunded(try await RefundTests.refund(h, payment: payment, amount: "10000"))
            #expect(try await read()?["rewards"]?.arrayValue?.first?["status"]?.stringValue == "ALLOTTED")

            _ = try RefundTests.refunded(try await RefundTests.refund(h, payment: payment))
            let revoked = try await read()
            #expect(revoked?["rewardStatus"]?.stringValue == "REVOKED")
            #expect(revoked?["rewards"]?.arrayValue?.first?["status"]?.stringValue == "REVOKED")
            #expect(revoked?["rewards"]?.arrayValue?.first?["couponCode"] == .null)
        }
    }

    @Test func allotRewardGivesOnboardingOnceAndRetriesPaymentWithoutDoubling() async throws {
        try await GatewayHarness.run { h in
            let onboarding = try await h.graphQL("""
                mutation { upsertRewardOffer(input: {name: "Welcome", action: ONBOARDING, partnerName: "Acme", addCouponCodes: ["W-1", "W-2"]}) {
                  rewardOffer { id } userErrors { code } } }
                """, key: .some(h.opsKey))
            #expect(onboarding.userErrorCodes("upsertRewardOffer") == [])
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let allot = "mutation($i: AllotRewardInput!) { allotReward(input: $i) { reward { status couponCode source action customer { id } } userErrors { code field } } }"
            let first = try await h.graphQL(allot, variables: ["i": .object(["action": "ONBOARDING", "customerId": .string(customer)])])
            #expect(first.userErrorCodes("allotReward") == [])
            let reward = first.data("allotReward")?["reward"]
            #expect(reward?["source"]?.stringValue == "MANUAL")
            #expect(reward?["customer"]?["id"]?.stringValue == customer)
            #expect(["W-1", "W-2"].contains(reward?["couponCode"]?.stringValue ?? ""))
            // Cap 1: the same customer (or its mobile) gets no second one.
            let again = try await h.graphQL(allot, variables: ["i": .object(["action": "ONBOARDING", "mobileNumber": "9876543210"])])
            #expect(again.userErrorCodes("allotReward") == ["NOT_ELIGIBLE"])
            // A client's publishable key cannot allot.
            let publishable = try await h.graphQL(allot, variables: ["i": .object(["action": "ONBOARDING", "mobileNumber": "9123456789"])],
                                                  key: .some(h.publishableKey))
            #expect(publishable.json["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "FORBIDDEN")
            let customerRewards = try await h.graphQL("query($c: ID!) { customer(id: $c) { rewards { nodes { action status } } } }",
                                                      variables: ["c": .string(customer)])
            #expect(customerRewards.data("customer")?["rewards"]?["nodes"]?.arrayValue?.count == 1)

            // PAYMENT: an unpaid order is NOT_ELIGIBLE; once PAID with an empty pool, coupons added later are given on retry, once.
            _ = try await Self.upsertOffer(h, coupons: [])
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", amount: "50000", customer: customer)
            let id = try #require(order["id"]?.stringValue)
            let unpaid = try await h.graphQL(allot, variables: ["i": .object(["action": "PAYMENT", "orderId": .string(id)])])
            #expect(unpaid.userErrorCodes("allotReward") == ["NOT_ELIGIBLE"])
            try await h.complete("razorpay", order: try #require(order["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await h.order(id)?["status"]?.stringValue == "PAID" })
            #expect(try await h.count("rewards") == 1)
            let offers = try await h.graphQL("{ rewardOffers(filter: {action: PAYMENT}) { nodes { id } } }")
            let offerID = try #require(offers.data("rewardOffers")?["nodes"]?.arrayValue?.first?["id"]?.stringValue)
            _ = try await h.graphQL("""
                mutation($id: ID) { upsertRewardOffer(input: {id: $id, name: "Cashback", action: PAYMENT, partnerName: "Acme",
                  addCouponCodes: ["P-1", "P-2"]}) { userErrors { code } } }
                """, variables: ["id": .string(offerID)], key: .some(h.opsKey))
            for _ in 0..<2 {
                let retried = try await h.graphQL(allot, variables: ["i": .object(["action": "PAYMENT", "orderId": .string(id)])])
                #expect(retried.userErrorCodes("allotReward") == [])
                #expect(retried.data("allotReward")?["reward"]?["source"]?.stringValue == "PAYQL")
            }
            #expect(try await h.count("rewards") == 2)
        }
    }

    /// 100 orders of 100 customers become PAID at once under one PAYMENT offer with 10 coupons:
    /// exactly 10 rewards, each with a different coupon. Through the store's PAID transition in
    /// parallel transactions (the path every verified PAID event takes).
    @Test func hundredConcurrentPaidOrdersShareTenCouponsWithoutDoubleIssue() async throws {
        try await GatewayHarness.run { h in
            let offer = try await Self.upsertOffer(h, coupons: (1...10).map { "POOL-\($0)" })
            #expect(offer.userErrorCodes("upsertRewardOffer") == [])
            let orderIDs = try await h.pool.query("""
                WITH c AS (INSERT INTO customers (name, contact)
                           SELECT 'Buyer ' || n, '+9198765' || lpad(n::text, 5, '0') FROM generate_series(1, 100) AS n RETURNING id)
                INSERT INTO orders (customer_id, provider, amount_minor, currency, receipt, status)
                SELECT id, 'razorpay', 50000, 'INR', 'rw_' || id, 'ATTEMPTED' FROM c RETURNING id
                """).decode(UUID.self)
            #expect(orderIDs.count == 100)
            // Its own pool (10 connections like the gateway's) with a generous acquire timeout: the
            // 100 transactions queue for the connections, and beside the other suites on two cores
            // the last ones waited past the default 10 s (a timeout, not a wrong allotment).
            var configuration = PostgresPoolConfiguration(connection: try PostgresConfiguration(connectionString: h.databaseURL))
            configuration.acquireTimeout = .seconds(120)
            let pool = PostgresPool(configuration: configuration)
            defer { pool.shutdown() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for orderID in orderIDs {
                    group.addTask {
                        try await pool.withTransaction { connection in
                            guard let order = try await OrderStore.lock(orderID: orderID, on: connection) else { return }
                            try await OrderStore.applyStatus(order: order, proposed: .paid, providerStatus: "paid", source: "WEBHOOK", on: connection)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await pool.query("SELECT count(*) FROM orders WHERE status = 'PAID'").single(Int64.self) == 100)
            #expect(try await pool.query("SELECT count(*) FROM rewards WHERE status = 'ALLOTTED'").single(Int64.self) == 10)
            #expect(try await pool.query("SELECT count(DISTINCT coupon) FROM rewards").single(Int64.self) == 10)
            #expect(try await pool.query("SELECT count(*) FROM reward_coupons WHERE reward_id IS NULL").single(Int64.self) == 0)
            #expect(try await pool.query("""
                SELECT count(*) FROM rewards r JOIN reward_coupons c ON c.id = r.coupon_id AND c.reward_id = r.id AND c.code = r.coupon
                """).single(Int64.self) == 10)
        }
    }
}
