import Foundation
@testable import Gateway
import GraphQLHTTP
import HTTPServer
import Metrics
import JSON
import Postgres
import Testing

/// Subscriptions over Server-Sent Events (docs/api.md, "Live updates"): the protocol on a real
/// HTTP connection, events from PostgreSQL NOTIFY, the limits and the scope checks.
@Suite struct LiveUpdateTests {
    static let subscription = """
        subscription($id: ID!) { orderUpdated(orderId: $id) { id status needsReconciliation amountPaid { amount } } }
        """

    static func body(_ query: String = subscription, id: String) -> String {
        String(decoding: JSONWriter.write(["query": .string(query), "variables": ["id": .string(id)]]), as: UTF8.self)
    }

    static func open(_ h: GatewayHarness, order id: String, key: String? = nil) throws -> EventStreamConnection {
        try EventStreamConnection(port: h.server.port, key: key ?? h.secretKey, body: body(id: id))
    }

    /// The code of the first error in the stream's `next` events (re-reads without errors may come first).
    static func firstErrorCode(_ stream: EventStreamConnection) async throws -> String? {
        while let next = try await stream.nextEvent(named: "next") {
            if let code = try JSONParser.parse(Array(next.data.utf8))["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue {
                return code
            }
        }
        return nil
    }

    /// The head of a stream that must be an event stream.
    static func expectEventStreamHead(_ stream: EventStreamConnection) async throws {
        let head = try #require(try await stream.next())
        guard case .head(let status, let headers) = head else { Issue.record("no head: \(head)"); return }
        #expect(status == 200)
        #expect(headers["content-type"] == "text/event-stream; charset=utf-8")
        #expect(headers["cache-control"] == "no-cache")
        #expect(headers["transfer-encoding"] == "chunked")
    }

