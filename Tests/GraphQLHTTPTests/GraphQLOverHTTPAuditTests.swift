import HTTPTestSupport
import GraphQLHTTP
import HTTPServer
import JSON
import Testing

/// The graphql-http audits (https://github.com/graphql/graphql-http, `src/audits/server.ts`;
/// docs/http.md, GraphQL over HTTP), over real HTTP on loopback.
@Suite struct GraphQLOverHTTPAuditTests {
    static let gqlJSON = "application/graphql-response+json"

    @Test func mustAuditsAllAnswer200WithoutErrors() async throws {
        try await withGraphQLServer { server in
            let bodies: [(String, String?)] = [
                (#"{"query":"{ __typename }"}"#, "application/json"),                                   // 4655, 2C94, 03D4, 13EE
                (#"{"query":"{ hello(name: \"😀\") }"}"#, "application/json; charset=utf-8"),           // BF61
                (#"{"query":"{ __typename }"}"#, "application/json"),                                   // 78D5 (no charset)
                (#"{"query":"query Q { __typename }","operationName":"Q"}"#, "application/json"),        // B8B3
                (#"{"query":"{ __typename }","variables":null}"#, "application/json"),                  // 0220
                (#"{"query":"{ __typename }","operationName":null}"#, "application/json"),              // 0221
                (#"{"query":"{ __typename }","extensions":null}"#, "application/json"),                 // 0222
                (#"{"query":"query Type($name: String!) { __type(name: $name) { name } }","variables":{"name":"Query"}}"#, "application/json"), // 28B9
                (#"{"query":"{ __typename }","extensions":{"some":"value"}}"#, "application/json"),     // 1B7A
            ]
            for (body, contentType) in bodies {
                let response = try await server.post(body, contentType: contentType)
                #expect(response.status == 200, "\(body)")
                #expect(response.contentType.hasPrefix("application/json"), "\(body)")
                #expect(response.json["errors"] == nil, "\(body): \(response.text)")
                #expect(response.json["data"] != nil)
                #expect(String(validating: response.body, as: UTF8.self) != nil) // 82A3
            }
            let emoji = try await server.post(#"{"query":"{ hello(name: \"😀\") }"}"#)
            #expect(emoji.json["data"]?["hello"] == "Hello, 😀!")
            let type = try await server.post(#"{"query":"query Type($name: String!) { __type(name: $name) { name } }","variables":{"name":"Order"}}"#)
            #expect(type.json["data"]?["__type"]?["name"] == "Order")
        }
    }

    @Test func acceptNegotiation() async throws {
        try await withGraphQLServer { server in
            let body = #"{"query":"{ __typename }"}"#
            let modern = try await server.post(body, accept: Self.gqlJSON)                        // 22EB
            #expect(modern.status == 200 && modern.contentType.hasPrefix(Self.gqlJSON))
            let any = try await server.post(body, accept: "*/*")                                  // 47DE
            #expect(any.status == 200 && any.contentType.hasPrefix("application/json"))
            let missing = try await server.post(body, accept: nil)                               // 80D8
            #expect(missing.status == 200 && missing.contentType.hasPrefix("application/json"))
            let both = try await server.post(body, accept: "application/json;q=0.9, \(Self.gqlJSON)")
            #expect(both.contentType.hasPrefix(Self.gqlJSON))
            let preferJSON = try await server.post(body, accept: "\(Self.gqlJSON);q=0.5, application/json")
            #expect(preferJSON.contentType.hasPrefix("application/json"))
            let refused = try await server.post(body, accept: "text/html")
            #expect(refused.status == 406)
            #expect(refused.firstErrorCode == "NOT_ACCEPTABLE")
            let zero = try await server.post(body, accept: "application/json;q=0")
            #expect(zero.status == 406)
        }
    }

    @Test func contentTypeOfPost() async throws {
        try await withGraphQLServer { server in
            let body = #"{"query":"{ __typename }"}"#
            let none = try await server.post(body, contentType: nil)                               // 9ABE
            #expect(none.status == 415)
            let text = try await server.post(body, contentType: "text/plain")
            #expect(text.status == 415 && text.firstErrorCode == "UNSUPPORTED_MEDIA_TYPE")
            let form = try await server.post("query=%7B__typename%7D", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
            let latin = try await server.post(body, contentType: "application/json; charset=iso-8859-1")
            #expect(latin.status == 415)
            let upper = try await server.post(body, contentType: "Application/JSON; Charset=UTF-8")
            #expect(upper.status == 200)
        }
    }

    @Test(arguments: [Self.gqlJSON, "application/json"])
    func malformedBodiesAndParametersGet400(accept: String) async throws {
        try await withGraphQLServer { server in
            let cases: [String] = [
                "",                                               // A5BF
                "{",                                              // BCF8 / B7N8
                #"{"query":"{ __typename }""#,
                "[{\"query\":\"{ __typename }\"}]",               // batching
                "\"just a string\"",
                #"{"notquery":"{ __typename }"}"#,                // 423L
                #"{"query":{"obj":1}}"#,                         // LKJ0
                #"{"query":0}"#,                                  // LKJ1
                #"{"query":false}"#,                              // LKJ2
                #"{"query":["{ __typename }"]}"#,                 // LKJ3
                #"{"query":"{ __typename }","operationName":{}}"#, // 6C00
                #"{"query":"{ __typename }","operationName":0}"#,  // 6C01
                #"{"query":"{ __typename }","operationName":true}"#, // 6C02
                #"{"query":"{ __typename }","operationName":[]}"#, // 6C03
                #"{"query":"{ __typename }","variables":"{}"}"#,  // 4760
                #"{"query":"{ __typename }","variables":0}"#,     // 4761
                #"{"query":"{ __typename }","variables":false}"#, // 4762
                #"{"query":"{ __typename }","variables":[]}"#,    // 4763
                #"{"query":"{ __typename }","extensions":"{}"}"#, // 58B0
                #"{"query":"{ __typename }","extensions":0}"#,    // 58B1
                #"{"query":"{ __typename }","extensions":true}"#, // 58B2
                #"{"query":"{ __typename }","extensions":[]}"#,   // 58B3
            ]
            for body in cases {
                let response = try await server.post(body, accept: accept)
                #expect(response.status == 400, "\(body) → \(response.status) \(response.text)")
                #expect(response.firstErrorCode == "BAD_REQUEST", "\(body)")
                #expect(response.contentType.hasPrefix(accept), "\(body)")
                #expect(response.json["data"] == nil)
            }
        }
    }

    @Test func documentFailuresUnderGraphQLResponseJSONAre400WithoutData() async throws {
        try await withGraphQLServer { server in
            let parse = try await server.post(#"{"query":"{"}"#, accept: Self.gqlJSON)               // 865D, 556A, D586
            #expect(parse.status == 400 && parse.json["data"] == nil)
            #expect(parse.firstErrorCode == "GRAPHQL_PARSE_FAILED")
            #expect(parse.json["errors"]?.arrayValue?.first?["locations"] != nil)
            let invalid = try await server.post(#"{"query":"{ notAField }"}"#, accept: Self.gqlJSON) // 51FE, 74FF, 5E5B
            #expect(invalid.status == 400 && invalid.json["data"] == nil)
            #expect(invalid.firstErrorCode == "GRAPHQL_VALIDATION_FAILED")
            let coercion = try await server.post(
                #"{"query":"query ($name: String!) { hello(name: $name) }","variables":{"name":5}}"#, accept: Self.gqlJSON) // 86EE
            #expect(coercion.status == 400 && coercion.json["data"] == nil)
            #expect(coercion.firstErrorCode != nil)
            let unknownOperation = try await server.post(#"{"query":"query A { __typename }","operationName":"B"}"#, accept: Self.gqlJSON)
            #expect(unknownOperation.status == 400 && unknownOperation.json["data"] == nil)
        }
    }

    @Test func documentFailuresUnderJSONAre200() async throws {
        try await withGraphQLServer { server in
            let parse = try await server.post(#"{"query":"{"}"#)                                      // 572B
            #expect(parse.status == 200 && parse.json["errors"] != nil && parse.json["data"] == nil)
            let invalid = try await server.post(#"{"query":"{ notAField }"}"#)                        // FDE2
            #expect(invalid.status == 200 && invalid.firstErrorCode == "GRAPHQL_VALIDATION_FAILED")
            let coercion = try await server.post(#"{"query":"query ($name: String!) { hello(name: $name) }","variables":{"name":5}}"#) // 7B9B
            #expect(coercion.status == 200 && coercion.json["errors"] != nil)
        }
    }

    @Test func getRequests() async throws {
        try await withGraphQLServer { server in
            let simple = try await server.get([("query", "{ hello }")])
            #expect(simple.status == 200 && simple.json["data"]?["hello"] == "Hello, world!")
            let withVariables = try await server.get(                                                // D6D5, 6A70
                [("query", "query Type($name: String!) { __type(name: $name) { name } }"), ("variables", #"{"name":"Query"}"#)],
                accept: Self.gqlJSON)
            #expect(withVariables.status == 200 && withVariables.contentType.hasPrefix(Self.gqlJSON))
            #expect(withVariables.json["data"]?["__type"]?["name"] == "Query")
            let mutation = try await server.get([("query", "mutation { createOrder(amountMinor: 100) { id } }")]) // 9C48
            #expect(mutation.status == 405)
            #expect(mutation.headers["allow"] == "POST")
            let named = try await server.get([("query", "query A { hello } mutation B { createOrder(amountMinor: 1) { id } }"), ("operationName", "A")])
            #expect(named.status == 200)
            let missing = try await server.get([])
            #expect(missing.status == 400)
            let badVariables = try await server.get([("query", "{ hello }"), ("variables", "{nope")])
            #expect(badVariables.status == 400)
        }
    }

    @Test func oversizeBodyGets413() async throws {
        try await withGraphQLServer(limits: .init(maxBodyBytes: 64)) { server in
            let big = try await server.post(json: ["query": .string("{ hello(name: \"\(String(repeating: "x", count: 100))\") }")])
            #expect(big.status == 413)
            #expect(big.contentType.hasPrefix("application/json"))
            #expect(big.firstErrorCode == "PAYLOAD_TOO_LARGE")
            #expect(try await server.post(json: ["query": "{ __typename }"]).status == 200)
        }
    }

    @Test func otherMethodsGet405WithAllow() async throws {
        try await withGraphQLServer { server in
            let response = try await request(port: server.port, "PUT", "/graphql", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(response.status == 405)
            #expect(response.headers["allow"] == "GET, POST")
        }
    }

    @Test func mutationsAsyncResolversAndFieldErrors() async throws {
        try await withGraphQLServer { server in
            let created = try await server.post(json: ["query": "mutation { createOrder(amountMinor: 4200) { id amountMinor currency status } }"])
            #expect(created.status == 200)
            #expect(created.json["data"]?["createOrder"]?["amountMinor"] == 4200)
            #expect(created.json["data"]?["createOrder"]?["id"] == "ord_4")
            let slow = try await server.post(json: ["query": "{ slow(milliseconds: 20) }"])
            #expect(slow.json["data"]?["slow"] == "waited 20 ms")
            // A resolver error still returns data: 200 even under graphql-response+json.
            let partial = try await server.post(json: ["query": "{ hello order(id: \"missing\") { id } failing }"], accept: Self.gqlJSON)
            #expect(partial.status == 200)
            #expect(partial.json["data"]?["hello"] == "Hello, world!")
            #expect(partial.json["data"]?["failing"] == .null)
            #expect(partial.json["errors"]?.arrayValue?.first?["path"] == ["failing"])
            let ordered = try await server.post(json: ["query": "{ b: hello(name: \"b\") a: hello(name: \"a\") }"])
            #expect(ordered.text == #"{"data":{"b":"Hello, b!","a":"Hello, a!"}}"#)
        }
    }
}
