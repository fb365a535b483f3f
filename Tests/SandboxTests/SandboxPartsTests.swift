import Crypto
import Foundation
import JSON
@testable import Sandbox
import Testing

/// The sandbox's pure parts, without I/O.
@Suite("Sandbox parts")
struct SandboxPartsTests {
    @Test func wireKeepsNumberTextAndOrder() throws {
        let text = #"{"b":170.00,"a":[1,-2.50e3,true,null],"s":"x\"\u00e9\ud83d\ude00\n"}"#
        let value = try Wire.parse(text)
        #expect(value["b"] == .number("170.00"))
        #expect(value.objectValue?.keys == ["b", "a", "s"])
        #expect(value["s"]?.stringValue == "x\"é😀\n")
        #expect(value.jsonText == #"{"b":170.00,"a":[1,-2.50e3,true,null],"s":"x\"é😀\n"}"#)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":01}", "\"\\ud800\"", "tru", "1.", "{\"a\" 1}", "[1] 2", "\"\u{01}\""])
    func wireRejectsMalformedJSON(_ text: String) {
        #expect(throws: WireParseError.self) { try Wire.parse(text) }
    }

    @Test func wireRejectsDeepNesting() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: WireParseError.self) { try Wire.parse(deep) }
    }

    @Test func moneyIsExact() {
        #expect(Money.paise(fromDecimal: "0") == 0)
        #expect(Money.paise(fromDecimal: "0.01") == 1)
        #expect(Money.paise(fromDecimal: "10.1") == 1010)
        #expect(Money.paise(fromDecimal: "10.10") == 1010)
        #expect(Money.paise(fromDecimal: "10.100") == 1010)
        #expect(Money.paise(fromDecimal: "10.101") == nil)
        #expect(Money.paise(fromDecimal: "-1") == nil)
        #expect(Money.paise(fromDecimal: "1e3") == nil)
        #expect(Money.paise(fromDecimal: "abc") == nil)
        #expect(Money.paise(fromDecimal: ".5") == nil)
        #expect(Money.paise(fromDecimal: "5.") == nil)
        #expect(Money.paise(fromDecimal: "9999999999999999999") == nil)
        #expect(Money.twoDecimals(17000) == "170.00")
        #expect(Money.twoDecimals(5) == "0.05")
        #expect(Money.shortest(1010) == "10.1")
        #expect(Money.shortest(17000) == "170")
        #expect(Money.shortest(1) == "0.01")
    }

    @Test func sha1MatchesKnownDigestsAndInstamojoVectors() throws {
        // FIPS 180 examples.
        #expect(Encoding.hex(Crypto.hash(.sha1, Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Encoding.hex(Crypto.hash(.sha1, [UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Encoding.hex(Crypto.hash(.sha1, long)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        // RFC 2202 test case 2.
        #expect(Encoding.hex(Crypto.hmac(.sha1, key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        let vectors = try Vectors.all().filter { $0["provider"]?.stringValue == "instamojo" }
        #expect(vectors.count == 5)
        for vector in vectors {
            let inputs = try need(vector["inputs"])
            let fields = try need(inputs["form_fields"]?.objectValue).members.map { ($0.0, $0.1.stringValue ?? "") }
            let mac = InstamojoMAC.compute(fields: fields, salt: try need(inputs["private_salt"]?.stringValue))
            #expect((mac == vector["mac"]?.stringValue) == vector["expected_valid"]?.boolValue, "\(vector["id"]?.stringValue ?? "")")
        }
    }

    @Test func clockFormatsAndParses() {
        #expect(Clock.istISO(1_746_427_759) == "2025-05-05T12:19:19+05:30")
        #expect(Clock.utcSpaced(1_710_851_445) == "2024-03-19 12:30:45")
        #expect(Clock.dayFirst(1_710_851_445) == "19-03-2024 12:30:45")
        #expect(Clock.utcISO(milliseconds: 1_746_448_594_665) == "2025-05-05T12:36:34.665000Z")
        #expect(Clock.parseISO("2025-06-04T18:02:46+05:30") == 1_749_040_366)
        #expect(Clock.parseISO("2025-06-04T12:32:46Z") == 1_749_040_366)
        #expect(Clock.parseISO("2025-06-04T12:32:46.123Z") == 1_749_040_366)
        #expect(Clock.parseISO("2025-06-04 12:32:46") == nil)
        #expect(Clock.parseISO("2025-13-04T12:32:46Z") == nil)
        #expect(Clock.isSpacedDateTime("2024-03-19 12:30:45"))
        #expect(!Clock.isSpacedDateTime("2024-03-19T12:30:45"))
    }

    @Test func routePatternsMatchSegments() throws {
        let exact = try need(RoutePattern("POST /razorpay/v1/orders"))
        #expect(exact.matches(method: "POST", path: "/razorpay/v1/orders"))
        #expect(exact.matches(method: "POST", path: "/razorpay/v1/orders/"))
        #expect(!exact.matches(method: "GET", path: "/razorpay/v1/orders"))
        #expect(!exact.matches(method: "POST", path: "/razorpay/v1/orders/order_1"))
        let star = try need(RoutePattern("GET /cashfree/pg/orders/*"))
        #expect(star.matches(method: "GET", path: "/cashfree/pg/orders/abc"))
        #expect(!star.matches(method: "GET", path: "/cashfree/pg/orders/abc/payments"))
        let rest = try need(RoutePattern("/instamojo/**"))
        #expect(rest.matches(method: "DELETE", path: "/instamojo/v2/payments/x/"))
        #expect(RoutePattern("orders") == nil)
        #expect(RoutePattern("/a/**/b") == nil)
    }

    @Test func webhookTargetsResolvePerProvider() {
        #expect(WebhookTarget("http://127.0.0.1:9/webhooks").url(for: .cashfree) == "http://127.0.0.1:9/webhooks/cashfree")
        #expect(WebhookTarget("http://h/{provider}/in").url(for: .setu) == "http://h/setu/in")
        let only = WebhookTarget("razorpay=http://h/rzp")
        #expect(only.url(for: .razorpay) == "http://h/rzp")
        #expect(only.url(for: .setu) == nil)
        #expect(isLoopbackURL("http://127.0.0.1:8080/x"))
        #expect(isLoopbackURL("http://localhost/x"))
        #expect(isLoopbackURL("http://[::1]:80/"))
        #expect(!isLoopbackURL("https://merchant.example.com/webhooks"))
        #expect(!isLoopbackURL("http://127.0.0.1.evil.com/"))
        #expect(!isLoopbackURL("http://user@127.0.0.1/"))
    }

    @Test func faultRulesParseAndRefuseBadInput() throws {
        let rule = try FaultRule(json: #"{"route":"POST /razorpay/v1/orders","kind":"status","status":503,"times":2}"#)
        #expect(rule.kind == .serverError(status: 503))
        #expect(rule.times == 2)
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"x","kind":"drop"}"#) }
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"status","status":404}"#) }
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"timeout","ms":999999}"#) }
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"explode"}"#) }
        #expect(throws: FaultRuleError.self) { try FaultRule(json: #"{"route":"/a","kind":"drop","times":0}"#) }
    }
}