    @Test func orderUpdatedStreamsEachChangeThenHeartbeatsAndIsFreedOnDisconnect() async throws {
        try await GatewayHarness.run { h in
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(order["id"]?.stringValue)
            let providerOrderID = try #require(order["providerOrderId"]?.stringValue)
            let stream = try Self.open(h, order: id)
            try await Self.expectEventStreamHead(stream)
            // The first result is the order as it is now.
            let first = try #require(try await stream.nextEvent(named: "next"))
            let initial = try JSONParser.parse(Array(first.data.utf8))
            #expect(initial["data"]?["orderUpdated"]?["id"]?.stringValue == id)
            #expect(initial["data"]?["orderUpdated"]?["status"]?.stringValue == "CREATED")
            #expect(h.live.openCount == 1)

            // Paid through the sandbox's webhook: the trigger notifies, the subscriber re-reads.
            try await h.complete("razorpay", order: providerOrderID)
            var sawPaid = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !sawPaid, ContinuousClock.now < deadline {
                guard let next = try await stream.nextEvent(named: "next", timeout: .seconds(30)) else { break }
                let json = try JSONParser.parse(Array(next.data.utf8))
                sawPaid = json["data"]?["orderUpdated"]?["status"]?.stringValue == "PAID"
                if sawPaid { #expect(json["data"]?["orderUpdated"]?["amountPaid"]?["amount"]?.stringValue == "50000") }
            }
            #expect(sawPaid)

            // A change made straight in the database (any instance, any code path) is seen too.
            _ = try await h.pool.query("UPDATE orders SET needs_reconciliation = true WHERE id = \(try #require(GlobalID(id)).uuid)")
            // (Re-reads for the payment's later webhooks may still come first.)
            var flagged = false
            while !flagged, let next = try await stream.nextEvent(named: "next") {
                flagged = try JSONParser.parse(Array(next.data.utf8))["data"]?["orderUpdated"]?["needsReconciliation"] == .bool(true)
            }
            #expect(flagged)

            // Heartbeats: comment lines while nothing happens (every 300 ms in the harness).
            var comments = 0
            while comments < 2, let item = try await stream.next(timeout: .seconds(10)) {
                if item == .comment { comments += 1 }
            }
            #expect(comments == 2)
            #expect(h.metrics.render().contains("payql_subscriptions_open 1"))

            // The client leaves: the server notices and frees the subscription.
            stream.disconnect()
            let freed = try await h.eventually(timeout: .seconds(10)) { h.live.openCount == 0 && h.server.openStreams == 0 }
            #expect(freed)
            #expect(h.metrics.render().contains("payql_subscriptions_open 0"))
        }
    }

    @Test func aKeyHoldsAtMostItsLimitOfOpenSubscriptions() async throws {
        try await GatewayHarness.run { h in
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(order["id"]?.stringValue)
            var open: [EventStreamConnection] = []
            for _ in 0..<GatewayHarness.subscriptionLimit {
                let stream = try Self.open(h, order: id)
                try await Self.expectEventStreamHead(stream)
                #expect(try await stream.nextEvent(named: "next") != nil)
                open.append(stream)
            }
            let refused = try Self.open(h, order: id)
            let head = try #require(try await refused.next())
            #expect(head.status == 429)
            let body = try #require(try await refused.next())
            guard case .body(let text) = body else { Issue.record("\(body)"); return }
            #expect(try JSONParser.parse(Array(text.utf8))["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "RATE_LIMITED")
            // Another key is not affected.
            let ops = try Self.open(h, order: id, key: h.opsKey)
            try await Self.expectEventStreamHead(ops)
            // One closed: room for a new one.
            open.removeFirst().disconnect()
            #expect(try await h.eventually(timeout: .seconds(10)) { h.live.openCount == GatewayHarness.subscriptionLimit })
            let again = try Self.open(h, order: id)
            try await Self.expectEventStreamHead(again)
            for stream in open { stream.disconnect() }
        }
    }

    @Test func anotherCustomersOrderIsForbiddenAndTheStreamCompletes() async throws {
        try await GatewayHarness.run { h in
            let mine = try await OrderLifecycleTests.createCustomer(h, phone: "9000000001")
            let theirs = try await OrderLifecycleTests.createCustomer(h, phone: "9000000002")
            let theirOrder = try #require(try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: theirs)["id"]?.stringValue)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { id token } userErrors { code } } }
                """, variables: ["c": .string(mine)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            for key in [token, h.publishableKey] {
                let stream = try Self.open(h, order: theirOrder, key: key)
                try await Self.expectEventStreamHead(stream)
                let next = try #require(try await stream.nextEvent(named: "next"))
                let json = try JSONParser.parse(Array(next.data.utf8))
                #expect(json["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue == "FORBIDDEN", "\(json)")
                #expect(json["data"] == .null)
                #expect(try await stream.nextEvent(named: "complete") != nil)
                #expect(try await stream.next() == .end)
            }
            #expect(try await h.eventually { h.live.openCount == 0 })
        }
    }

    @Test func aRevokedSessionsSubscriptionsEnd() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { id token } userErrors { code } } }
                """, variables: ["c": .string(customer)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let sessionID = try #require(session.data("createClientSession")?["session"]?["id"]?.stringValue)
            let order = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { order { id } } }"#,
                                            key: token)
            let id = try #require(order.data("createOrder")?["order"]?["id"]?.stringValue)
            let stream = try Self.open(h, order: id, key: token)
            try await Self.expectEventStreamHead(stream)
            #expect(try await stream.nextEvent(named: "next") != nil)
            let revoked = try await h.graphQL("mutation($s: ID!) { revokeClientSession(input: {sessionId: $s}) { userErrors { code } } }",
                                              variables: ["s": .string(sessionID)])
            #expect(revoked.userErrorCodes("revokeClientSession") == [], "\(revoked.json)")
            // Re-reads of the order may come first (its creation's own notifications); then the end.
            #expect(try await Self.firstErrorCode(stream) == "UNAUTHENTICATED")
            #expect(try await stream.nextEvent(named: "complete") != nil)
            #expect(try await h.eventually { h.live.openCount == 0 })
        }
    }

    @Test func aRevokedKeysSubscriptionsEndAndOtherKeysStayOpen() async throws {
        try await GatewayHarness.run { h in
            let created = try await h.gateway.keys.create(name: "to revoke", scopes: [.secret])
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(order["id"]?.stringValue)
            let doomed = try Self.open(h, order: id, key: created.key)
            try await Self.expectEventStreamHead(doomed)
            #expect(try await doomed.nextEvent(named: "next") != nil)
            let kept = try Self.open(h, order: id)
            try await Self.expectEventStreamHead(kept)
            #expect(try await kept.nextEvent(named: "next") != nil)

            #expect(try await h.gateway.keys.revoke(id: created.id))
            #expect(try await Self.firstErrorCode(doomed) == "UNAUTHENTICATED")
            #expect(try await doomed.nextEvent(named: "complete") != nil)
            #expect(try await h.eventually { h.live.openCount == 1 })
            kept.disconnect()
            #expect(try await h.eventually { h.live.openCount == 0 })
        }
    }

