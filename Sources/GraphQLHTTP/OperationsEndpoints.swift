import Metrics
import GraphQL
import HTTPServer
import JSON

extension GraphQLHTTPHandler {
    /// `/healthz`, `/metrics`, `/schema.graphql`, `/readyz` without checks; 404 elsewhere.
    func operationsEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        let known = ["/healthz", "/readyz", "/metrics", "/schema.graphql"]
        guard known.contains(request.path) else {
            return .json(["errors": [["message": "Not found.", "extensions": ["code": "NOT_FOUND"]]]], status: 404)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.json(
                ["errors": [["message": "Use GET.", "extensions": ["code": "METHOD_NOT_ALLOWED"]]]], status: 405)
            response.headers["allow"] = "GET, HEAD"
            return response
        }
        switch request.path {
        case "/healthz":
            return .json(["status": "ok"])
        case "/readyz":
            return .json(["status": "ready", "checks": .object([:])])
        case "/metrics":
            return .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        default:
            return .text(configuration.schemaSDL ?? printSchema(schema), contentType: "text/plain; charset=utf-8")
        }
    }

    /// Runs every readiness check concurrently; 503 naming the failures if any fails.
    func readyz(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return operationsEndpoint(request) }
        let checks = readinessChecks
        let results = await withTaskGroup(of: (Int, String?).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await check.check()) }
            }
            var results = [String?](repeating: nil, count: checks.count)
            for await (index, failure) in group { results[index] = failure }
            return results
        }
        var report = JSONObject()
        var ready = true
        for (check, failure) in zip(checks, results) {
            if let failure {
                ready = false
                report.append(check.name, .string(failure))
            } else {
                report.append(check.name, "ok")
            }
        }
        return .json(["status": .string(ready ? "ready" : "not ready"), "checks": .object(report)], status: ready ? 200 : 503)
    }
}
