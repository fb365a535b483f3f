import Foundation
import HTTPClient
@testable import Gateway
import JSON
import Testing

/// `extensions.timing` on every response: the gateway's own overhead is total − provider.
@Suite struct TimingTests {
    @Test func everyResponseSaysWhereTheTimeWent() async throws {
        try await GatewayHarness.run { h in
            let created = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { order { id } } }"#)
            let timing = try #require(created.json["extensions"]?["timing"])
            let total = try #require(timing["totalMs"]?.doubleValue)
            let provider = try #require(timing["providerMs"]?.doubleValue)
            let database = try #require(timing["databaseMs"]?.doubleValue)
            let gateway = try #require(timing["gatewayMs"]?.doubleValue)
            #expect(provider > 0, "the order was created at the sandbox over HTTP")
            #expect(database > 0, "the order row was written")
            #expect(total >= provider)
            #expect(abs(gateway - (total - provider)) < 0.01)
            let read = try await h.graphQL("{ viewer { scopes } }")
            #expect(read.json["extensions"]?["timing"]?["providerMs"]?.doubleValue == 0)
            #expect(read.json["data"]?["viewer"] != nil)
        }
    }

    @Test func providerHealthComesFromRecentCalls() async throws {
        try await GatewayHarness.run { h in
            let health = "{ providers { provider health { status successRate p99LatencyMs lastError } } }"
            func status(_ provider: String) async throws -> JSONValue? {
                try await h.graphQL(health).data("providers")?.arrayValue?.first { $0["provider"]?.stringValue == provider }?["health"]
            }
            #expect(try await status("RAZORPAY")?["status"]?.stringValue == "UNKNOWN")
            _ = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { order { id } } }"#)
            #expect(try await status("RAZORPAY")?["status"]?.stringValue == "UP")
            #expect(try await status("RAZORPAY")?["successRate"]?.doubleValue == 1)
            // Every call failing with a 5xx: DOWN, with the last error.
            try await h.sandboxControl("/faults", body: #"{"route": "POST /razorpay/v1/orders", "kind": "status", "status": 503}"#)
            for _ in 0..<3 {
                _ = try await h.graphQL(#"mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) { userErrors { code } } }"#)
            }
            let scrape = try await h.client.execute(.init(url: h.baseURL + "/metrics"))
            let text = String(decoding: scrape.body, as: UTF8.self)
            #expect(text.contains(#"payql_provider_requests_total{provider="razorpay",operation="createOrder",outcome="ok"} 1"#), "\(text)")
            #expect(text.contains(#"payql_provider_requests_total{provider="razorpay",operation="createOrder",outcome="provider_unavailable"} 3"#))
            #expect(text.contains(#"payql_provider_request_duration_seconds_count{provider="razorpay",operation="createOrder"} 4"#))
            let degraded = try await status("RAZORPAY")
            #expect(degraded?["status"]?.stringValue == "DEGRADED")
            #expect(degraded?["lastError"]?.stringValue?.contains("createOrder") == true)
        }
    }
}