    @Test func refusalsBeforeTheStreamAreOrdinaryHTTPErrors() async throws {
        try await GatewayHarness.run { h in
            let order = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(order["id"]?.stringValue)
            // No key: 401.
            let anonymous = try EventStreamConnection(port: h.server.port, key: nil, body: Self.body(id: id))
            #expect(try await anonymous.next()?.status == 401)
            // Validation: 400 (errors before the stream follow graphql-response+json), with the validation code.
            let invalid = try EventStreamConnection(port: h.server.port, key: h.secretKey,
                                                    body: Self.body("subscription($id: ID!) { orderUpdated(orderId: $id) { nope } }", id: id))
            #expect(try await invalid.next()?.status == 400)
            guard case .body(let text)? = try await invalid.next() else { Issue.record("no body"); return }
            #expect(text.contains("GRAPHQL_VALIDATION_FAILED"))
            // A subscription over plain HTTP keeps its clear refusal.
            let plain = try await h.graphQL(Self.subscription, variables: ["id": .string(id)])
            #expect(plain.status == 400)
            #expect(plain.errorCodes == ["SUBSCRIPTIONS_NOT_SUPPORTED"])
            // An id of the wrong type: a clear error, then complete (never a hang).
            let upi = try EventStreamConnection(port: h.server.port, key: h.secretKey,
                                                body: Self.body("subscription($id: ID!) { upiCollectUpdated(upiCollectId: $id) { id } }", id: id))
            #expect(try await upi.next()?.status == 200)
            let next = try #require(try await upi.nextEvent(named: "next"))
            #expect(next.data.contains("BAD_USER_INPUT"))
            #expect(try await upi.nextEvent(named: "complete") != nil)
            // A query over SSE: one result, then complete.
            let query = try EventStreamConnection(port: h.server.port, key: h.secretKey,
                                                  body: Self.body("query($id: ID!) { order(id: $id) { status } }", id: id))
            #expect(try await query.next()?.status == 200)
            #expect(try await query.nextEvent(named: "next")?.data.contains("CREATED") == true)
            #expect(try await query.nextEvent(named: "complete") != nil)
        }
    }
}

extension LiveUpdateTests {
    @Test func billPaymentUpdatedFollowsTheBillPayment() async throws {
        try await GatewayHarness.run { h in
            let (link, data) = try await SetuBillPayTests.linkAndInitiation(h)
            let started = try await SetuBillPayTests.start(h, data, link: link)
            let id = try #require(started.data("startBillPayment")?["billPayment"]?["id"]?.stringValue)
            let stream = try EventStreamConnection(port: h.server.port, key: h.secretKey, body: Self.body(
                "subscription($id: ID!) { billPaymentUpdated(billPaymentId: $id) { id status } }", id: id))
            try await Self.expectEventStreamHead(stream)
            let first = try #require(try await stream.nextEvent(named: "next"))
            #expect(first.data.contains("AWAITING_PAYMENT"), "\(first.data)")
            // A change announced as the bill-pay code announces it (same transaction, pg_notify).
            let uuid = try #require(GlobalID(id)).uuid
            try await h.pool.withTransaction { connection in
                _ = try await connection.query("UPDATE bill_payments SET status = 'PAYMENT_FAILED' WHERE id = \(uuid)")
                _ = try await connection.query("SELECT pg_notify('payql_events', 'BillPayment:' || \(uuid)::text)")
            }
            var failed = false
            while !failed, let next = try await stream.nextEvent(named: "next") { failed = next.data.contains("PAYMENT_FAILED") }
            #expect(failed)
            stream.disconnect()
        }
    }
}

extension LiveUpdateTests {
    @Test func anExpiredSessionsSubscriptionsEnd() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let order = try #require(try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY", customer: customer)["id"]?.stringValue)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c, ttlSeconds: 60}) { session { id token } userErrors { code } } }
                """, variables: ["c": .string(customer)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let sessionText = try #require(session.data("createClientSession")?["session"]?["id"]?.stringValue)
            let sessionID = try #require(GlobalID(sessionText)).uuid
            // Sixty seconds is the shortest lifetime the API gives: shortened here to two.
            _ = try await h.pool.query("UPDATE client_sessions SET expires_at = now() + interval '2 seconds' WHERE id = \(sessionID)")
            let stream = try Self.open(h, order: order, key: token)
            try await Self.expectEventStreamHead(stream)
            let first = try #require(try await stream.nextEvent(named: "next"))
            #expect(first.data.contains("CREATED"))
            var code: String?
            while code == nil, let next = try await stream.nextEvent(named: "next", timeout: .seconds(30)) {
                code = try JSONParser.parse(Array(next.data.utf8))["errors"]?.arrayValue?.first?["extensions"]?["code"]?.stringValue
            }
            #expect(code == "UNAUTHENTICATED")
            #expect(try await stream.nextEvent(named: "complete") != nil)
            #expect(try await h.eventually { h.live.openCount == 0 })
        }
    }
}

extension StreamItem {
    /// The status of a head item.
    var status: Int? {
        if case .head(let status, _) = self { return status }
        return nil
    }
}
