import HTTPTestSupport
import HTTPServer
import JSON
import Synchronization

/// Collects log records for assertions.
final class CapturingLogger: RequestLogger {
    private let records = Mutex<[RequestLogRecord]>([])
    func log(_ record: RequestLogRecord) { records.withLock { $0.append(record) } }
    var all: [RequestLogRecord] { records.withLock { $0 } }
}

/// Echoes the request as JSON so tests can see what the server parsed.
func echo(_ request: HTTPRequest) -> HTTPResponse {
    var headers = JSONObject()
    for field in request.headers { headers.append(field.name.lowercased(), .string(field.value)) }
    let items: [JSONValue] = request.queryItems.map { [.string($0.name), .string($0.value)] }
    var response = HTTPResponse.json([
        "method": .string(request.method), "path": .string(request.path), "query": .string(request.query),
        "items": .array(items), "headers": .object(headers), "bodyBytes": .int(Int64(request.body.count)),
        "body": .string(String(decoding: request.body, as: UTF8.self)), "remote": .string(request.remoteAddress),
        "id": .string(request.id),
    ])
    response.logFields = [("operation", "Echo")]
    return response
}

/// Starts a server for the body of a test and always shuts it down.
@discardableResult
func withServer<T>(
    _ configuration: HTTPServerConfiguration = .init(), handler: any HTTPHandler,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    let server = try HTTPServer(configuration: configuration, handler: handler)
    do {
        let result = try await body(server)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}
