@testable import Gateway
import JSON
import Testing

/// What ops may read of a webhook body: contact details, account numbers, VPAs and card data redacted.
@Suite struct WebhookRedactionTests {
    @Test func sensitiveKeysAreFoundWhateverTheirCase() {
        for key in ["email", "Email", "customer_email", "CONTACT", "vpa", "bank_account", "account_number", "AccountNumber", "card",
                    "card_id", "upi_id", "ifsc", "name", "buyer_name", "address", "token", "x_TOKEN", "VPA", "nAmE", "é_email",
                    "eemail", "emailemail", "card\u{0}", "ünï_contact"] {
            #expect(WebhookRedaction.isSensitive(key), "\(key)")
        }
        for key in ["id", "amount", "status", "order_id", "event", "entity", "currency", "created_at", "method", "", "é", "emai", "contac",
                    "vp", "nam", "car_d", "ifs", "tokem_", "\u{0}"] {
            #expect(!WebhookRedaction.isSensitive(key), "\(key)")
        }
    }

    @Test func valuesAreReplacedAndStructureKept() throws {
        let body = try JSONParser.parse(#"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_1","email":"a@b.c","contact":"+919000000000","vpa":"x@okaxis","card":{"last4":"1111","network":"Visa"},"amount":500,"notes":{"customer_name":"Asha"}}}}}"#)
        let redacted = JSONWriter.string(WebhookRedaction.redact(body))
        #expect(redacted.contains(#""id":"pay_1""#))
        #expect(redacted.contains(#""amount":500"#))
        #expect(redacted.contains(#""network":"Visa""#), "a card object is walked into, not replaced whole")
        for secret in ["a@b.c", "+919000000000", "x@okaxis", "Asha"] { #expect(!redacted.contains(secret), "\(secret)") }
    }
}
