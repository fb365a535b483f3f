import Foundation
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
}
