import HTTPTestSupport
import GraphQL
import GraphQLHTTP
import HTTPServer
import JSON
import Synchronization

/// Collects log records for assertions.
final class CapturingLogger: RequestLogger {
    private let records = Mutex<[RequestLogRecord]>([])
    func log(_ record: RequestLogRecord) { records.withLock { $0.append(record) } }
    var all: [RequestLogRecord] { records.withLock { $0 } }
}

/// A running GraphQL server on the example schema, for one test.
struct GraphQLServer {
    let server: HTTPServer
    let handler: GraphQLHTTPHandler
    var port: Int { server.port }

    /// POST a JSON body (raw bytes) with the given headers.
    func post(_ body: String, contentType: String? = "application/json", accept: String? = "application/json",
              headers extra: [(String, String)] = []) async throws -> RawResponse {
        var headers: [(String, String)] = extra
        if let contentType { headers.append(("Content-Type", contentType)) }
        if let accept { headers.append(("Accept", accept)) }
        return try await request(port: port, "POST", "/graphql", headers: headers, body: Array(body.utf8))
    }

    /// POST a GraphQL request object.
    func post(json: JSONValue, accept: String? = "application/json", headers: [(String, String)] = []) async throws -> RawResponse {
        try await post(JSONWriter.string(json), accept: accept, headers: headers)
    }

    /// GET /graphql with query items (encoded here).
    func get(_ items: [(String, String)], accept: String? = "application/json", path: String = "/graphql") async throws -> RawResponse {
        let query = items.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
        var headers: [(String, String)] = []
        if let accept { headers.append(("Accept", accept)) }
        return try await request(port: port, "GET", query.isEmpty ? path : "\(path)?\(query)", headers: headers)
    }
}

func percentEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            out.append(Character(Unicode.Scalar(byte)))
        case UInt8(ascii: " "):
            out.append("+")
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            out += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return out
}

/// Starts a server for the body of a test and always shuts it down.
@discardableResult
func withGraphQLServer<T>(
    _ configuration: GraphQLHTTPConfiguration = GraphQLHTTPConfiguration(schemaSDL: ExampleSchema.sdl),
    logger: (any RequestLogger)? = nil, readiness: [ReadinessCheck] = [], limits: HTTPServerConfiguration.Limits = .init(),
    context: GraphQLContextProvider = .none,
    _ body: (GraphQLServer) async throws -> T
) async throws -> T {
    let handler = GraphQLHTTPHandler(
        schema: try ExampleSchema.make(), configuration: configuration, readiness: readiness, context: context)
    let server = try HTTPServer(configuration: HTTPServerConfiguration(limits: limits, logger: logger), handler: handler)
    let running = GraphQLServer(server: server, handler: handler)
    do {
        let result = try await body(running)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

extension RawResponse {
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    var contentType: String { headers["content-type"] ?? "" }
    var firstErrorCode: JSONValue? { json["errors"]?.arrayValue?.first?["extensions"]?["code"] }
}
