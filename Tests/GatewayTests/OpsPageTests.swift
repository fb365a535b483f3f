import Foundation
import HTTPClient
@testable import Gateway
import Testing

/// `GET /ops`: the ops page carried in the binary (web/ops/, embedded by scripts/embed-web.py).
/// What the page does in a browser is tested by Tests/browser/ops_page_test.py.
@Suite struct OpsPageTests {
    @Test func servesThePageItsScriptAndStyleWithSecurityHeaders() async throws {
        try await GatewayHarness.run { h in
            func get(_ path: String, method: String = "GET") async throws -> HTTPClientResponse {
                try await h.client.execute(HTTPClientRequest(method: method, url: h.baseURL + path, headers: [("accept", "text/html")]))
            }
            func header(_ response: HTTPClientResponse, _ name: String) -> String? {
                response.headers.first { $0.name.lowercased() == name }?.value
            }
            let page = try await get("/ops")
            #expect(page.status == 200)
            #expect(header(page, "content-type") == "text/html; charset=utf-8")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("PayQL ops") && html.contains(#"<script src="/ops/ops.js" defer></script>"#))
            #expect(!html.contains("<script>"), "no inline script: the policy forbids it")
            let policy = header(page, "content-security-policy") ?? ""
            #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'") && policy.contains("connect-src 'self'"))
            #expect(header(page, "x-content-type-options") == "nosniff")
            #expect(header(page, "x-frame-options") == "DENY")
            #expect(try await get("/ops/").status == 200)

            let script = try await get("/ops/ops.js")
            #expect(script.status == 200)
            #expect(header(script, "content-type") == "text/javascript; charset=utf-8")
            let source = String(decoding: script.body, as: UTF8.self)
            #expect(source.contains("sessionStorage") && source.contains("text/event-stream"))
            #expect(!source.contains("localStorage.") && !source.contains("document.cookie"), "the key is kept for the tab only")
            #expect(try await get("/ops/ops.css").status == 200)
            #expect(try await get("/ops/missing.js").status == 404)
            #expect(try await get("/ops", method: "POST").status == 405)
            // The page holds no data: the API behind it still wants a key.
            #expect(try await h.graphQL("{ providers { provider } }", key: .some(nil)).status == 401)
        }
    }

    /// `Sources/Gateway/Generated/EmbeddedOpsPage.swift` holds `web/ops/` as it is (run scripts/embed-web.py).
    @Test func embeddedPageIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("web/ops")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(EmbeddedOpsPage.files.map(\.name) == names, "web/ops changed: run scripts/embed-web.py")
        for file in EmbeddedOpsPage.files {
            let text = try String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == text, "web/ops/\(file.name) changed: run scripts/embed-web.py")
        }
    }
}
