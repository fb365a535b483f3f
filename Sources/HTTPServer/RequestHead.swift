import JSON
import Support

/// Checks on a complete request head, made before any of the body is read.
enum RequestHead {
    /// The head's size as written canonically: `METHOD SP target SP version CRLF`,
    /// `name: value CRLF` per field, and the final CRLF. This is the byte count of
    /// what clients send (optional whitespace around a value, which libmicrohttpd
    /// strips, is not counted; the memory pool bounds it).
    static func size(method: String, target: String, version: String, headers: HTTPHeaders) -> Int {
        var bytes = method.utf8.count + 1 + target.utf8.count + 1 + version.utf8.count + 2 + 2
        for field in headers {
            bytes += field.name.utf8.count + 2 + field.value.utf8.count + 2
        }
        return bytes
    }

    /// The refusal for a head whose body length is ambiguous (RFC 9112 §6.1, §6.3),
    /// or `nil` when the framing is sound:
    /// - `Transfer-Encoding` together with `Content-Length` → 400 (the two disagree
    ///   about where the body ends: the request-smuggling vector);
    /// - `Content-Length` fields with different values → 400;
    /// - `Transfer-Encoding` in an HTTP/1.0 request → 400;
    /// - `Transfer-Encoding` whose final coding is not `chunked`, or that applies
    ///   `chunked` twice → 400; other codings before a final `chunked` → 501 (not
    ///   understood). Only a single `Transfer-Encoding: chunked` is read, which is
    ///   also exactly what libmicrohttpd decodes.
    static func framingRefusal(headers: HTTPHeaders, version: String) -> HTTPResponse? {
        // One pass without allocating: this runs for every request.
        var firstLength: Substring?
        var lengthsDiffer = false
        var encodingFields = 0
        for field in headers {
            if ASCII.caseInsensitiveEquals(field.name, "content-length") {
                let value = field.value.trimmedOfSpaces()
                if let firstLength { lengthsDiffer = lengthsDiffer || value != firstLength } else { firstLength = value }
            } else if ASCII.caseInsensitiveEquals(field.name, "transfer-encoding") {
                encodingFields += 1
            }
        }
        if encodingFields > 0 {
            if firstLength != nil {
                return badRequest("Transfer-Encoding and Content-Length together: the body length is ambiguous")
            }
            if version == "HTTP/1.0" {
                return badRequest("Transfer-Encoding in an HTTP/1.0 request")
            }
            let encodings = headers.values("transfer-encoding")
            if encodings.count == 1, isChunked(encodings[0]) { return nil }
            let codings = encodings.flatMap { $0.split(separator: ",") }
                .map { String($0.filter { $0 != " " && $0 != "\t" }).lowercased() }
                .filter { !$0.isEmpty }
            if let last = codings.last, last == "chunked", !codings.dropLast().contains("chunked"), codings.count > 1 {
                return refusal(status: 501, code: "NOT_IMPLEMENTED", message: "transfer coding not supported (only chunked is)")
            }
            return badRequest("Transfer-Encoding must be exactly chunked")
        }
        if lengthsDiffer {
            return badRequest("Content-Length fields with different values")
        }
        return nil
    }

    /// A JSON error answer that closes the connection.
    static func refusal(status: Int, code: String, message: String) -> HTTPResponse {
        var response = HTTPResponse.json(
            ["errors": [["message": .string(message), "extensions": ["code": .string(code)]]]], status: status)
        response.headers["connection"] = "close"
        return response
    }

    private static func badRequest(_ message: String) -> HTTPResponse {
        refusal(status: 400, code: "BAD_REQUEST", message: message)
    }

    /// Exactly `chunked`, case-insensitively: what libmicrohttpd compares against.
    private static func isChunked(_ value: String) -> Bool {
        ASCII.caseInsensitiveEquals(value, "chunked")
    }
}
