import Foundation
import HTTPClient
import JSON
import Postgres
import Sandbox
@testable import Gateway
import Testing

/// Setu bill pay (issue 11, flows F19–F21; decision 8): links in the four scenarios, and
/// `startBillPayment` from `initiate_payment` data with current, deprecated and conflicting names.
@Suite struct SetuBillPayTests {
    static let linkFields = "billPayLink { id link sessionId scenario traceId category billerId billParameters { name value } mobileNumber expiresAt } userErrors { code field message providerTraceId }"

    /// `createBillPayLink` with `input` (GraphQL object text).
    static func createLink(_ h: GatewayHarness, _ input: String) async throws -> GatewayHarness.Answer {
        try await h.graphQL("mutation { createBillPayLink(input: {\(input)}) { \(linkFields) } }")
    }

    static let startFields = """
        billPayment { id setuOrderId status amount { amount decimal } allowedPaymentModes unrecognisedPaymentModes deprecatedFieldsUsed
          postPaymentUrl customerMobileNumber setuCustomerId billPayLink { id } order { id } }
        order { id provider amount { amount } status billPayment { setuOrderId } checkout { __typename } }
        userErrors { code field message }
        """

    /// `startBillPayment` with the `initiate_payment` data and, optionally, the link.
    static func start(_ h: GatewayHarness, _ data: JSONObject, link: String? = nil, extra: String = "",
                      key: String? = nil) async throws -> GatewayHarness.Answer {
        var variables: JSONObject = ["d": .object(data)]
        if let link { variables["link"] = .string(link) }
        return try await h.graphQL("""
            mutation($d: SetuInitiatePaymentInput!, $link: ID) { startBillPayment(input: {initiatePayment: $d, billPayLinkId: $link \(extra)}) {
              \(startFields) } }
            """, variables: variables, key: .some(key ?? h.secretKey))
    }

