import JSON
import Testing

/// U+0000 in a client's text (found by schemathesis, Tests/Clients/run.sh): PostgreSQL text cannot hold it,
/// so it must be a clear input error, never INTERNAL and never a truncated value.
@Suite struct NulCharacterTests {
    @Test func anIdempotencyKeyWithANulIsAValidationUserErrorAndNothingIsWritten() async throws {
        try await GatewayHarness.run { h in
            for key in ["\u{0}T", "ab\u{0}", "tab\there"] {
                let answer = try await h.graphQL("""
                    mutation($k: String) { createCustomer(input: {name: "Asha Rao", idempotencyKey: $k}) { customer { id } userErrors { code field } } }
                    """, variables: ["k": .string(key)])
                #expect(answer.status == 200)
                #expect(answer.errorCodes == [], "\(answer.json)")
                #expect(answer.userErrorCodes("createCustomer") == ["VALIDATION_FAILED"], "\(answer.json)")
            }
            #expect(try await h.count("customers") == 0)
            #expect(try await h.count("idempotency_records") == 0)
        }
    }

    @Test func aFilterWithANulIsBadUserInputNotInternal() async throws {
        try await GatewayHarness.run { h in
            let orders = try await h.graphQL("query($r: String) { orders(filter: {receipt: $r}) { nodes { id } } }", variables: ["r": "x\u{0}y"])
            #expect(orders.errorCodes == ["BAD_USER_INPUT"], "\(orders.json)")
            let customers = try await h.graphQL("query($e: String) { customers(filter: {namePrefix: $e}) { nodes { id } } }", variables: ["e": "\u{0}"])
            #expect(customers.errorCodes == ["BAD_USER_INPUT"], "\(customers.json)")
            // The same filters without the NUL still work.
            let fine = try await h.graphQL(#"{ orders(filter: {receipt: "xy"}) { nodes { id } } }"#)
            #expect(fine.errorCodes == [])
            #expect(fine.data("orders")?["nodes"] == [])
        }
    }
}
