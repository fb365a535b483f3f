public import HTTPServer

/// The ops page (docs/ops-page.md): one static page in the binary — `web/ops/` embedded by
/// `scripts/embed-web.py` — that talks only to `/graphql` with the OPS key the operator
/// types in. The page itself holds no data and needs no key; every request it makes does.
public enum OpsPage {
    /// The page's files (`index.html`, `ops.css`, `ops.js`).
    public static let page = StaticPage(files: EmbeddedOpsPage.files)

    /// `GET /ops` (the HTML) or `GET /ops/{file}`; 404 for a name the page does not have.
    public static func response(file: String?, method: String) -> HTTPResponse {
        page.response(file ?? "index.html", method: method)
    }
}
