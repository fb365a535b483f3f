import Foundation
@testable import Gateway
import JSON
import Postgres
import Testing

/// Linked UPI accounts (decision 4): client-reported, masked, idempotent re-reports keyed by
/// (provider, masked account, bank), INACTIVE when missing from a complete list, REMOVED on request;
/// a client session touches only its own customer's.
@Suite struct LinkedUpiAccountTests {
    static let fields = "id mobileNumber provider type maskedAccountNumber ifsc bankName bankLogoUrl pinLength accountType status source linkedAt lastSeenAt customer { id } tpvBankAccount { id }"

    /// An SDK `UpiAccount` as the app would report it.
    static func account(_ number: String?, type: String = "BANK_ACCOUNT", ifsc: String? = "HDFC0000053", bank: String? = "HDFC Bank",
                        pin: Int = 6) -> JSONValue {
        var object: JSONObject = ["type": .string(type), "pinLength": .int(Int64(pin)), "accountType": .string("SAVINGS"),
                                  "bankLogoUrl": .string("https://cdn.example.com/hdfc.png")]
        if let number { object["accountNumber"] = .string(number) }
        if let ifsc { object["ifsc"] = .string(ifsc) }
        if let bank { object["bankName"] = .string(bank) }
        return .object(object)
    }

    static func sync(_ h: GatewayHarness, mobile: String = "9876543210", customer: String? = nil, source: String = "GET_LINKED_ACCOUNTS",
                     extra: String = "", accounts: [JSONValue], complete: Bool = false, key: String?? = .none) async throws -> GatewayHarness.Answer {
        try await h.graphQL("""
            mutation($m: PhoneNumber!, $c: ID, $a: [LinkedUpiAccountInput!]!) { syncLinkedUpiAccounts(input: {mobileNumber: $m, customerId: $c,
              source: \(source), accounts: $a, isCompleteList: \(complete) \(extra)}) { linkedUpiAccounts { \(fields) } userErrors { code message field } } }
            """, variables: ["m": .string(mobile), "c": customer.map(JSONValue.string) ?? .null, "a": .array(accounts)], key: key)
    }

    static func synced(_ answer: GatewayHarness.Answer) -> [JSONValue] {
        answer.data("syncLinkedUpiAccounts")?["linkedUpiAccounts"]?.arrayValue ?? []
    }

    static func list(_ h: GatewayHarness, customer: String, includeInactive: Bool = false, key: String?? = .none) async throws -> [JSONValue] {
        let answer = try await h.graphQL("""
            query($c: ID!) { customer(id: $c) { linkedUpiAccounts(includeInactive: \(includeInactive)) { id status maskedAccountNumber } } }
            """, variables: ["c": .string(customer)], key: key)
        return answer.data("customer")?["linkedUpiAccounts"]?.arrayValue ?? []
    }

    @Test func accountsAreSyncedReSyncedListedAndRemoved() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let first = try await Self.sync(h, customer: customer, source: "LINK_NEW_ACCOUNT", accounts: [Self.account("XXXXXXXX1234")])
            #expect(first.userErrorCodes("syncLinkedUpiAccounts") == [], "\(first.json)")
            let linked = try #require(Self.synced(first).first)
            #expect(linked["maskedAccountNumber"]?.stringValue == "XXXXXX1234")
            #expect(linked["status"]?.stringValue == "ACTIVE")
            #expect(linked["source"]?.stringValue == "LINK_NEW_ACCOUNT")
            #expect(linked["mobileNumber"]?.stringValue == "9876543210")
            #expect(linked["provider"]?.stringValue == "RAZORPAY")
            #expect(linked["ifsc"]?.stringValue == "HDFC0000053")
            #expect(linked["pinLength"]?.intValue == 6)
            #expect(linked["customer"]?["id"]?.stringValue == customer)
            let id = try #require(linked["id"]?.stringValue)

            // The same account reported again (another mask of the same last four, lower-case IFSC) is the same row.
            let again = try await Self.sync(h, customer: customer, accounts: [Self.account("xxxx1234", ifsc: "hdfc0000053")])
            #expect(Self.synced(again).first?["id"]?.stringValue == id)
            #expect(Self.synced(again).first?["source"]?.stringValue == "GET_LINKED_ACCOUNTS")
            #expect(Self.synced(again).first?["linkedAt"] == linked["linkedAt"])
            #expect(try await h.count("linked_accounts") == 1)

