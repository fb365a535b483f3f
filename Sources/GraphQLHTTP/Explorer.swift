import HTTPServer

/// The GraphQL explorer: a hand-written page (`web/explorer/`, embedded by
/// `scripts/embed-web.py`) that a browser gets at the GraphQL path — a query editor,
/// the schema's docs from introspection, variables and headers. It is part of
/// introspection: with introspection off there is no explorer, and a browser gets the
/// ordinary GraphQL-over-HTTP answer.
enum GraphQLExplorer {
    /// The explorer's files; `index.html` names the GraphQL path as `__GRAPHQL_PATH__`.
    static let page = StaticPage(files: EmbeddedExplorer.files)

    /// Whether `accept` asks for HTML before GraphQL's JSON types: `text/html` listed with a
    /// q-value above every JSON range it lists (wildcards count for neither). A browser's
    /// navigation (`text/html,…,*/*;q=0.8`) does; `*/*`, `application/json` and a tie do not.
    static func prefersHTML(accept: String?) -> Bool {
        // Most requests are API calls: skip the parse unless `html` appears at all.
        guard let accept, accept.utf8.count >= 9, accept.lowercased().contains("html") else { return false }
        var html = 0.0
        var json = 0.0
        for range in accept.split(separator: ",") {
            let parsed = MediaRange(String(range))
            switch (parsed.type, parsed.subtype) {
            case ("text", "html"): html = max(html, parsed.q)
            case ("application", "json"), ("application", "graphql-response+json"): json = max(json, parsed.q)
            default: break
            }
        }
        return html > 0 && html > json
    }
}

extension GraphQLHTTPHandler {
    /// The explorer's answer, or nil when `request` is not for it: the page for a browser's
    /// `GET` of the GraphQL path, `<path>/{file}` for its script and style sheet; never when
    /// introspection is off.
    func explorerResponse(_ request: HTTPRequest) -> HTTPResponse? {
        guard configuration.introspection, request.method == "GET" || request.method == "HEAD" else { return nil }
        if request.path == configuration.path {
            guard GraphQLExplorer.prefersHTML(accept: request.headers["accept"]) else { return nil }
            var response = GraphQLExplorer.page.response("index.html", method: request.method)
            let html = String(decoding: response.body, as: UTF8.self)
            response.body = Array(html.replacingAll("__GRAPHQL_PATH__", with: Self.htmlAttribute(configuration.path)).utf8)
            return response
        }
        let prefix = configuration.path.hasSuffix("/") ? configuration.path : configuration.path + "/"
        guard request.path.hasPrefix(prefix) else { return nil }
        let name = String(request.path.dropFirst(prefix.count))
        guard name != "index.html", GraphQLExplorer.page.files[name] != nil else { return nil }
        return GraphQLExplorer.page.response(name, method: request.method)
    }

    /// `text` escaped for a double-quoted HTML attribute.
    private static func htmlAttribute(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension String {
    /// Every occurrence of `target` replaced with `replacement` (the standard library has no such call without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}
