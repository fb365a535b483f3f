import Foundation
@testable import Gateway
import HTTPClient
import HTTPServer
import JSON
import Testing

/// The Instamojo custom UI (issue 11, seed 002; flows F14, F15, F18) through real HTTP
/// `/graphql`, PostgreSQL and the sandbox: payment options, the netbanking / wallet form
/// without any token, UPI collects and PayQL's own polling of them.
@Suite struct InstamojoCustomUITests {
    /// Collect timing for tests: checks due at once, close together, short lifetime.
    static func quick(lifetime: Duration = .seconds(600), interval: Duration = .milliseconds(200)) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.upiCollects.firstCheckDelay = .zero
        configuration.upiCollects.minimumCheckInterval = interval
        configuration.upiCollects.lifetime = lifetime
        return configuration
    }

    /// An Instamojo order: its global id and gateway order id.
    static func order(_ h: GatewayHarness) async throws -> (id: String, gatewayOrder: String) {
        let customer = try await OrderLifecycleTests.createCustomer(h)
        let created = try await OrderLifecycleTests.createOrder(h, provider: "INSTAMOJO", customer: customer,
                                                                extra: #"returnUrl: "https://shop.example/done""#)
        return (try #require(created["id"]?.stringValue), try #require(created["checkout"]?["gatewayOrderId"]?.stringValue))
    }

    static let collectFields = """
        id status vpaMasked providerPaymentId providerStatusCode providerMessage lastCheckError lastCheckedAt nextCheckAt
        pollIntervalSeconds expiresAt completedAt payment { status } order { status }
        """

    static func requestCollect(_ h: GatewayHarness, order: String, vpa: String = "asha.rao@okaxis") async throws -> GatewayHarness.Answer {
        try await h.graphQL("""
            mutation($o: ID!, $v: String!) { requestUpiCollect(input: {orderId: $o, vpa: $v}) {
              upiCollect { \(collectFields) } userErrors { code message field } } }
            """, variables: ["o": .string(order), "v": .string(vpa)])
    }

    static func readCollect(_ h: GatewayHarness, _ id: String) async throws -> JSONValue {
        let answer = try await h.graphQL("query($c: ID!) { upiCollect(id: $c) { \(collectFields) } }", variables: ["c": .string(id)])
        #expect(answer.json["errors"] == nil, "\(answer.json)")
        return answer.data("upiCollect") ?? .null
    }

    /// Sends a collect and returns it (asserting it was accepted).
    static func collect(_ h: GatewayHarness, order: String) async throws -> JSONValue {
        let answer = try await requestCollect(h, order: order)
        #expect(answer.userErrorCodes("requestUpiCollect") == [], "\(answer.json)")
        return try #require(answer.data("requestUpiCollect")?["upiCollect"])
    }

    @Test func paymentOptionsListEveryMethodWithEMIPlansSortedAndOnlyOnSingleOrderReads() async throws {
        try await GatewayHarness.run { h in
            let (id, _) = try await Self.order(h)
            let answer = try await h.graphQL("""
                query($id: ID!) { order(id: $id) { paymentOptions { provider enabledMethods card { cardEntry }
                  netbanking { banks { code name } } emi { banks { code name plans { tenureMonths annualInterestRatePercent } } }
                  wallet { wallets { code name logoUrl } } upi { collectEnabled } fetchedAt } } }
                """, variables: ["id": .string(id)])
            let options = try #require(answer.data("order")?["paymentOptions"], "\(answer.json)")
            #expect(options["enabledMethods"]?.arrayValue?.compactMap(\.stringValue) == ["CARD", "NETBANKING", "EMI", "WALLET", "UPI"])
            #expect(options["card"]?["cardEntry"]?.stringValue == "PROVIDER_SDK")
            #expect(options["netbanking"]?["banks"]?.arrayValue?.compactMap { $0["code"]?.stringValue }.contains("HDFC") == true)
            #expect(options["wallet"]?["wallets"]?.arrayValue?.first?["logoUrl"]?.stringValue?.hasPrefix("http") == true)
            #expect(options["upi"]?["collectEnabled"]?.boolValue == true)
            // The sandbox sends ICICI's plans as 12, 3, 6 months: PayQL answers them shortest first, rates exact.
            let icici = try #require(options["emi"]?["banks"]?.arrayValue?.first { $0["code"]?.stringValue == "ICIC" })
            let plans = icici["plans"]?.arrayValue ?? []
            #expect(plans.compactMap { $0["tenureMonths"]?.intValue } == [3, 6, 12])
            #expect(plans.compactMap { $0["annualInterestRatePercent"]?.stringValue } == ["13.00", "13.5", "15.00"])

            // Beside a related object (the order is then read with it, its jsonb payloads only when the
            // selection may need them): the options still find the gateway order in the checkout payload.
            let withCustomer = try await h.graphQL("query($id: ID!) { order(id: $id) { customer { id } paymentOptions { enabledMethods } } }",
                                                   variables: ["id": .string(id)])
            #expect(withCustomer.data("order")?["paymentOptions"]?["enabledMethods"]?.arrayValue?.isEmpty == false, "\(withCustomer.json)")

            // Per row of a list: a clear error on the field, never N upstream calls.
            let listed = try await h.graphQL("{ orders(first: 5) { edges { node { id paymentOptions { enabledMethods } } } } }")
            let error = try #require(listed.json["errors"]?.arrayValue?.first)
            #expect(error["message"]?.stringValue?.contains("single-order reads only") == true, "\(listed.json)")
            #expect(listed.data("orders")?["edges"]?.arrayValue?.first?["node"]?["paymentOptions"]?.isNull == true)

            // Another provider's order has no options (null, as the SDL says).
            let razorpay = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let other = try await h.graphQL("query($id: ID!) { order(id: $id) { paymentOptions { enabledMethods } } }",
                                            variables: ["id": .string(try #require(razorpay["id"]?.stringValue))])
            #expect(other.json["errors"] == nil)
            #expect(other.data("order")?["paymentOptions"]?.isNull == true)
        }
    }

    @Test func netbankingRedirectCarriesNoTokenAndPaysThroughTheVerifiedPath() async throws {
        try await GatewayHarness.run { h in
            let (id, gatewayOrder) = try await Self.order(h)
            let start = """
                mutation($o: ID!, $m: PaymentMethod!, $b: String, $w: String, $k: String) {
                  startRedirectPayment(input: {orderId: $o, method: $m, bankCode: $b, walletId: $w, idempotencyKey: $k}) {
                    redirect { url httpMethod formFields { key value } sdkClientId endUrlPatterns } order { id } userErrors { code field } } }
                """
            let unknown = try await h.graphQL(start, variables: ["o": .string(id), "m": "NETBANKING", "b": "NOPE"])
            #expect(unknown.userErrorCodes("startRedirectPayment") == ["VALIDATION_FAILED"])
            let both = try await h.graphQL(start, variables: ["o": .string(id), "m": "NETBANKING", "b": "HDFC", "w": "paytm"])
            #expect(both.userErrorCodes("startRedirectPayment") == ["INVALID_PARAMETER_COMBINATION"])

            let answer = try await h.graphQL(start, variables: ["o": .string(id), "m": "NETBANKING", "b": "HDFC", "k": "nb-1"])
            #expect(answer.userErrorCodes("startRedirectPayment") == [], "\(answer.json)")
            let redirect = try #require(answer.data("startRedirectPayment")?["redirect"])
            let url = try #require(redirect["url"]?.stringValue)
            #expect(url.hasSuffix("/v2/gateway/orders/\(gatewayOrder)/netbanking/"))
            #expect(redirect["httpMethod"]?.stringValue == "POST")
            // Only the bank code: no access token, no other credential (decision 6).
            let fields = redirect["formFields"]?.arrayValue?.compactMap { field in field["key"]?.stringValue.map { ($0, field["value"]?.stringValue ?? "") } } ?? []
            #expect(fields.map(\.0) == ["bank_code"])
            #expect(fields.map(\.1) == ["HDFC"])
            #expect(redirect["endUrlPatterns"]?.arrayValue?.compactMap(\.stringValue) == [#"^https://shop\.example/done.*"#])
            // A replay builds the same form again (nothing of it was stored).
            let replay = try await h.graphQL(start, variables: ["o": .string(id), "m": "NETBANKING", "b": "HDFC", "k": "nb-1"])
            #expect(replay.data("startRedirectPayment")?["redirect"] == redirect)

            // The browser's post reaches the provider without a token; the payment is then finished there
            // and the order becomes PAID only from the provider's word.
            let posted = try await h.client.execute(HTTPClientRequest(method: "POST", url: url,
                                                                      headers: [("content-type", "application/x-www-form-urlencoded")],
                                                                      body: Array("bank_code=HDFC".utf8)))
            #expect(posted.status == 200)
            try await h.complete("instamojo", order: gatewayOrder)
            let synced = try await h.graphQL("mutation($o: ID!) { verifyOrderPayment(input: {orderId: $o, clientOutcome: REDIRECTED}) { order { status payments { method status } } } }",
                                             variables: ["o": .string(id)])
            #expect(synced.data("verifyOrderPayment")?["order"]?["status"]?.stringValue == "PAID", "\(synced.json)")

            let wallet = try await h.graphQL(start, variables: ["o": .string(id), "m": "WALLET", "w": "paytm"])
            // The order is paid: nothing left to redirect to.
            #expect(wallet.userErrorCodes("startRedirectPayment") != [])
        }
    }

    @Test func aMalformedVPAIsRefusedWithNothingWritten() async throws {
        try await GatewayHarness.run { h in
            let (id, _) = try await Self.order(h)
            for vpa in ["asha", "asha@", "@okaxis", "a@b@c", "asha rao@okaxis", "asha@ok-axis"] {
                let answer = try await Self.requestCollect(h, order: id, vpa: vpa)
                #expect(answer.userErrorCodes("requestUpiCollect") == ["INVALID_VPA"], "\(vpa): \(answer.json)")
                #expect(answer.data("requestUpiCollect")?["userErrors"]?.arrayValue?.first?["field"]?.arrayValue?.compactMap(\.stringValue) == ["input", "vpa"])
            }
            #expect(try await h.count("upi_collects") == 0)
            #expect(try await h.count("idempotency_records") == 0)
        }
    }

    @Test func anApprovedCollectSucceedsAndTheOrderIsPaidByTheProvidersWord() async throws {
        try await GatewayHarness.run(configuration: Self.quick()) { h in
            let (id, _) = try await Self.order(h)
            let collect = try await Self.collect(h, order: id)
            #expect(collect["status"]?.stringValue == "PENDING")
            #expect(collect["vpaMasked"]?.stringValue == "as***@okaxis")
            #expect(collect["pollIntervalSeconds"]?.intValue == 2)
            let collectID = try #require(collect["id"]?.stringValue)
            let paymentID = try #require(collect["providerPaymentId"]?.stringValue)
            // A second collect while this one waits is refused (never sent twice).
            #expect(try await Self.requestCollect(h, order: id).userErrorCodes("requestUpiCollect") == ["INVALID_STATE"])

            try await h.sandboxControl("/instamojo/collects/\(paymentID)/complete", body: #"{"status":"paid"}"#)
            #expect(try await h.eventually { try await Self.readCollect(h, collectID)["status"]?.stringValue == "SUCCEEDED" })
            let done = try await Self.readCollect(h, collectID)
            #expect(done["providerStatusCode"]?.stringValue == "5")
            #expect(done["order"]?["status"]?.stringValue == "PAID")
            #expect(done["payment"]?["status"]?.stringValue == "CAPTURED")
            #expect(done["completedAt"]?.stringValue != nil)
            #expect(done["nextCheckAt"]?.isNull == true)
            let listed = try await h.graphQL("query($id: ID!) { order(id: $id) { upiCollects { id status } } }", variables: ["id": .string(id)])
            #expect(listed.data("order")?["upiCollects"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [collectID])
            let node = try await h.graphQL("query($id: ID!) { node(id: $id) { ... on UpiCollect { status } } }", variables: ["id": .string(collectID)])
            #expect(node.data("node")?["status"]?.stringValue == "SUCCEEDED")
        }
    }

    @Test func declinedDroppedAndPSPExpiredCollectsFailWithoutFailingTheOrder() async throws {
        try await GatewayHarness.run(configuration: Self.quick()) { h in
            let (id, _) = try await Self.order(h)
            for outcome in ["declined", "user_dropped", "expired"] {
                let collect = try await Self.collect(h, order: id)
                let collectID = try #require(collect["id"]?.stringValue)
                let paymentID = try #require(collect["providerPaymentId"]?.stringValue)
                try await h.sandboxControl("/instamojo/collects/\(paymentID)/complete", body: #"{"status":"\#(outcome)"}"#)
                #expect(try await h.eventually { try await Self.readCollect(h, collectID)["status"]?.stringValue == "FAILED" }, "\(outcome)")
                let failed = try await Self.readCollect(h, collectID)
                #expect(failed["providerStatusCode"]?.stringValue == "6")
                #expect(failed["providerMessage"]?.stringValue?.isEmpty == false)
                // The customer may still pay another way: the order is not FAILED.
                #expect(failed["order"]?["status"]?.stringValue != "FAILED")
                #expect(failed["order"]?["status"]?.stringValue != "PAID")
            }
        }
    }

    @Test func aCollectWithoutAFinalAnswerExpiresAtPayQLsDeadline() async throws {
        try await GatewayHarness.run(configuration: Self.quick(lifetime: .seconds(1))) { h in
            let (id, _) = try await Self.order(h)
            let collect = try await Self.collect(h, order: id)
            let collectID = try #require(collect["id"]?.stringValue)
            #expect(try await h.eventually(timeout: .seconds(30)) {
                try await Self.readCollect(h, collectID)["status"]?.stringValue == "EXPIRED"
            })
            let expired = try await Self.readCollect(h, collectID)
            #expect(expired["order"]?["status"]?.stringValue == "CREATED")
            #expect(expired["completedAt"]?.stringValue != nil)
            // A new collect may be sent once the old one is over.
            #expect(try await Self.requestCollect(h, order: id).userErrorCodes("requestUpiCollect") == [])
        }
    }

    @Test func aPendingAnswerThatCameWithAnExceptionIsNotAFailure() async throws {
        try await GatewayHarness.run(configuration: Self.quick()) { h in
            let (id, gatewayOrder) = try await Self.order(h)
            // The collect reaches the payer, but PayQL gets an exception instead of the answer.
            try await h.sandboxControl("/faults", body: #"{"route":"POST /instamojo/v2/gateway/orders/*/upi","kind":"status_after","status":502,"times":1}"#)
            let collect = try await Self.collect(h, order: id)
            #expect(collect["status"]?.stringValue == "PENDING")
            #expect(collect["providerPaymentId"]?.isNull == true)
            #expect(collect["lastCheckError"]?.stringValue?.contains("request") == true, "\(collect)")
            let collectID = try #require(collect["id"]?.stringValue)
            // Still waiting, never sent again.
            #expect(try await Self.requestCollect(h, order: id).userErrorCodes("requestUpiCollect") == ["INVALID_STATE"])
            #expect(try await Self.readCollect(h, collectID)["status"]?.stringValue == "PENDING")
            // The payer approves: PayQL finds the collect among the order's payments.
            try await h.complete("instamojo", order: gatewayOrder)
            #expect(try await h.eventually { try await Self.readCollect(h, collectID)["status"]?.stringValue == "SUCCEEDED" })
            let done = try await Self.readCollect(h, collectID)
            #expect(done["providerPaymentId"]?.stringValue?.hasPrefix("MOJO") == true, "\(done)")
            #expect(done["order"]?["status"]?.stringValue == "PAID")
        }
    }

    @Test func aFailedStatusCheckIsNotAPaymentResult() async throws {
        try await GatewayHarness.run(configuration: Self.quick()) { h in
            let (id, _) = try await Self.order(h)
            try await h.sandboxControl("/faults", body: #"{"route":"GET /instamojo/v2/gateway/orders/*/upi/*/status","kind":"status","status":500}"#)
            let collect = try await Self.collect(h, order: id)
            let collectID = try #require(collect["id"]?.stringValue)
            #expect(try await h.eventually { try await Self.readCollect(h, collectID)["lastCheckError"]?.stringValue != nil })
            let erred = try await Self.readCollect(h, collectID)
            #expect(erred["status"]?.stringValue == "PENDING", "\(erred)")
            #expect(erred["order"]?["status"]?.stringValue == "CREATED")
            try await h.sandboxControl("/faults", method: "DELETE")
            try await h.sandboxControl("/instamojo/collects/\(try #require(collect["providerPaymentId"]?.stringValue))/complete", body: #"{"status":"paid"}"#)
            #expect(try await h.eventually { try await Self.readCollect(h, collectID)["status"]?.stringValue == "SUCCEEDED" })
            #expect(try await Self.readCollect(h, collectID)["lastCheckError"]?.isNull == true)
        }
    }

    @Test func manyConcurrentReadersCostOneUpstreamCheck() async throws {
        // The first check is due at once; the next not for ten minutes: however the readers are scheduled,
        // exactly one status check may reach the provider.
        try await GatewayHarness.run(configuration: Self.quick(interval: .seconds(600))) { h in
            let (id, _) = try await Self.order(h)
            let collect = try await Self.collect(h, order: id)
            let collectID = try #require(collect["id"]?.stringValue)
            let paymentID = try #require(collect["providerPaymentId"]?.stringValue)
            let readers = 40
            let answers = try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for _ in 0..<readers { group.addTask { try await Self.readCollect(h, collectID) } }
                var all: [JSONValue] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.count == readers)
            #expect(answers.allSatisfy { $0["status"]?.stringValue == "PENDING" })
            let inspected = try await h.sandboxControl("/instamojo/collects/\(paymentID)", method: "GET")
            #expect(inspected["status_checks"]?.intValue == 1, "\(inspected)")
            #expect(try await Self.readCollect(h, collectID)["lastCheckedAt"]?.stringValue != nil)
            #expect(h.gateway.services.upiCollects.gate.inFlight == 0)
        }
    }

    @Test func upiCollectUpdatedStreamsTheCollectUntilItSucceeds() async throws {
        try await GatewayHarness.run(configuration: Self.quick()) { h in
            let (id, _) = try await Self.order(h)
            let collect = try await Self.collect(h, order: id)
            let collectID = try #require(collect["id"]?.stringValue)
            let stream = try EventStreamConnection(port: h.server.port, key: h.secretKey, body: LiveUpdateTests.body(
                "subscription($id: ID!) { upiCollectUpdated(upiCollectId: $id) { id status } }", id: collectID))
            #expect(try await stream.next()?.status == 200)
            #expect(try await stream.nextEvent(named: "next")?.data.contains("PENDING") == true)
            try await h.sandboxControl("/instamojo/collects/\(try #require(collect["providerPaymentId"]?.stringValue))/complete", body: #"{"status":"paid"}"#)
            // Something reads the collect (an app, or the reconciler's loop): its check's change reaches the subscriber.
            #expect(try await h.eventually { try await Self.readCollect(h, collectID)["status"]?.stringValue == "SUCCEEDED" })
            var succeeded = false
            while !succeeded, let event = try await stream.nextEvent(named: "next") { succeeded = event.data.contains("SUCCEEDED") }
            #expect(succeeded)
        }
    }
}
