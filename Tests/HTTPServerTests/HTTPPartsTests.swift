import HTTPTestSupport
import HTTPServer
import Testing

@Suite struct HTTPPartsTests {
    @Test func headersAreCaseInsensitiveAndOrdered() {
        var headers: HTTPHeaders = ["Content-Type": "a", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "a")
        #expect(headers["CONTENT-TYPE"] == "a")
        #expect(headers.values("X-a") == ["1", "2"])
        headers["X-A"] = "3"
        #expect(headers.values("x-a") == ["3"])
        #expect(headers.map(\.name) == ["Content-Type", "X-A"])
        headers.remove("content-type")
        #expect(headers["Content-Type"] == nil)
    }

    @Test func requestInitDecodesQuery() {
        let request = HTTPRequest(method: "GET", path: "/", query: "q=%7B+__typename+%7D")
        #expect(request.queryItem("q") == "{ __typename }")
    }

    @Test func logLevels() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "nope") == nil)
        #expect(LogLevel.debug < .error)
    }
}
