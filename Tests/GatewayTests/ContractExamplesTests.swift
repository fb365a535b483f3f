import Foundation
import HTTPClient
@testable import Gateway
import GraphQL
import JSON
import Testing

/// The contract's client examples (`../shared/api/examples/*.graphql`, copied to
/// `Fixtures/examples`) validate against the served schema, and each of the five runs
/// against the sandbox (TPV + Turbo UPI and ops in the `+TurboAndOps` file).
@Suite struct ContractExamplesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/examples")

    static func examples() throws -> [(name: String, text: String)] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".graphql") }.sorted().map {
            ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test func everyExampleValidatesAgainstTheServedSchema() async throws {
        let examples = try Self.examples()
        #expect(examples.count >= 5)
        try await GatewayHarness.run { h in
            for (name, text) in examples {
                let document = try Parser.parse(text)
                let errors = validate(schema: h.gateway.schema, document: document)
                #expect(errors.isEmpty, "\(name): \(errors.map(\.message))")
            }
        }
    }

    @Test func theCashfreeExampleRunsAgainstTheSandbox() async throws {
        let text = try #require(try Self.examples().first { $0.name == "cashfree.graphql" }?.text)
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let input: JSONObject = ["amount": ["amount": "17000"], "provider": "CASHFREE", "flow": "CARD_COMPONENT", "customerId": .string(customer)]
            let created = try await h.graphQLNamed(text, operation: "CF", variables: ["in": .object(input)])
            #expect(created.userErrorCodes("createOrder") == [], "\(created.json)")
            let order = try #require(created.data("createOrder")?["order"])
            #expect(order["checkout"]?["paymentSessionId"]?.stringValue?.isEmpty == false)
            let id = try #require(order["id"]?.stringValue)
            let receipt = try await h.graphQL("query($id: ID!) { order(id: $id) { receipt } }", variables: ["id": .string(id)])
            try await h.complete("cashfree", order: try #require(receipt.data("order")?["receipt"]?.stringValue))
            let done = try await h.graphQLNamed(text, operation: "Done", variables: ["id": .string(id), "key": "done-1"])
            #expect(done.data("verifyOrderPayment")?["verified"]?.boolValue == true, "\(done.json)")
            #expect(done.data("verifyOrderPayment")?["order"]?["status"]?.stringValue == "PAID")
        }
    }

    @Test func theSetuExampleRunsAgainstTheSandbox() async throws {
        let text = try #require(try Self.examples().first { $0.name == "setu.graphql" }?.text)
        try await GatewayHarness.run { h in
            let link = try await h.graphQLNamed(text, operation: "Link", variables: [:])
            #expect(link.userErrorCodes("createBillPayLink") == [], "\(link.json)")
            let created = try #require(link.data("createBillPayLink")?["billPayLink"])
            #expect(created["scenario"]?.stringValue == "BILL")
            #expect(created["sessionId"]?.stringValue?.isEmpty == false)
            let id = try #require(created["id"]?.stringValue)
            let start = try await h.graphQLNamed(text, operation: "Start", variables: ["link": .string(id)])
            #expect(start.userErrorCodes("startBillPayment") == [], "\(start.json)")
            let bill = try #require(start.data("startBillPayment")?["billPayment"])
            #expect(bill["setuOrderId"]?.stringValue == "COUWLZ7pFtTgr9LtO")
            #expect(bill["amount"]?["decimal"]?.stringValue == "3522.20")
            #expect(bill["allowedPaymentModes"] == .array(["UPI", "INTERNET_BANKING"]))
            #expect(bill["deprecatedFieldsUsed"] == .array(["callback"]))
            #expect(bill["status"]?.stringValue == "AWAITING_PAYMENT")
            #expect(start.data("startBillPayment")?["order"]?["checkout"]?["__typename"]?.stringValue?.isEmpty == false)
            // The same call again (its idempotency key): the same bill payment.
            let again = try await h.graphQLNamed(text, operation: "Start", variables: ["link": .string(id)])
            #expect(again.data("startBillPayment")?["billPayment"]?["id"] == bill["id"])
            #expect(try await h.count("bill_payments") == 1)
        }
    }

    @Test func theInstamojoExampleRunsAgainstTheSandbox() async throws {
        let text = try #require(try Self.examples().first { $0.name == "instamojo.graphql" }?.text)
        try await GatewayHarness.run(configuration: InstamojoCustomUITests.quick()) { h in
            let (id, _) = try await InstamojoCustomUITests.order(h)
            let options = try await h.graphQLNamed(text, operation: "Options", variables: ["id": .string(id)])
            #expect(options.data("order")?["paymentOptions"]?["enabledMethods"]?.arrayValue?.isEmpty == false, "\(options.json)")
            let redirect = try await h.graphQLNamed(text, operation: "NB", variables: ["id": .string(id)])
            #expect(redirect.userErrorCodes("startRedirectPayment") == [], "\(redirect.json)")
            #expect(redirect.data("startRedirectPayment")?["redirect"]?["formFields"]?.arrayValue?.first?["value"]?.stringValue == "HDFC")
            let collect = try await h.graphQLNamed(text, operation: "Collect", variables: ["id": .string(id), "vpa": "asha@okicici"])
            #expect(collect.userErrorCodes("requestUpiCollect") == [], "\(collect.json)")
            let collectID = try #require(collect.data("requestUpiCollect")?["upiCollect"]?["id"]?.stringValue)
            // The user left the wait screen: PayQL asks the provider and keeps the order open.
            let cancelled = try await h.graphQLNamed(text, operation: "Cancelled", variables: ["id": .string(id)])
            #expect(cancelled.data("verifyOrderPayment")?["verified"]?.boolValue == false, "\(cancelled.json)")
            let paymentID = try #require(try await h.graphQL("query($c: ID!) { upiCollect(id: $c) { providerPaymentId } }",
                                                               variables: ["c": .string(collectID)]).data("upiCollect")?["providerPaymentId"]?.stringValue)
            try await h.sandboxControl("/instamojo/collects/\(paymentID)/complete", body: #"{"status":"paid"}"#)
            #expect(try await h.eventually {
                let poll = try await h.graphQLNamed(text, operation: "Poll", variables: ["c": .string(collectID)])
                return poll.data("upiCollect")?["status"]?.stringValue == "SUCCEEDED" && poll.data("upiCollect")?["order"]?["status"]?.stringValue == "PAID"
            })
        }
    }
}

extension GatewayHarness {
    /// POSTs `operation` of a multi-operation document (with the SECRET key unless `key` is given).
    func graphQLNamed(_ document: String, operation: String, variables: JSONObject, key: String? = nil) async throws -> Answer {
        let body = JSONWriter.write(["query": .string(document), "operationName": .string(operation), "variables": .object(variables)])
        let response = try await client.execute(.init(method: "POST", url: baseURL + "/graphql",
                                                      headers: [("content-type", "application/json"), ("authorization", "Bearer \(key ?? secretKey)")],
                                                      body: body))
        return Answer(status: response.status, json: try JSONParser.parse(response.body))
    }
}