    /// A link (BILL scenario) and the `initiate_payment` data Setu's sandbox page posts for it.
    static func linkAndInitiation(_ h: GatewayHarness, amount: String = "3522.2",
                                  modes: String? = "UPI,NETBANKING") async throws -> (link: String, data: JSONObject) {
        let created = try await createLink(h, #"mobileNumber: "9876543210", category: "Water", billerId: "BBPSDUMMY001", billParameters: [{name: "Consumer Number", value: "1895159"}]"#)
        let link = try #require(created.data("createBillPayLink")?["billPayLink"])
        let session = try #require(link["sessionId"]?.stringValue)
        var body: JSONObject = ["amount": .string(amount)]
        if let modes { body["allowedPaymentModes"] = .string(modes) }
        let data = try await h.sandboxControl("/setu/links/\(session)/initiate", body: JSONWriter.string(.object(body)))
        return (try #require(link["id"]?.stringValue), try #require(data.objectValue))
    }

    @Test func linksOpenEachOfTheFourScenarios() async throws {
        try await GatewayHarness.run { h in
            let cases: [(input: String, scenario: String)] = [
                (#"mobileNumber: "9876543210""#, "HOME"),
                (#"mobileNumber: "9876543210", category: "Water""#, "CATEGORY"),
                (#"mobileNumber: "+919876543210", category: "Water", billerId: "BBPSDUMMY001""#, "BILL_FETCH_FORM"),
                (#"mobileNumber: "9876543210", category: "Water", billerId: "BBPSDUMMY001", billParameters: [{name: "Consumer Number", value: "1895159"}]"#, "BILL"),
            ]
            var sessions: Set<String> = []
            for (input, scenario) in cases {
                let answer = try await Self.createLink(h, input)
                #expect(answer.userErrorCodes("createBillPayLink") == [])
                let link = try #require(answer.data("createBillPayLink")?["billPayLink"])
                #expect(link["scenario"]?.stringValue == scenario)
                #expect(link["mobileNumber"]?.stringValue == "+919876543210")
                #expect(link["traceId"]?.stringValue?.isEmpty == false)
                let session = try #require(link["sessionId"]?.stringValue)
                sessions.insert(session)
                #expect(link["link"]?.stringValue?.hasSuffix(session) == true)
                // What Setu received: the scenario's fields and nothing more.
                let seen = try await h.client.execute(HTTPClientRequest(method: "GET", url: h.sandbox.baseURL(for: .setu) + "/billpay/" + session))
                let setuSession = try JSONParser.parse(seen.body)
                #expect(setuSession["mobileNumber"]?.stringValue == "9876543210")
                #expect(setuSession["categoryName"]?.stringValue == link["category"]?.stringValue)
                #expect(setuSession["billerId"]?.stringValue == link["billerId"]?.stringValue)
                if scenario == "BILL" {
                    #expect(setuSession["billParams"]?.arrayValue?.first?["name"]?.stringValue == "Consumer Number")
                    #expect(link["billParameters"]?.arrayValue?.first?["value"]?.stringValue == "1895159")
                } else {
                    #expect(setuSession["billParams"]?.isNull ?? true)
                }
            }
            #expect(sessions.count == 4)
            #expect(try await h.count("bill_pay_links") == 4)

            // Bad input: clear userErrors, nothing written.
            let noCategory = try await Self.createLink(h, #"mobileNumber: "9876543210", billerId: "BBPSDUMMY001""#)
            #expect(noCategory.userErrorCodes("createBillPayLink") == ["INVALID_PARAMETER_COMBINATION"])
            let noBiller = try await Self.createLink(h, #"mobileNumber: "9876543210", category: "Water", billParameters: [{name: "Consumer Number", value: "1"}]"#)
            #expect(noBiller.userErrorCodes("createBillPayLink") == ["INVALID_PARAMETER_COMBINATION"])
            let unknownBiller = try await Self.createLink(h, #"mobileNumber: "9876543210", category: "Water", billerId: "NOSUCHBILLER1""#)
            #expect(unknownBiller.userErrorCodes("createBillPayLink") == ["PROVIDER_REJECTED"])
            #expect(unknownBiller.data("createBillPayLink")?["userErrors"]?.arrayValue?.first?["providerTraceId"]?.stringValue?.isEmpty == false)
            let wrongParameter = try await Self.createLink(h, #"mobileNumber: "9876543210", category: "Water", billerId: "BBPSDUMMY001", billParameters: [{name: "Account", value: "1"}]"#)
            #expect(wrongParameter.userErrorCodes("createBillPayLink") == ["PROVIDER_REJECTED"])
            let shortLink = try await Self.createLink(h, #"mobileNumber: "9876543210", shortLink: "abc""#)
            #expect(shortLink.userErrorCodes("createBillPayLink") == ["VALIDATION_FAILED"])
            let badPhone = try await Self.createLink(h, #"mobileNumber: "98765-43210""#)
            #expect(badPhone.errorCodes.isEmpty == false)
            #expect(try await h.count("bill_pay_links") == 4)
        }
    }

    @Test func startBillPaymentRecordsTheBillAndCreatesTheOrder() async throws {
        try await GatewayHarness.run { h in
            let (link, data) = try await Self.linkAndInitiation(h)
            var sent = data
            // The deprecated name alongside the current one, equal: accepted and reported.
            sent["callback"] = data["postPaymentUrl"]
            sent["customerId"] = "cust@1234"
            // A customer with a phone: Cashfree collects (it can restrict methods).
            let customer = try await h.graphQL(#"mutation { createCustomer(input: {name: "Asha Rao", phone: "9876543210"}) { customer { id } } }"#)
            let customerID = try #require(customer.data("createCustomer")?["customer"]?["id"]?.stringValue)
            let answer = try await Self.start(h, sent, link: link, extra: "customerId: \"\(customerID)\", provider: CASHFREE")
            #expect(answer.userErrorCodes("startBillPayment") == [])
            let bill = try #require(answer.data("startBillPayment")?["billPayment"])
            #expect(bill["setuOrderId"]?.stringValue == data["orderId"]?.stringValue)
            #expect(bill["setuOrderId"]?.stringValue?.hasPrefix("COUWL") == true)
            #expect(bill["amount"]?["amount"]?.stringValue == "352220")
            #expect(bill["amount"]?["decimal"]?.stringValue == "3522.20")
            #expect(bill["allowedPaymentModes"] == .array(["UPI", "INTERNET_BANKING"]))
            #expect(bill["unrecognisedPaymentModes"] == .array([]))
            #expect(bill["deprecatedFieldsUsed"] == .array(["callback"]))
            #expect(bill["status"]?.stringValue == "AWAITING_PAYMENT")
            #expect(bill["postPaymentUrl"]?.stringValue == data["postPaymentUrl"]?.stringValue)
            #expect(bill["customerMobileNumber"]?.stringValue == "+919876543210")
            #expect(bill["setuCustomerId"]?.stringValue == "cust@1234")
            #expect(bill["billPayLink"]?["id"]?.stringValue == link)
            let order = try #require(answer.data("startBillPayment")?["order"])
            #expect(order["provider"]?.stringValue == "CASHFREE")
            #expect(order["amount"]?["amount"]?.stringValue == "352220")
            #expect(order["checkout"]?["__typename"]?.stringValue == "CashfreeCheckout")
            #expect(order["billPayment"]?["setuOrderId"] == bill["setuOrderId"])
            #expect(bill["order"]?["id"] == order["id"])
            // Both modes map to different methods: the Cashfree order is not restricted to one.
            let stored = try await h.pool.query("SELECT method FROM orders").single(String?.self)
            #expect(stored == .some(nil))

            // The web view posts twice / the app retries: the same bill payment and order, nothing new.
            let again = try await Self.start(h, sent, link: link, extra: "customerId: \"\(customerID)\", provider: CASHFREE")
            #expect(again.data("startBillPayment")?["billPayment"]?["id"] == bill["id"])
            #expect(again.data("startBillPayment")?["order"]?["id"] == order["id"])
            #expect(try await h.count("bill_payments") == 1)
            #expect(try await h.count("orders") == 1)
            // … but not with another amount.
            var otherAmount = sent
            otherAmount["amount"] = "3522.21"
            #expect(try await Self.start(h, otherAmount).userErrorCodes("startBillPayment") == ["AMOUNT_MISMATCH"])

            // By id and by Setu order id.
            let read = try await h.graphQL("query($s: String) { billPayment(setuOrderId: $s) { id status } }", variables: ["s": sent["orderId"] ?? .null])
            #expect(read.data("billPayment")?["id"] == bill["id"])
            let listed = try await h.graphQL("{ billPayments(filter: {status: [AWAITING_PAYMENT]}) { nodes { id } } }", key: .some(h.opsKey))
            #expect(listed.data("billPayments")?["nodes"]?.arrayValue?.first?["id"] == bill["id"])
        }
    }

    @Test func deprecatedNamesAloneAreAcceptedAndListed() async throws {
        try await GatewayHarness.run { h in
            let data: JSONObject = ["orderId": "COUWLdeprecated1", "amount": "100", "callback": "https://billpay.setu.co/cb/1",
                                    "mobileNumber": "9876543210", "beneficiaryVPA": "biller@upi", "remarks": "bill", "refId": "CMAREF1",
                                    "allowedPaymentModes": "UPI, cheque"]
            let answer = try await Self.start(h, data, extra: "provider: RAZORPAY, paymentMode: UPI")
            #expect(answer.userErrorCodes("startBillPayment") == [])
            let bill = try #require(answer.data("startBillPayment")?["billPayment"])
            #expect(bill["setuOrderId"]?.stringValue == "COUWLdeprecated1")
            #expect(bill["postPaymentUrl"]?.stringValue == "https://billpay.setu.co/cb/1")
            #expect(bill["amount"]?["amount"]?.stringValue == "10000")
            #expect(Set(bill["deprecatedFieldsUsed"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["callback", "mobileNumber", "beneficiaryVPA", "remarks", "refId"])
            #expect(bill["allowedPaymentModes"] == .array(["UPI"]))
            #expect(bill["unrecognisedPaymentModes"] == .array(["cheque"]))
            #expect(answer.data("startBillPayment")?["order"]?["provider"]?.stringValue == "RAZORPAY")
            // refId is kept for audit, never taken as the order id.
            let stored = try await h.pool.query("SELECT initiate_payment->>'refId' FROM bill_payments").single(String.self)
            #expect(stored == "CMAREF1")
        }
    }

    @Test func badInitiatePaymentDataIsRefusedAndNothingIsWritten() async throws {
        try await GatewayHarness.run { h in
            let good: JSONObject = ["orderId": "COUWLbad1", "amount": "3522.20", "postPaymentUrl": "https://billpay.setu.co/cb/1",
                                    "customerMobileNumber": "9876543210"]
            // Decision 8: both names present and different.
            var callback = good
            callback["callback"] = "https://billpay.setu.co/cb/other"
            let conflict = try await Self.start(h, callback)
            #expect(conflict.userErrorCodes("startBillPayment") == ["VALIDATION_FAILED"])
            let message = conflict.data("startBillPayment")?["userErrors"]?.arrayValue?.first?["message"]?.stringValue ?? ""
            #expect(message.contains("postPaymentUrl") && message.contains("callback"))
            #expect(conflict.data("startBillPayment")?["userErrors"]?.arrayValue?.first?["field"] == .array(["input", "initiatePayment", "callback"]))
            var mobile = good
            mobile["mobileNumber"] = "9999999999"
            #expect(try await Self.start(h, mobile).userErrorCodes("startBillPayment") == ["VALIDATION_FAILED"])
            // Amounts: "-1" and "0" are not amounts, "12.345" is too precise, "1e3" is not decimal text at all.
            for (amount, code) in [("-1", "INVALID_AMOUNT"), ("0", "INVALID_AMOUNT"), ("12.345", "AMOUNT_TOO_PRECISE")] {
                var bad = good
                bad["amount"] = .string(amount)
                #expect(try await Self.start(h, bad).userErrorCodes("startBillPayment") == [code], "amount \(amount)")
            }
            var exponent = good
            exponent["amount"] = "1e3"
            let refused = try await Self.start(h, exponent)
            #expect(refused.errorCodes == ["BAD_USER_INPUT"])
            // Missing mandatory values and a mode that is not allowed.
            var noURL = good
            noURL["postPaymentUrl"] = nil
            #expect(try await Self.start(h, noURL).userErrorCodes("startBillPayment") == ["REQUIRED"])
            var modes = good
            modes["allowedPaymentModes"] = "UPI"
            #expect(try await Self.start(h, modes, extra: "paymentMode: WALLET").userErrorCodes("startBillPayment") == ["PAYMENT_MODE_NOT_ALLOWED"])
            #expect(try await Self.start(h, good, extra: "provider: SETU").userErrorCodes("startBillPayment") == ["CAPABILITY_NOT_SUPPORTED"])
            // An expired link.
            let (link, data) = try await Self.linkAndInitiation(h)
            _ = try await h.pool.query("UPDATE bill_pay_links SET expires_at = now() - interval '1 minute'")
            #expect(try await Self.start(h, data, link: link).userErrorCodes("startBillPayment") == ["INVALID_STATE"])
            #expect(try await h.count("bill_payments") == 0)
            #expect(try await h.count("orders") == 0)
        }
    }

    @Test func clientSessionsPayOnlyUpToTheirCap() async throws {
        try await GatewayHarness.run { h in
            let customer = try await h.graphQL(#"mutation { createCustomer(input: {name: "Asha Rao", phone: "9876543210"}) { customer { id } } }"#)
            let customerID = try #require(customer.data("createCustomer")?["customer"]?["id"]?.stringValue)
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c, maxOrderAmount: "100000"}) { session { token } } }
                """, variables: ["c": .string(customerID)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let data: JSONObject = ["orderId": "COUWLcap1", "amount": "1000.01", "postPaymentUrl": "https://billpay.setu.co/cb/1",
                                    "customerMobileNumber": "9876543210"]
            #expect(try await Self.start(h, data, key: token).userErrorCodes("startBillPayment") == ["AMOUNT_OUT_OF_RANGE"])
            var within = data
            within["amount"] = "1000"
            let answer = try await Self.start(h, within, key: token)
            #expect(answer.userErrorCodes("startBillPayment") == [])
            let read = try await h.graphQL("query($s: String) { billPayment(setuOrderId: $s) { customer { id } } }", variables: ["s": "COUWLcap1"], key: .some(token))
            #expect(read.data("billPayment")?["customer"]?["id"]?.stringValue == customerID)
            // Only UPI allowed, Cashfree collecting: the order is restricted to UPI (Cashfree payment_methods).
            var upiOnly = within
            upiOnly["orderId"] = "COUWLcap2"
            upiOnly["allowedPaymentModes"] = "UPI"
            let restricted = try await Self.start(h, upiOnly, extra: "provider: CASHFREE", key: token)
            #expect(restricted.data("startBillPayment")?["order"]?["provider"]?.stringValue == "CASHFREE")
            let method = try await h.pool.query("""
                SELECT o.method FROM orders o JOIN bill_payments b ON b.order_id = o.id WHERE b.setu_order_id = 'COUWLcap2'
                """).single(String?.self)
            #expect(method == .some("upi"))
        }
    }
}
