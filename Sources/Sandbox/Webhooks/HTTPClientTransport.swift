import HTTPClient

/// Webhook delivery over the project's libcurl client.
struct HTTPClientTransport: WebhookTransport {
    let client: HTTPClient

    init() throws {
        client = try HTTPClient(configuration: HTTPClientConfiguration())
    }

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async throws
        -> (status: Int, body: [UInt8]) {
        let response = try await client.execute(HTTPClientRequest(method: "POST", url: url, headers: headers, body: body,
                                                                  timeout: timeout))
        return (response.status, response.body)
    }

    func shutdown() async { await client.shutdown() }
}
