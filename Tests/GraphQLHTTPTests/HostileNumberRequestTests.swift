import HTTPTestSupport
import GraphQL
import GraphQLHTTP
import JSON
import Testing

/// Issue 14's "remote kill switch by numbers", verbatim over HTTP: each request
/// once stopped the server (SIGILL); now each gets a GraphQL error with a code.
@Suite struct HostileNumberRequestTests {
    @Test func getWithOneE19StringVariable() async throws {
        try await withGraphQLServer { server in
            let response = try await request(
                port: server.port, "GET",
                "/graphql?query=query(%24v:String)%7Bhello(name:%24v)%7D&variables=%7B%22v%22:1e19%7D",
                headers: [("Accept", "application/json")])
            #expect(response.status == 200)
            #expect(response.firstErrorCode == "BAD_USER_INPUT")
            #expect(response.json["errors"]?.arrayValue?.first?["message"]?.stringValue
                == #"Variable "$v" got invalid value 10000000000000000000; String cannot represent a non string value: 10000000000000000000"#)
            // Still serving.
            let hello = try await server.get([("query", "{ hello }")])
            #expect(hello.json["data"]?["hello"]?.stringValue == "Hello, world!")
        }
    }

    @Test func postTwoToTheSixtyThreeIntoIntIDAndMutationInt() async throws {
        try await withGraphQLServer { server in
            let cases: [(query: String, message: String?)] = [
                ("query($v: Int) { orders(first: $v) { id } }",
                 #"Variable "$v" got invalid value 9223372036854776000; Int cannot represent non 32-bit signed integer value: 9223372036854776000"#),
                // ID takes integers: 2^63 reads as the double 9223372036854775808, written as JavaScript writes it.
                ("query($v: ID!) { order(id: $v) { id } }", nil),
                ("mutation($v: Int!) { createOrder(amountMinor: $v) { id } }",
                 #"Variable "$v" got invalid value 9223372036854776000; Int cannot represent non 32-bit signed integer value: 9223372036854776000"#),
            ]
            for testCase in cases {
                let body = #"{"query": "\#(testCase.query)", "variables": {"v": 9223372036854775808}}"#
                let response = try await server.post(body, accept: "application/graphql-response+json")
                if let message = testCase.message {
                    #expect(response.status == 400, "\(testCase.query)")
                    #expect(response.firstErrorCode == "BAD_USER_INPUT", "\(testCase.query)")
                    #expect(response.json["errors"]?.arrayValue?.first?["message"]?.stringValue == message)
                } else {
                    #expect(response.status == 200, "\(testCase.query)")
                    #expect(response.json["data"]?["order"] == .null)
                }
            }
            for value in ["1e19", "-1e19", "1e308", "18446744073709551616", "-9223372036854775809", "1e-400", "-0.0"] {
                for query in ["query($v: String) { hello(name: $v) }", "query($v: Int) { orders(first: $v) { id } }",
                              "query($v: ID!) { order(id: $v) { id } }", "query($v: Int!) { slow(milliseconds: $v) }"] {
                    let response = try await server.post(#"{"query": "\#(query)", "variables": {"v": \#(value)}}"#)
                    #expect(response.status == 200, "\(query) with \(value)")
                    #expect(response.json != .null, "\(query) with \(value)")
                }
            }
            // A number no double holds is refused by the JSON layer with a 400.
            let huge = try await server.post(#"{"query": "query($v: Float) { hello }", "variables": {"v": 1e400}}"#)
            #expect(huge.status == 400)
            #expect(try await server.get([("query", "{ hello }")]).status == 200)
        }
    }
}
