import Foundation
@testable import Gateway
import HTTPClient
import JSON
import Testing

/// Two real `payql serve` processes on one database: the idempotency key is enforced by the
/// database, so a createOrder sent to both at once makes one provider order, and both answers
/// name it.
@Suite struct TwoInstancesTests {
    /// No receipt is sent: each call would generate its own, so only the idempotency key stands between a pair
    /// and two provider orders.
    @Test func theSameCreateOrderOnTwoInstancesMakesOneProviderOrder() async throws {
        try await GatewayHarness.run { h in
            let first = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox)
            let second: ServeProcess
            do {
                second = try await ServeProcess.start(databaseURL: h.databaseURL, sandbox: h.sandbox)
            } catch {
                _ = await first.stop()
                throw error
            }
            let instances = [first.baseURL, second.baseURL]
            let pairs = 50
            let key = h.secretKey
            let client = h.client
            // Each pair: the same key and input to both instances at the same moment; ten pairs in flight at a time.
            let answers = try await withThrowingTaskGroup(of: (Int, [JSONValue]).self) { group in
                var collected: [Int: [JSONValue]] = [:]
                for pair in 0..<pairs {
                    if pair >= 10, let (index, both) = try await group.next() { collected[index] = both }
                    group.addTask {
                        async let a = Self.createOrder(client, instances[0], key: key, pair: pair)
                        async let b = Self.createOrder(client, instances[1], key: key, pair: pair)
                        return (pair, try await [a, b])
                    }
                }
                for try await (index, both) in group { collected[index] = both }
                return collected
            }
            let firstStatus = await first.stop()
            let secondStatus = await second.stop()
            #expect(firstStatus == 0 && secondStatus == 0)

            #expect(answers.count == pairs)
            var orderIDs = Set<String>()
            for pair in 0..<pairs {
                let both = answers[pair] ?? []
                let ids = both.map { $0["data"]?["createOrder"]?["order"]?["id"]?.stringValue }
                let errors = both.flatMap { $0["data"]?["createOrder"]?["userErrors"]?.arrayValue ?? [] }
                #expect(errors.isEmpty, "pair \(pair): \(both)")
                #expect(ids.count == 2 && ids[0] != nil && ids[0] == ids[1], "pair \(pair): \(both)")
                if let id = ids.first ?? nil { orderIDs.insert(id) }
                let providerIDs = both.map { $0["data"]?["createOrder"]?["order"]?["providerOrderId"]?.stringValue }
                #expect(providerIDs[0] != nil && providerIDs[0] == providerIDs[1])
            }
            #expect(orderIDs.count == pairs)
            // One provider order per key, counted at the provider: 50 in all, one per receipt PayQL answered.
            #expect(try await h.count("orders") == Int64(pairs))
            #expect(try await h.razorpayOrders(receipt: nil).count == pairs)
            for pair in 0..<pairs {
                let receipt = try #require(answers[pair]?.first?["data"]?["createOrder"]?["order"]?["receipt"]?.stringValue)
                #expect(try await h.razorpayOrders(receipt: receipt).count == 1, "pair \(pair)")
            }
        }
    }

    static func createOrder(_ client: HTTPClient, _ baseURL: String, key: String, pair: Int) async throws -> JSONValue {
        let query = """
            mutation { createOrder(input: {amount: {amount: "\(10_000 + pair)"}, provider: RAZORPAY}) {
              order { id receipt providerOrderId status } userErrors { code message } } }
            """
        let body = JSONWriter.write(["query": .string(query)])
        let response = try await client.execute(HTTPClientRequest(
            method: "POST", url: baseURL + "/graphql",
            headers: [("content-type", "application/json"), ("authorization", "Bearer \(key)"), ("idempotency-key", "pair-key-\(pair)")],
            body: body, timeout: .seconds(30)))
        return try JSONParser.parse(response.body)
    }
}
