import Foundation
import GraphQL
@testable import GraphQLHTTP
import HTTPServer
import HTTPTestSupport
import JSON
import Testing

/// The GraphQL explorer at `GET /graphql` for browsers (web/explorer/, embedded by scripts/embed-web.py).
@Suite struct ExplorerTests {
    /// What Chromium sends when it navigates to a URL.
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

    @Test func aBrowserGetsTheExplorerWithItsSecurityHeaders() async throws {
        try await withGraphQLServer { server in
            let page = try await server.get([], accept: Self.browserAccept)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.text.contains("PayQL GraphQL explorer"))
            #expect(page.text.contains(#"data-endpoint="/graphql""#))
            #expect(!page.text.contains("__GRAPHQL_PATH__"))
            let policy = page.headers["content-security-policy"] ?? ""
            #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"))
            #expect(page.headers["x-content-type-options"] == "nosniff")
            // No inline script: every <script> names a file served here.
            #expect(!page.text.contains("<script>"))

            let script = try await server.get([], accept: "*/*", path: "/graphql/explorer.js")
            #expect(script.status == 200)
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("__schema"))
            let style = try await server.get([], accept: "*/*", path: "/graphql/explorer.css")
            #expect(style.status == 200 && style.headers["content-type"] == "text/css; charset=utf-8")
        }
    }

    @Test func apiClientsAreAnsweredAsBefore() async throws {
        try await withGraphQLServer { server in
            for accept in ["application/json", "*/*", "application/json, text/html", "application/graphql-response+json;q=1, text/html;q=0.5"] {
                let answer = try await server.get([("query", "{ __typename }")], accept: accept)
                #expect(answer.status == 200, "\(accept)")
                #expect(answer.headers["content-type"]?.hasPrefix("application/") == true, "\(accept)")
            }
            // A browser's GET with a query still gets the explorer (prefilled from the URL by the page).
            let prefilled = try await server.get([("query", "{ __typename }")], accept: Self.browserAccept)
            #expect(prefilled.headers["content-type"] == "text/html; charset=utf-8")
        }
    }

    @Test func noExplorerWhenIntrospectionIsOff() async throws {
        let configuration = GraphQLHTTPConfiguration(introspection: false, schemaSDL: ExampleSchema.sdl)
        try await withGraphQLServer(configuration) { server in
            let page = try await server.get([], accept: Self.browserAccept)
            #expect(page.status == 400)
            #expect(page.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(!page.text.contains("<html"))
            let script = try await server.get([], accept: "*/*", path: "/graphql/explorer.js")
            #expect(script.status == 404)
        }
    }

    @Test func htmlPreference() {
        #expect(GraphQLExplorer.prefersHTML(accept: Self.browserAccept))
        #expect(GraphQLExplorer.prefersHTML(accept: "text/html"))
        #expect(!GraphQLExplorer.prefersHTML(accept: nil))
        #expect(!GraphQLExplorer.prefersHTML(accept: "*/*"))
        #expect(!GraphQLExplorer.prefersHTML(accept: "application/json, text/html"))
        #expect(!GraphQLExplorer.prefersHTML(accept: "text/html;q=0"))
        #expect(GraphQLExplorer.prefersHTML(accept: "application/json;q=0.5, TEXT/HTML"))
    }

    /// `Sources/GraphQLHTTP/Generated/EmbeddedExplorer.swift` holds `web/explorer/` as it is (run scripts/embed-web.py).
    @Test func embeddedExplorerIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("web/explorer")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(EmbeddedExplorer.files.map(\.name) == names, "web/explorer changed: run scripts/embed-web.py")
        for file in EmbeddedExplorer.files {
            let text = try String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == text, "web/explorer/\(file.name) changed: run scripts/embed-web.py")
        }
    }
}
