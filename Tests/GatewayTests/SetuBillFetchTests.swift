import Foundation
@testable import Gateway
import JSON
import Postgres
import Testing

/// `BillPayLink.billFetches`: Setu's `bill_fetch_success` / `bill_fetch_failure` user events applied to
/// their link by `sessionId`, once each (redelivery, reprocessing); and reprocessing a Setu event
/// goes through the bill-pay path that applied it first.
@Suite struct SetuBillFetchTests {
    static let fetchFields = "billFetches { success biller { id name category } bills { billNumber amount { amount } dueDate customerName } errorCode errorMessage at }"

    /// The link's bill fetches, as a client reads them.
    static func fetches(_ h: GatewayHarness, link: String) async throws -> [JSONValue] {
        let answer = try await h.graphQL("query($id: ID!) { node(id: $id) { ... on BillPayLink { \(fetchFields) } } }",
                                         variables: ["id": .string(link)])
        return answer.data("node")?["billFetches"]?.arrayValue ?? []
    }

    /// A BILL-scenario link: its id and Setu session.
    static func link(_ h: GatewayHarness) async throws -> (id: String, session: String) {
        let created = try await SetuBillPayTests.createLink(h, #"mobileNumber: "9876543210", category: "Water", billerId: "BBPSDUMMY001", billParameters: [{name: "Consumer Number", value: "1895159"}]"#)
        let link = try #require(created.data("createBillPayLink")?["billPayLink"])
        return (try #require(link["id"]?.stringValue), try #require(link["sessionId"]?.stringValue))
    }

    /// Setu events of `type` as `webhookEvents` lists them (OPS).
    static func events(_ h: GatewayHarness, type: String) async throws -> [JSONValue] {
        try await h.graphQL("query($t: String) { webhookEvents(first: 20, filter: {provider: [SETU], eventType: $t}) { nodes { id outcome deliveries } } }",
                            variables: ["t": .string(type)], key: h.opsKey).data("webhookEvents")?["nodes"]?.arrayValue ?? []
    }

    static let reprocess = """
        mutation($id: ID!) { reprocessWebhookEvent(input: {webhookEventId: $id}) { webhookEvent { outcome } userErrors { code message } } }
        """

    @Test func fetchesAreListedOnTheirLinkOncePerEvent() async throws {
        try await GatewayHarness.run { h in
            let (link, session) = try await Self.link(h)
            #expect(try await Self.fetches(h, link: link) == [])

            let success = try await h.sandboxControl("/setu/links/\(session)/fetch", body: #"{"amount":"101.50"}"#)
            #expect(success["event"]?["event"]?.stringValue == "bill_fetch_success")
            #expect(try await h.eventually { try await Self.fetches(h, link: link).count == 1 })
            _ = try await h.sandboxControl("/setu/links/\(session)/fetch",
                                           body: #"{"status":"failure","code":"bill-not-found","message":"No bill is due"}"#)
            var fetches: [JSONValue] = []
            #expect(try await h.eventually {
                fetches = try await Self.fetches(h, link: link)
                return fetches.count == 2
            })
            let first = try #require(fetches.first)
            #expect(first["success"] == .bool(true))
            #expect(first["biller"]?["id"]?.stringValue == "BBPSDUMMY001")
            #expect(first["biller"]?["name"]?.stringValue == "Sandbox Water Board")
            #expect(first["biller"]?["category"]?.stringValue == "Water")
            #expect(first["bills"]?.arrayValue?.count == 1)
            #expect(first["bills"]?.arrayValue?.first?["amount"]?["amount"]?.stringValue == "10150")
            #expect(first["bills"]?.arrayValue?.first?["customerName"]?.stringValue == "Sandbox Customer")
            #expect(first["errorCode"] == .null)
            #expect(first["at"]?.stringValue != nil)
            let second = try #require(fetches.last)
            #expect(second["success"] == .bool(false))
            #expect(second["bills"] == .array([]))
            #expect(second["errorCode"]?.stringValue == "bill-not-found")
            #expect(second["errorMessage"]?.stringValue == "No bill is due")
            #expect(try await Self.events(h, type: "bill_fetch_success").first?["outcome"]?.stringValue == "APPLIED")

            // Setu retries a delivery: counted on the event, not applied twice.
            let webhookID = try #require(success["webhooks"]?.arrayValue?.first?["id"]?.stringValue)
            _ = try await h.sandboxControl("/webhooks/\(webhookID)/redeliver")
            #expect(try await h.eventually { try await Self.events(h, type: "bill_fetch_success").first?["deliveries"]?.intValue == 2 })
            #expect(try await h.count("bill_fetches") == 2)
            #expect(try await Self.fetches(h, link: link).count == 2)
        }
    }

    @Test func aFetchForAnUnknownSessionIsUnmatchedAndReprocessingAppliesItWithoutRedactedValues() async throws {
        try await GatewayHarness.run { h in
            let (link, session) = try await Self.link(h)
            let uuid = try #require(GlobalID(link, of: .billPayLink)).uuid
            // PayQL does not know the session yet (as if the link row carried another one).
            _ = try await h.pool.query("UPDATE bill_pay_links SET session_id = 'elsewhere' WHERE id = \(uuid)")
            _ = try await h.sandboxControl("/setu/links/\(session)/fetch", body: #"{"amount":"250.00"}"#)
            var events: [JSONValue] = []
            #expect(try await h.eventually {
                events = try await Self.events(h, type: "bill_fetch_success")
                return events.first?["outcome"]?.stringValue == "UNMATCHED"
            })
            #expect(try await h.count("bill_fetches") == 0)

            // Reprocessed once the session is known: applied from the stored payload, whose names are
            // redacted — absent in the result, never "[redacted]".
            _ = try await h.pool.query("UPDATE bill_pay_links SET session_id = \(session) WHERE id = \(uuid)")
            let eventID = try #require(events.first?["id"])
            let answer = try await h.graphQL(Self.reprocess, variables: ["id": eventID], key: h.opsKey)
            #expect(answer.data("reprocessWebhookEvent")?["webhookEvent"]?["outcome"]?.stringValue == "APPLIED", "\(answer.json)")
            let fetches = try await Self.fetches(h, link: link)
            #expect(fetches.count == 1)
            #expect(fetches.first?["biller"]?["id"]?.stringValue == "BBPSDUMMY001")
            #expect(fetches.first?["biller"]?["name"] == .null)
            #expect(fetches.first?["bills"]?.arrayValue?.first?["amount"]?["amount"]?.stringValue == "25000")
            #expect(fetches.first?["bills"]?.arrayValue?.first?["customerName"] == .null)
            // Again: nothing more.
            let again = try await h.graphQL(Self.reprocess, variables: ["id": eventID], key: h.opsKey)
            #expect(again.data("reprocessWebhookEvent")?["webhookEvent"]?["outcome"]?.stringValue == "APPLIED")
            #expect(try await h.count("bill_fetches") == 1)
        }
    }

    @Test func reprocessingABillPaymentEventAppliesItToTheBillPayment() async throws {
        try await GatewayHarness.run { h in
            let (link, data) = try await SetuBillPayTests.linkAndInitiation(h)
            let started = try await SetuBillPayTests.start(h, data, link: link)
            let bill = try #require(started.data("startBillPayment")?["billPayment"]?["id"]?.stringValue)
            let setuOrder = try #require(data["orderId"]?.stringValue)
            _ = try await h.complete("setu", order: setuOrder, status: "failed")
            #expect(try await h.eventually {
                try await SetuConfirmationTests.bill(h, bill)["status"]?.stringValue == "BILL_PAYMENT_FAILED"
            })
            _ = try await h.pool.query("UPDATE bill_payments SET biller_name = 'Sandbox Biller (stored)'")
            let event = try #require(try await Self.events(h, type: "bill_payment_failure").first)
            #expect(event["outcome"]?.stringValue == "APPLIED")
            // Reprocessing goes through the bill-pay path (it used to look for a Setu order among the
            // orders, find none and store UNMATCHED).
            let answer = try await h.graphQL(Self.reprocess, variables: ["id": try #require(event["id"])], key: h.opsKey)
            #expect(answer.data("reprocessWebhookEvent")?["webhookEvent"]?["outcome"]?.stringValue == "APPLIED", "\(answer.json)")
            let after = try await h.graphQL("query($id: ID) { billPayment(id: $id) { status biller { name } } }",
                                            variables: ["id": .string(bill)]).data("billPayment") ?? .null
            #expect(after["status"]?.stringValue == "BILL_PAYMENT_FAILED")
            #expect(after["biller"]?["name"]?.stringValue == "Sandbox Biller (stored)", "a redacted name must not replace the stored one")
        }
    }
}