            // A complete list without it: INACTIVE (listed only with includeInactive); the new one ACTIVE.
            let list = try await Self.sync(h, customer: customer, accounts: [Self.account("XXXX9876", ifsc: "ICIC0001207", bank: "ICICI Bank")],
                                           complete: true)
            #expect(list.userErrorCodes("syncLinkedUpiAccounts") == [])
            let active = try await Self.list(h, customer: customer)
            #expect(active.map { $0["maskedAccountNumber"]?.stringValue } == ["XXXXXX9876"])
            let all = try await Self.list(h, customer: customer, includeInactive: true)
            #expect(all.count == 2)
            #expect(all.first { $0["id"]?.stringValue == id }?["status"]?.stringValue == "INACTIVE")

            // An empty complete list means none linked.
            _ = try await Self.sync(h, customer: customer, source: "MANAGE_ACCOUNTS", accounts: [], complete: true)
            #expect(try await Self.list(h, customer: customer).isEmpty)

            // Reported again: ACTIVE again, same row.
            _ = try await Self.sync(h, customer: customer, accounts: [Self.account("XXXXXXXX1234")])
            #expect(try await Self.list(h, customer: customer).map { $0["id"]?.stringValue } == [id])

            // Removed: REMOVED, out of the default list, removing again changes nothing.
            let remove = "mutation($id: ID!) { removeLinkedUpiAccount(input: {linkedUpiAccountId: $id}) { linkedUpiAccount { id status } userErrors { code } } }"
            let removed = try await h.graphQL(remove, variables: ["id": .string(id)])
            #expect(removed.userErrorCodes("removeLinkedUpiAccount") == [])
            #expect(removed.data("removeLinkedUpiAccount")?["linkedUpiAccount"]?["status"]?.stringValue == "REMOVED")
            #expect(try await h.graphQL(remove, variables: ["id": .string(id)]).data("removeLinkedUpiAccount")?["linkedUpiAccount"]?["status"]?
                .stringValue == "REMOVED")
            #expect(try await Self.list(h, customer: customer).isEmpty)
            #expect(try await Self.list(h, customer: customer, includeInactive: true).count == 2)

            // The root query by customer or by mobile, and node(id:).
            let byMobile = try await h.graphQL("""
                query { linkedUpiAccounts(mobileNumber: "+919876543210", includeInactive: true) { id status } }
                """)
            #expect(byMobile.data("linkedUpiAccounts")?.arrayValue?.count == 2)
            let byCustomer = try await h.graphQL("query($c: ID!) { linkedUpiAccounts(customerId: $c) { id } }", variables: ["c": .string(customer)])
            #expect(byCustomer.data("linkedUpiAccounts")?.arrayValue?.isEmpty == true)
            let node = try await h.graphQL("query($id: ID!) { node(id: $id) { __typename ... on LinkedUpiAccount { status } } }",
                                           variables: ["id": .string(id)])
            #expect(node.data("node")?["__typename"]?.stringValue == "LinkedUpiAccount")
        }
    }

    /// Only `XXXXXX` + last four ever comes back or is stored: not a full account number, not a card number.
    @Test func onlyTheLastFourDigitsAreKept() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let fullAccount = "916010082985661"
            let card = "6521501234567890"
            let answer = try await Self.sync(h, customer: customer, source: "GET_LINKED_ACCOUNTS", extra: #", idempotencyKey: "mask-1""#, accounts: [
                Self.account(fullAccount),
                Self.account(card, type: "CREDIT_CARD", ifsc: nil, bank: "HDFC Bank RuPay"),
                Self.account("6521 50XX XXXX 4321", type: "CREDIT_CARD", ifsc: nil, bank: "Axis RuPay"),
                Self.account(nil, type: "CREDIT_CARD", ifsc: nil, bank: "SBI RuPay"),
            ])
            #expect(answer.userErrorCodes("syncLinkedUpiAccounts") == [], "\(answer.json)")
            let text = JSONWriter.string(answer.json)
            for secret in [fullAccount, card, "652150", "01008298"] { #expect(!text.contains(secret)) }
            #expect(Self.synced(answer).map { $0["maskedAccountNumber"]?.stringValue } == ["XXXXXX5661", "XXXXXX7890", "XXXXXX4321", nil])
            #expect(Self.synced(answer).map { $0["type"]?.stringValue } == ["BANK_ACCOUNT", "CREDIT_CARD", "CREDIT_CARD", "CREDIT_CARD"])
            let stored = try await h.pool.query("SELECT count(*) FROM linked_accounts l WHERE l::text LIKE \("%" + fullAccount + "%") OR l::text LIKE \("%652150%")")
                .single(Int64.self)
            #expect(stored == 0)
            // The idempotency record's request hash is over the masks: the same report with only the masks replays.
            let masked = try await Self.sync(h, customer: customer, source: "GET_LINKED_ACCOUNTS", extra: #", idempotencyKey: "mask-1""#, accounts: [
                Self.account("XXXXXX5661"),
                Self.account("XXXXXX7890", type: "CREDIT_CARD", ifsc: nil, bank: "HDFC Bank RuPay"),
                Self.account("XXXXXX4321", type: "CREDIT_CARD", ifsc: nil, bank: "Axis RuPay"),
                Self.account(nil, type: "CREDIT_CARD", ifsc: nil, bank: "SBI RuPay"),
            ])
            #expect(masked.userErrorCodes("syncLinkedUpiAccounts") == [], "\(masked.json)")
            #expect(Self.synced(masked).map { $0["id"] } == Self.synced(answer).map { $0["id"] })
            let listed = try await h.graphQL("query { linkedUpiAccounts(mobileNumber: \"9876543210\") { maskedAccountNumber } }")
            #expect(!JSONWriter.string(listed.json).contains(card))
            #expect(!JSONWriter.string(listed.json).contains(fullAccount))
        }
    }

    @Test func aClientSessionTouchesOnlyItsOwnCustomer() async throws {
        try await GatewayHarness.run { h in
            let owner = try await OrderLifecycleTests.createCustomer(h)
            let other = try await OrderLifecycleTests.createCustomer(h, phone: "9123456780")
            let token = try await TurboUpiSessionTests.clientSession(h, customer: owner)
            let own = try await Self.sync(h, source: "LINK_NEW_ACCOUNT", accounts: [Self.account("XXXX1234")], key: token)
            #expect(own.userErrorCodes("syncLinkedUpiAccounts") == [], "\(own.json)")
            #expect(Self.synced(own).first?["customer"]?["id"]?.stringValue == owner)

            let theirs = try await Self.sync(h, mobile: "9123456780", customer: other, source: "LINK_NEW_ACCOUNT",
                                             accounts: [Self.account("XXXX5555")])
            let theirID = try #require(Self.synced(theirs).first?["id"]?.stringValue)
            #expect(try await h.count("linked_accounts") == 2)

            // Another customer's id or mobile: FORBIDDEN, nothing written.
            let foreignCustomer = try await Self.sync(h, customer: other, accounts: [Self.account("XXXX7777")], key: token)
            #expect(foreignCustomer.errorCodes == ["FORBIDDEN"])
            let foreignMobile = try await Self.sync(h, mobile: "9123456780", accounts: [Self.account("XXXX7777")], key: token)
            #expect(foreignMobile.errorCodes == ["FORBIDDEN"])
            #expect(try await h.count("linked_accounts") == 2)
            let query = try await h.graphQL("query($c: ID!) { linkedUpiAccounts(customerId: $c) { id } }", variables: ["c": .string(other)], key: token)
            #expect(query.errorCodes == ["FORBIDDEN"])
            let queryMobile = try await h.graphQL(#"query { linkedUpiAccounts(mobileNumber: "9123456780") { id } }"#, key: token)
            #expect(queryMobile.errorCodes == ["FORBIDDEN"])
            // Its own list needs no argument.
            let mine = try await h.graphQL("query { linkedUpiAccounts { id customer { id } } }", key: token)
            #expect(mine.data("linkedUpiAccounts")?.arrayValue?.compactMap { $0["customer"]?["id"]?.stringValue } == [owner])
            // Another customer's account cannot be removed or seen (as if it did not exist).
            let remove = try await h.graphQL("""
                mutation($id: ID!) { removeLinkedUpiAccount(input: {linkedUpiAccountId: $id}) { linkedUpiAccount { id } userErrors { code } } }
                """, variables: ["id": .string(theirID)], key: token)
            #expect(remove.userErrorCodes("removeLinkedUpiAccount") == ["NOT_FOUND"])
            #expect(try await Self.list(h, customer: other).count == 1)
            let node = try await h.graphQL("query($id: ID!) { node(id: $id) { id } }", variables: ["id": .string(theirID)], key: token)
            #expect(node.data("node") == .null)
            // A bare PUBLISHABLE key reads and writes no customer's accounts.
            let bare = try await Self.sync(h, accounts: [Self.account("XXXX7777")], key: h.publishableKey)
            #expect(bare.errorCodes == ["FORBIDDEN"])
            let bareList = try await h.graphQL(#"query { linkedUpiAccounts(mobileNumber: "9876543210") { id } }"#, key: h.publishableKey)
            #expect(bareList.errorCodes == ["FORBIDDEN"])
        }
    }

    @Test func badReportsAreUserErrorsAndWriteNothing() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let good = Self.account("XXXX1234")
            let cases: [(accounts: [JSONValue], source: String, complete: Bool, code: String)] = [
                ([good, Self.account(nil)], "GET_LINKED_ACCOUNTS", false, "REQUIRED"),
                ([good, Self.account("XXXX12")], "GET_LINKED_ACCOUNTS", false, "INVALID_ACCOUNT_NUMBER"),
                ([good, Self.account("ab@okaxis1234")], "GET_LINKED_ACCOUNTS", false, "INVALID_ACCOUNT_NUMBER"),
                ([good, Self.account("XXXX4321", ifsc: "HDFC000005")], "GET_LINKED_ACCOUNTS", false, "INVALID_IFSC"),
                ([good, Self.account("XXXX4321", ifsc: nil, bank: nil)], "GET_LINKED_ACCOUNTS", false, "REQUIRED"),
                ([good, Self.account("XXXX4321", pin: 5)], "GET_LINKED_ACCOUNTS", false, "VALIDATION_FAILED"),
                ([good, Self.account("XXXX4321")], "LINK_NEW_ACCOUNT", false, "VALIDATION_FAILED"),
                ([good], "LINK_NEW_ACCOUNT", true, "INVALID_PARAMETER_COMBINATION"),
            ]
            for test in cases {
                let answer = try await Self.sync(h, customer: customer, source: test.source, accounts: test.accounts, complete: test.complete)
                #expect(answer.userErrorCodes("syncLinkedUpiAccounts") == [test.code], "\(answer.json)")
                #expect(Self.synced(answer).isEmpty)
            }
            // Not an Indian mobile; a mobile that is not the customer's.
            #expect(try await Self.sync(h, mobile: "+14155550100", accounts: [good]).userErrorCodes("syncLinkedUpiAccounts") == ["INVALID_PHONE"])
            #expect(try await Self.sync(h, mobile: "9123456780", customer: customer, accounts: [good]).userErrorCodes("syncLinkedUpiAccounts")
                == ["INVALID_PARAMETER_COMBINATION"])
            #expect(try await h.count("linked_accounts") == 0)
            // A complete list after all this changes nothing it should not: the earlier state was empty.
            #expect(try await Self.list(h, customer: customer, includeInactive: true).isEmpty)
        }
    }

    /// A linked account with the IFSC and last four of a whitelisted TPV account points at it.
    @Test func aLinkedAccountMatchingAWhitelistedOneNamesIt() async throws {
        try await GatewayHarness.run(configuration: TPVBankAccountTests.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let tpv = try await TPVBankAccountTests.added(h, customer: customer)
            let answer = try await Self.sync(h, customer: customer, source: "TPV_LINK", accounts: [
                Self.account("XXXXXXXXXXX5661", ifsc: "UTIB0000194", bank: "Axis Bank"), Self.account("XXXX5661"),
            ])
            #expect(answer.userErrorCodes("syncLinkedUpiAccounts") == [], "\(answer.json)")
            #expect(Self.synced(answer).map { $0["tpvBankAccount"]?["id"]?.stringValue } == [tpv["id"]?.stringValue, nil])
        }
    }
}
