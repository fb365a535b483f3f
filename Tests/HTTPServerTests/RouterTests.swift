import HTTPServer
import Testing

/// Route patterns: literals, `{parameters}`, a final `**`, methods, 405 versus 404.
@Suite struct RouterTests {
    enum Destination: Sendable, Equatable { case webhook, graphql, ops, sandbox }

    static func router() throws -> Router<Destination> {
        var router = Router<Destination>()
        try router.add("POST /webhooks/{provider}", .webhook)
        try router.add("/graphql", .graphql)
        try router.add("GET /ops/**", .ops)
        try router.add("POST /_sandbox/{provider}/orders/{id}/complete", .sandbox)
        return router
    }

    @Test func parametersAndRestAreCaptured() throws {
        let router = try Self.router()
        guard case .found(let destination, let parameters) = router.match(method: "POST", path: "/webhooks/razorpay") else {
            Issue.record("no match"); return
        }
        #expect(destination == .webhook)
        #expect(parameters == ["provider": "razorpay"])
        guard case .found(.sandbox, let ids) = router.match(method: "POST", path: "/_sandbox/cashfree/orders/ord_1/complete/") else {
            Issue.record("no match"); return
        }
        #expect(ids == ["provider": "cashfree", "id": "ord_1"])
        guard case .found(.ops, let rest) = router.match(method: "GET", path: "/ops/orders/42") else { Issue.record("no match"); return }
        #expect(rest["**"] == "orders/42")
        guard case .found(.ops, let empty) = router.match(method: "GET", path: "/ops") else { Issue.record("no match"); return }
        #expect(empty["**"] == "")
        guard case .found(.graphql, _) = router.match(method: "DELETE", path: "/graphql") else { Issue.record("any method"); return }
    }

    @Test func wrongMethodIsNotNotFound() throws {
        let router = try Self.router()
        guard case .methodNotAllowed(let allowed) = router.match(method: "GET", path: "/webhooks/razorpay") else {
            Issue.record("expected 405"); return
        }
        #expect(allowed == ["POST"])
        for path in ["/webhooks", "/webhooks/razorpay/extra", "/", "/graphqlx", "/webhooks//"] {
            guard case .notFound = router.match(method: "POST", path: path) else { Issue.record("\(path) matched"); continue }
        }
    }

    @Test func malformedPatternsAreRefused() {
        var router = Router<Destination>()
        #expect(throws: Router<Destination>.PatternError.self) { try router.add("POST webhooks", .webhook) }
        #expect(throws: Router<Destination>.PatternError.self) { try router.add("/a/**/b", .ops) }
        #expect(throws: Router<Destination>.PatternError.self) { try router.add("/a/{}", .ops) }
    }
}
