import ChildProcess
import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Testing

/// `payql serve` runs the reconciler: an order whose creation answer was lost is found again by
/// its receipt without anyone asking, and the process still stops cleanly on SIGTERM.
@Suite struct ServeReconcilerTests {
    @Test func servesReconcilerFindsALostOrderByItself() async throws {
        try await GatewayHarness.run { h in
            let serve = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox,
                                                     extra: ["--reconcile-interval-ms", "100"])
            do {
                try await h.sandboxControl("/faults", body: #"{"route":"POST /razorpay/v1/orders","kind":"drop_after","times":1}"#)
                try await h.sandboxControl("/faults", body: #"{"route":"GET /razorpay/v1/orders","kind":"status","status":503}"#)
                let created = try await Self.call(h, serve, """
                    mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY, receipt: "served_lost"}) {
                      order { id needsReconciliation providerOrderId } userErrors { code } } }
                    """)
                #expect(created["data"]?["createOrder"]?["order"]?["needsReconciliation"]?.boolValue == true, "\(created)")
                let id = try #require(created["data"]?["createOrder"]?["order"]?["id"]?.stringValue)
                try await h.sandboxControl("/faults", method: "DELETE")
                let providerOrderID = try #require(try await h.razorpayOrders(receipt: "served_lost").first?["id"]?.stringValue)
                // Flagged orders are due 5 s after the flag; the worker looks every 100 ms.
                let reconciled = try await h.eventually(timeout: .seconds(30)) {
                    let order = try await Self.call(h, serve, "query($id: ID!) { order(id: $id) { providerOrderId needsReconciliation } }",
                                                    variables: ["id": .string(id)])["data"]?["order"]
                    return order?["providerOrderId"]?.stringValue == providerOrderID && order?["needsReconciliation"]?.boolValue == false
                }
                #expect(reconciled, "\(serve.log.suffix(2000))")
                #expect(try await h.razorpayOrders(receipt: "served_lost").count == 1)
            } catch {
                _ = await serve.stop()
                throw error
            }
            #expect(await serve.stop() == 0)
        }
    }

    @Test func badReconcilerFlagsStopTheStartBeforeTheDatabase() throws {
        let binary = try #require(ServeProcess.binary, "payql is not built next to the tests")
        // No database is reachable at this URL: the usage error comes first.
        let run = try ChildProcess.run(binary, ["serve", "--reconcile-interval-ms", "1", "--database-url", "host=/nonexistent-payql"],
                                       environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.status == 2)
        #expect(run.errorsText.contains("--reconcile-interval-ms must be in 10...3600000"), "\(run.errorsText)")
        let hours = try ChildProcess.run(binary, ["serve", "--order-expiry-hours", "0", "--database-url", "host=/nonexistent-payql"],
                                         environment: ["PATH": "/usr/bin:/bin"])
        #expect(hours.status == 2)
    }

    static func call(_ h: GatewayHarness, _ serve: ServeProcess, _ query: String, variables: JSONObject = [:]) async throws -> JSONValue {
        let body = JSONWriter.write(["query": .string(query), "variables": .object(variables)])
        let response = try await h.client.execute(HTTPClientRequest(
            method: "POST", url: serve.baseURL + "/graphql",
            headers: [("content-type", "application/json"), ("authorization", "Bearer \(h.secretKey)")], body: body))
        return try JSONParser.parse(response.body)
    }
}
