import Foundation
import HTTPClient
@testable import Gateway
import JSON
import Testing

/// The webhook log ops read: applied, duplicate-counted and rejected deliveries, payloads redacted.
@Suite struct WebhookLogTests {
    @Test func opsSeeEveryDeliveryWithRedactedPayloads() async throws {
        try await GatewayHarness.run { h in
            let created = try await OrderLifecycleTests.createOrder(h, provider: "RAZORPAY")
            let id = try #require(created["id"]?.stringValue)
            let completion = try await h.complete("razorpay", order: try #require(created["providerOrderId"]?.stringValue))
            #expect(try await h.eventually { try await OrderLifecycleTests.order(h, id)["status"]?.stringValue == "PAID" })
            let first = try #require(completion["webhooks"]?.arrayValue?.first?["id"]?.stringValue)
            try await h.sandboxControl("/webhooks/\(first)/redeliver")
            _ = try await h.client.execute(.init(method: "POST", url: h.baseURL + "/webhooks/razorpay",
                                                 headers: [("x-razorpay-signature", String(repeating: "0", count: 64))], body: Array("{}".utf8)))
            let query = """
                { webhookEvents(first: 10) { nodes { id provider eventType outcome deliveries payload order { id } } pageInfo { hasNextPage } } }
                """
            let answer = try await h.graphQL(query, key: h.opsKey)
            let nodes = try #require(answer.data("webhookEvents")?["nodes"]?.arrayValue)
            #expect(nodes.count == 4, "three applied events and one rejection: \(answer.json)")
            #expect(nodes.filter { $0["outcome"]?.stringValue == "APPLIED" }.count == 3)
            #expect(nodes.filter { $0["outcome"]?.stringValue == "REJECTED" }.count == 1)
            #expect(nodes.contains { $0["deliveries"]?.intValue == 2 })
            #expect(nodes.filter { $0["order"]?["id"]?.stringValue == id }.count == 3)
            let payloads = JSONWriter.string(.array(nodes.compactMap { $0["payload"] }))
            #expect(payloads.contains("payment.captured"))
            #expect(payloads.contains("[redacted]"))
            #expect(!payloads.contains("customer@example.com"), "contact details are redacted")
            // SECRET may read an order's deliveries but not their payloads, nor the whole log.
            let secret = try await h.graphQL(query)
            #expect(secret.errorCodes == ["FORBIDDEN"])
            let perOrder = try await h.graphQL("query($id: ID!) { order(id: $id) { webhookEvents { nodes { eventType payload } } } }",
                                               variables: ["id": .string(id)])
            #expect(perOrder.data("order")?["webhookEvents"]?["nodes"]?.arrayValue?.count == 3)
            #expect(perOrder.errorCodes.allSatisfy { $0 == "FORBIDDEN" } && !perOrder.errorCodes.isEmpty)
        }
    }
}
