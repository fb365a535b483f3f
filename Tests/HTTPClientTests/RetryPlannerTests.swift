@testable import HTTPClient
import Testing

@Suite("Retry decisions, without I/O")
struct RetryPlannerTests {
    let policy = RetryPolicy.idempotent(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    @Test func neverPolicyNeverRetries() {
        #expect(RetryPlanner.delay(policy: .never, attempt: 1, status: 503, retryAfter: nil, remaining: nil, random: 0.5) == nil)
        #expect(RetryPlanner.delay(policy: .never, attempt: 1, error: .connectFailed, remaining: nil, random: 0.5) == nil)
    }

    @Test func backoffDoublesWithEqualJitterAndIsCapped() {
        // random 0 → half the ceiling, random 1 → the ceiling.
        let low = (1...5).map { RetryPlanner.delay(policy: policy, attempt: $0, retryAfter: nil, remaining: nil, random: 0) }
        let high = (1...5).map { RetryPlanner.delay(policy: policy, attempt: $0, retryAfter: nil, remaining: nil, random: 1) }
        #expect(low == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), nil])
        #expect(high == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), nil])
        let capped = RetryPolicy.idempotent(maxAttempts: 100, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(RetryPlanner.delay(policy: capped, attempt: 60, retryAfter: nil, remaining: nil, random: 1) == .seconds(1))
    }

    @Test func onlyRetryableStatusesAndErrorsAreRetried() {
        for status in [429, 500, 502, 503, 504, 599] {
            #expect(RetryPlanner.delay(policy: policy, attempt: 1, status: status, retryAfter: nil, remaining: nil, random: 0) != nil, "\(status)")
        }
        for status in [200, 201, 301, 400, 401, 404, 409, 422] {
            #expect(RetryPlanner.delay(policy: policy, attempt: 1, status: status, retryAfter: nil, remaining: nil, random: 0) == nil, "\(status)")
        }
        for code in [HTTPClientError.Code.timeout, .connectTimeout, .connectFailed, .dnsFailed, .transport] {
            #expect(RetryPlanner.delay(policy: policy, attempt: 1, error: code, remaining: nil, random: 0) != nil, "\(code)")
        }
        for code in [HTTPClientError.Code.tls, .responseTooLarge, .cancelled, .invalidRequest, .shutdown] {
            #expect(RetryPlanner.delay(policy: policy, attempt: 1, error: code, remaining: nil, random: 0) == nil, "\(code)")
        }
    }

    @Test func retryAfterWinsWhenLongerAndIsRefusedPastMaxDelay() {
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: .milliseconds(700), remaining: nil, random: 0) == .milliseconds(700))
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: .zero, remaining: nil, random: 0) == .milliseconds(50))
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: .seconds(5), remaining: nil, random: 0) == nil)
    }

    @Test func noRetryWhoseWaitEndsPastTheDeadline() {
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: nil, remaining: .milliseconds(59), random: 0) == nil)
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: nil, remaining: .milliseconds(61), random: 0) == .milliseconds(50))
        #expect(RetryPlanner.delay(policy: policy, attempt: 1, retryAfter: .milliseconds(500), remaining: .milliseconds(400), random: 0) == nil)
    }

    @Test func retryAfterParsesSecondsAndIMFFixdate() {
        let now: Int64 = 784_111_777 // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPlanner.parseRetryAfter("120", now: now) == .seconds(120))
        #expect(RetryPlanner.parseRetryAfter(" 0 ", now: now) == .zero)
        #expect(RetryPlanner.parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .zero)
        #expect(RetryPlanner.parseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(RetryPlanner.parseRetryAfter("Sat, 05 Nov 1994 08:49:37 GMT", now: now) == .zero) // in the past
        #expect(RetryPlanner.parseRetryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: 0) == .zero)
        #expect(RetryPlanner.parseRetryAfter("Tue, 29 Feb 2028 00:00:10 GMT", now: 1_835_395_200) == .seconds(10))
        #expect(RetryPlanner.parseRetryAfter("99999999999999999999", now: now) != nil)
        for bad in ["", "-1", "1.5", "soon", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT"] {
            #expect(RetryPlanner.parseRetryAfter(bad, now: now) == nil, "\(bad)")
        }
    }

    @Test func retryAfterIsReadOnlyFrom429And503() {
        let header = [(name: "retry-after", value: "3")]
        #expect(RetryPlanner.retryAfter(HTTPClientResponse(status: 429, headers: header)) == .seconds(3))
        #expect(RetryPlanner.retryAfter(HTTPClientResponse(status: 503, headers: header)) == .seconds(3))
        #expect(RetryPlanner.retryAfter(HTTPClientResponse(status: 500, headers: header)) == nil)
    }

    @Test func policyClampsItsArguments() {
        #expect(RetryPolicy.idempotent(maxAttempts: 0).maxAttempts == 1)
        #expect(RetryPolicy.never.maxAttempts == 1)
    }

    @Test func headerLookupIsCaseInsensitive() {
        let response = HTTPClientResponse(status: 200, headers: [("Set-Cookie", "a"), ("X-Id", "1"), ("set-cookie", "b")])
        #expect(response.header("x-ID") == "1")
        #expect(response.headers(named: "SET-COOKIE") == ["a", "b"])
        #expect(response.header("X-Idx") == nil)
    }

    @Test func urlsAreRedactedInMessages() {
        #expect(Transfer.redact("https://api.example.com/v1/orders?key=s3cr3t") == "https://api.example.com/v1/orders?…")
        #expect(Transfer.redact("https://user:pass@api.example.com/v1") == "https://****@api.example.com/v1")
        #expect(Transfer.redact("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080/x")
    }

    @Test func millisecondsClampToAtLeastOne() {
        #expect(Transfer.milliseconds(.zero) == 1)
        #expect(Transfer.milliseconds(.microseconds(1500)) == 1)
        #expect(Transfer.milliseconds(.seconds(2)) == 2000)
        #expect(Transfer.milliseconds(.seconds(-1)) == 1)
        #expect(Transfer.milliseconds(.seconds(Int64.max / 2)) == Int(Int32.max))
    }
}
