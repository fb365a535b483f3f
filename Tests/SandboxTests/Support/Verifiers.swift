import Crypto
import Foundation
import JSON
import Testing

/// Signature checks written from the vectors' `algorithm` text, used to verify
/// what the sandbox sends. Each is itself checked against vectors.json.
enum Verify {
    /// Razorpay: `X-Razorpay-Signature == hex(HMAC-SHA256(secret, raw body))`, lowercase, exact.
    static func razorpayWebhook(body: [UInt8], signature: String, secret: String) -> Bool {
        let expected = Encoding.hex(Crypto.hmac(.sha256, key: Array(secret.utf8), message: body))
        return Crypto.constantTimeEquals(Array(expected.utf8), Array(signature.utf8))
    }

    /// Razorpay Checkout: `hex(HMAC-SHA256(key_secret, order_id|payment_id))`.
    static func razorpayPayment(orderID: String, paymentID: String, signature: String, secret: String) -> Bool {
        let expected = Encoding.hex(Crypto.hmac(.sha256, key: secret, message: orderID + "|" + paymentID))
        return Crypto.constantTimeEquals(Array(expected.utf8), Array(signature.utf8))
    }

    /// Cashfree: `x-webhook-signature == base64(HMAC-SHA256(client_secret, timestamp + raw body))`.
    static func cashfreeWebhook(body: [UInt8], timestamp: String, signature: String, secret: String) -> Bool {
        let expected = Encoding.base64(Crypto.hmac(.sha256, key: Array(secret.utf8), message: Array(timestamp.utf8) + body))
        return Crypto.constantTimeEquals(Array(expected.utf8), Array(signature.utf8))
    }

    /// Instamojo: `mac == hex(HMAC-SHA1(salt, "|".join(values sorted by field name, mac excluded)))`.
    /// HMAC-SHA1 here comes from Python's reference output: the vectors hold the expected MACs.
    static func instamojoMessage(fields: [(String, String)]) -> String {
        fields.filter { $0.0 != "mac" }.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "|")
    }
}

/// Form decoding for received Instamojo webhooks (independent of the sandbox's own).
func decodeForm(_ text: String) -> [(String, String)] {
    text.split(separator: "&").map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        func decode(_ s: Substring) -> String {
            (String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? String(s)
        }
        return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
    }
}

@Suite("Verifiers against vectors.json")
struct VerifierVectorTests {
    @Test func razorpayWebhookVerifierMatchesVectors() throws {
        let vectors = try Vectors.all().filter { $0["kind"]?.stringValue == "webhook_signature" && $0["provider"]?.stringValue == "razorpay" }
        #expect(vectors.count >= 4)
        for vector in vectors {
            let inputs = try need(vector["inputs"])
            let body = try need(Encoding.bytes(base64: try need(inputs["raw_body_base64"]?.stringValue)))
            let valid = Verify.razorpayWebhook(body: body, signature: try need(vector["header"]?["X-Razorpay-Signature"]?.stringValue),
                                               secret: try need(inputs["webhook_secret"]?.stringValue))
            #expect(valid == vector["expected_valid"]?.boolValue, "\(vector["id"]?.stringValue ?? "")")
        }
    }

    @Test func razorpayPaymentVerifierMatchesVectors() throws {
        let vectors = try Vectors.all().filter { $0["kind"]?.stringValue == "payment_signature" }
        #expect(vectors.count >= 5)
        for vector in vectors {
            let inputs = try need(vector["inputs"])
            let valid = Verify.razorpayPayment(orderID: try need(inputs["order_id"]?.stringValue),
                                               paymentID: try need(inputs["razorpay_payment_id"]?.stringValue),
                                               signature: try need(vector["razorpay_signature"]?.stringValue),
                                               secret: try need(inputs["key_secret"]?.stringValue))
            #expect(valid == vector["expected_valid"]?.boolValue, "\(vector["id"]?.stringValue ?? "")")
        }
    }

    @Test func cashfreeVerifierMatchesVectors() throws {
        let vectors = try Vectors.all().filter { $0["provider"]?.stringValue == "cashfree" }
        #expect(vectors.count >= 6)
        for vector in vectors {
            let inputs = try need(vector["inputs"])
            let body = try need(Encoding.bytes(base64: try need(inputs["raw_body_base64"]?.stringValue)))
            let valid = Verify.cashfreeWebhook(body: body, timestamp: try need(inputs["x-webhook-timestamp"]?.stringValue),
                                               signature: try need(vector["header"]?["x-webhook-signature"]?.stringValue),
                                               secret: try need(inputs["client_secret"]?.stringValue))
            #expect(valid == vector["expected_valid"]?.boolValue, "\(vector["id"]?.stringValue ?? "")")
        }
    }
}
