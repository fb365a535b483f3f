import Foundation
import Postgres
@testable import Gateway
import JSON
import Testing

/// TPV bank accounts end to end: whitelisted at the Razorpay sandbox, sealed at rest, shown only
/// masked, used by TPV orders of their own customer only.
@Suite struct TPVBankAccountTests {
    /// A fixed data key for tests (never a real one): bytes 1...32.
    static let key = try! DataKey(bytes: Array(1...32))
    static var configuration: GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.dataKeys = try? DataKeyring(current: key)
        return configuration
    }

    static let number = "916010082985661"
    static let accountFields = """
        id maskedAccountNumber last4 ifsc bankName beneficiaryName status createdAt removedAt
        providerBankAccountIds { provider id } customer { id }
        """

    static func add(_ h: GatewayHarness, customer: String, number: String = number, ifsc: String = "UTIB0000194",
                    extra: String = "") async throws -> GatewayHarness.Answer {
        try await h.graphQL("""
            mutation($c: ID!, $n: String!, $i: String!) { addTpvBankAccount(input: {customerId: $c, accountNumber: $n, ifsc: $i,
              beneficiaryName: "Gaurav Kumar" \(extra)}) { bankAccount { \(accountFields) } userErrors { code message field } } }
            """, variables: ["c": .string(customer), "n": .string(number), "i": .string(ifsc)])
    }

    static func added(_ h: GatewayHarness, customer: String, number: String = number) async throws -> JSONValue {
        let answer = try await add(h, customer: customer, number: number)
        #expect(answer.userErrorCodes("addTpvBankAccount") == [], "\(answer.json)")
        return try #require(answer.data("addTpvBankAccount")?["bankAccount"])
    }

    static func text(_ answer: GatewayHarness.Answer) -> String { JSONWriter.string(answer.json) }

    @Test func anAccountIsWhitelistedListedAndRemoved() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let account = try await Self.added(h, customer: customer)
            #expect(account["maskedAccountNumber"]?.stringValue == "XXXXXX5661")
            #expect(account["last4"]?.stringValue == "5661")
            #expect(account["ifsc"]?.stringValue == "UTIB0000194")
            #expect(account["beneficiaryName"]?.stringValue == "Gaurav Kumar")
            #expect(account["status"]?.stringValue == "ACTIVE")
            #expect(account["customer"]?["id"]?.stringValue == customer)
            #expect(account["bankName"]?.stringValue?.isEmpty == false)
            let refs = try #require(account["providerBankAccountIds"]?.arrayValue)
            #expect(refs.count == 1)
            #expect(refs.first?["provider"]?.stringValue == "RAZORPAY")
            #expect(refs.first?["id"]?.stringValue?.hasPrefix("ba_") == true)
            let id = try #require(account["id"]?.stringValue)

            // The customer was registered at Razorpay first (the whitelist hangs off a Razorpay customer).
            let listed = try await h.graphQL("""
                query($c: ID!) { customer(id: $c) { providerCustomerIds { provider id } bankAccounts { id last4 } } }
                """, variables: ["c": .string(customer)])
            #expect(listed.data("customer")?["providerCustomerIds"]?.arrayValue?.first?["provider"]?.stringValue == "RAZORPAY")
            #expect(listed.data("customer")?["bankAccounts"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
            let node = try await h.graphQL("query($id: ID!) { node(id: $id) { __typename ... on BankAccount { last4 status } } }",
                                           variables: ["id": .string(id)])
            #expect(node.data("node")?["__typename"]?.stringValue == "BankAccount")
            #expect(node.data("node")?["last4"]?.stringValue == "5661")

            let remove = "mutation($id: ID!) { removeTpvBankAccount(input: {bankAccountId: $id}) { bankAccount { id status removedAt } userErrors { code } } }"
            let removed = try await h.graphQL(remove, variables: ["id": .string(id)])
            #expect(removed.userErrorCodes("removeTpvBankAccount") == [])
            #expect(removed.data("removeTpvBankAccount")?["bankAccount"]?["status"]?.stringValue == "REMOVED")
            #expect(removed.data("removeTpvBankAccount")?["bankAccount"]?["removedAt"]?.stringValue != nil)
            // Removing again changes nothing and asks Razorpay nothing (the sandbox would say 404 now).
            let again = try await h.graphQL(remove, variables: ["id": .string(id)])
            #expect(again.userErrorCodes("removeTpvBankAccount") == [])
            #expect(again.data("removeTpvBankAccount")?["bankAccount"]?["status"]?.stringValue == "REMOVED")

            let after = try await h.graphQL("""
                query($c: ID!) { customer(id: $c) { active: bankAccounts { id } all: bankAccounts(includeRemoved: true) { id status } } }
                """, variables: ["c": .string(customer)])
            #expect(after.data("customer")?["active"]?.arrayValue?.count == 0)
            #expect(after.data("customer")?["all"]?.arrayValue?.first?["status"]?.stringValue == "REMOVED")
            // A new add after removal whitelists again: a new ACTIVE row.
            let readded = try await Self.added(h, customer: customer)
            #expect(readded["id"]?.stringValue != id)
            #expect(try await h.count("bank_accounts") == 2)
        }
    }

    @Test func addingTheSameAccountTwiceReturnsTheFirst() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let first = try await Self.added(h, customer: customer)
            // Lower-case IFSC is the same IFSC; no second whitelist at Razorpay.
            let second = try await Self.add(h, customer: customer, ifsc: "utib0000194")
            #expect(second.userErrorCodes("addTpvBankAccount") == [])
            #expect(second.data("addTpvBankAccount")?["bankAccount"]?["id"] == first["id"])
            #expect(try await h.count("bank_accounts") == 1)
            #expect(try await h.count("bank_account_provider_refs") == 1)
            // Another number, or the same number at another branch, is another account.
            _ = try await Self.added(h, customer: customer, number: "765432123456789")
            let otherBranch = try await Self.add(h, customer: customer, ifsc: "HDFC0000053")
            #expect(otherBranch.data("addTpvBankAccount")?["bankAccount"]?["id"] != first["id"])
            #expect(try await h.count("bank_accounts") == 3)
        }
    }

    /// The number is in no response, no stored column (only its ciphertext, which opens with the data key).
    @Test func onlyMaskedFormsLeaveTheServer() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let answer = try await Self.add(h, customer: customer, extra: #", idempotencyKey: "tpv-add-1""#)
            #expect(answer.userErrorCodes("addTpvBankAccount") == [])
            #expect(!Self.text(answer).contains(Self.number))
            let replay = try await Self.add(h, customer: customer, extra: #", idempotencyKey: "tpv-add-1""#)
            #expect(replay.data("addTpvBankAccount")?["bankAccount"]?["id"] == answer.data("addTpvBankAccount")?["bankAccount"]?["id"])
            #expect(!Self.text(replay).contains(Self.number))
            // The stored request hash covers the number (through its keyed blind index): another number under the same key is refused.
            let reused = try await Self.add(h, customer: customer, number: "765432123456789", extra: #", idempotencyKey: "tpv-add-1""#)
            #expect(reused.userErrorCodes("addTpvBankAccount") == ["IDEMPOTENCY_KEY_REUSED"])
            for table: StaticString in ["bank_accounts", "bank_account_provider_refs", "idempotency_records", "customers", "customer_provider_refs"] {
                let rows = try await h.pool.query("SELECT coalesce(string_agg(row_to_json(t)::text, ' '), '') FROM \(sql: table) t").single(String.self)
                #expect(rows?.contains(Self.number) == false, "\(table)")
            }
            // The ciphertext carries the id of its key and opens with it (and only for its own row).
            let services = h.gateway.services
            let id = try #require(answer.data("addTpvBankAccount")?["bankAccount"]?["id"]?.stringValue.flatMap { GlobalID($0, of: .bankAccount) })
            let record = try #require(try await services.bankAccountStore.find(id: id.uuid))
            #expect(record.keyID == Self.key.id)
            #expect(record.keyID.count == 8)
            #expect(try services.bankAccounts.accountNumber(of: record) == Self.number)
            let keys = try #require(services.configuration.dataKeys)
            #expect(throws: (any Error).self) { try keys.open(record.sealedAccountNumber, purpose: BankAccountRecord.purpose(id: UUID())) }
        }
    }

    @Test func malformedInputIsAUserErrorAndWritesNothing() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let cases: [(number: String, ifsc: String, code: String)] = [
                ("916010082985661", "UTIB1000194", "INVALID_IFSC"),   // fifth character must be 0
                ("916010082985661", "UTI0000194", "INVALID_IFSC"),    // too short
                ("916010082985661", "UT1B0000194", "INVALID_IFSC"),   // digit in the bank code
                ("12345678", "UTIB0000194", "INVALID_ACCOUNT_NUMBER"),  // 8 digits
                ("1234567890123456789", "UTIB0000194", "INVALID_ACCOUNT_NUMBER"),  // 19 digits
                ("9160100829856AB", "UTIB0000194", "INVALID_ACCOUNT_NUMBER"),
                ("9160-1008-2985", "UTIB0000194", "INVALID_ACCOUNT_NUMBER"),
            ]
            for item in cases {
                let answer = try await Self.add(h, customer: customer, number: item.number, ifsc: item.ifsc)
                #expect(answer.userErrorCodes("addTpvBankAccount") == [item.code], "\(item)")
                #expect(answer.data("addTpvBankAccount")?["bankAccount"] == .null)
                #expect(!Self.text(answer).contains(item.number), "the refused number is not echoed")
            }
            let blankName = try await h.graphQL("""
                mutation($c: ID!) { addTpvBankAccount(input: {customerId: $c, accountNumber: "916010082985661", ifsc: "UTIB0000194",
                  beneficiaryName: "  "}) { userErrors { code field } } }
                """, variables: ["c": .string(customer)])
            #expect(blankName.userErrorCodes("addTpvBankAccount") == ["VALIDATION_FAILED"])
            #expect(try await h.count("bank_accounts") == 0)
            // Nothing reached Razorpay either: the customer was not even registered there.
            #expect(try await h.count("customer_provider_refs") == 0)
        }
    }

    @Test func aTPVOrderCarriesTheAccountToRazorpay() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let account = try await Self.added(h, customer: customer)
            let accountID = try #require(account["id"]?.stringValue)
            let answer = try await h.graphQL("""
                mutation($c: ID!, $a: ID!) { createOrder(input: {amount: {amount: "50000"}, customerId: $c, flow: TPV, method: NETBANKING,
                  tpvBankAccountId: $a}) { order { id provider flow method providerOrderId tpvBankAccount { id maskedAccountNumber }
                  checkout { ... on RazorpayCheckout { tpv method } } } userErrors { code message field } } }
                """, variables: ["c": .string(customer), "a": .string(accountID)])
            #expect(answer.userErrorCodes("createOrder") == [], "\(answer.json)")
            let order = try #require(answer.data("createOrder")?["order"])
            #expect(order["provider"]?.stringValue == "RAZORPAY")
            #expect(order["flow"]?.stringValue == "TPV")
            #expect(order["method"]?.stringValue == "NETBANKING")
            #expect(order["tpvBankAccount"]?["id"]?.stringValue == accountID)
            #expect(order["checkout"]?["tpv"]?.boolValue == true)
            #expect(!Self.text(answer).contains(Self.number))
            // What Razorpay got: the full number, the holder and the IFSC, with the method.
            let providerOrderID = try #require(order["providerOrderId"]?.stringValue)
            let atRazorpay = try await h.sandboxControl("/razorpay/orders/\(providerOrderID)", body: "", method: "GET")
            #expect(atRazorpay["bank_account"]?["account_number"]?.stringValue == Self.number)
            #expect(atRazorpay["bank_account"]?["ifsc"]?.stringValue == "UTIB0000194")
            #expect(atRazorpay["bank_account"]?["name"]?.stringValue == "Gaurav Kumar")
            #expect(atRazorpay["method"]?.stringValue == "netbanking")
            // Read back later, the order still names its account.
            let read = try await h.graphQL("query($id: ID!) { order(id: $id) { tpvBankAccount { id last4 } } }",
                                           variables: ["id": try #require(order["id"])])
            #expect(read.data("order")?["tpvBankAccount"]?["last4"]?.stringValue == "5661")

            // The sandbox honours TPV: money from another account fails; from the whitelisted one the order is paid.
            let status = "query($id: ID!) { order(id: $id) { status payments { status failure { reason } } } }"
            let orderID = try #require(order["id"])
            try await h.sandboxControl("/razorpay/orders/\(providerOrderID)/complete", body: #"{"status":"paid","account_number":"111122223333"}"#)
            #expect(try await h.eventually {
                try await h.graphQL(status, variables: ["id": orderID]).data("order")?["payments"]?.arrayValue?.first?["status"]?.stringValue == "FAILED"
            })
            #expect(try await h.graphQL(status, variables: ["id": orderID]).data("order")?["status"]?.stringValue != "PAID")
            try await h.sandboxControl("/razorpay/orders/\(providerOrderID)/complete", body: #"{"status":"paid","account_number":"\#(Self.number)"}"#)
            #expect(try await h.eventually { try await h.graphQL(status, variables: ["id": orderID]).data("order")?["status"]?.stringValue == "PAID" })
        }
    }

    @Test func aTPVOrderOnCashfreeCarriesTheAccountPerOrder() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "+919812345678")
            let accountID = try #require(try await Self.added(h, customer: customer)["id"]?.stringValue)
            let answer = try await h.graphQL("""
                mutation($c: ID!, $a: ID!) { createOrder(input: {amount: {amount: "17000"}, customerId: $c, provider: CASHFREE, flow: TPV,
                  method: UPI, tpvBankAccountId: $a}) { order { receipt tpvBankAccount { id } } userErrors { code message } } }
                """, variables: ["c": .string(customer), "a": .string(accountID)])
            #expect(answer.userErrorCodes("createOrder") == [], "\(answer.json)")
            #expect(!Self.text(answer).contains(Self.number))
            let receipt = try #require(answer.data("createOrder")?["order"]?["receipt"]?.stringValue)
            let atCashfree = try await h.sandboxControl("/cashfree/orders/\(receipt)", body: "", method: "GET")
            #expect(atCashfree["customer_details"]?["customer_bank_account_number"]?.stringValue == Self.number)
            #expect(atCashfree["customer_details"]?["customer_bank_ifsc"]?.stringValue == "UTIB0000194")
            #expect(atCashfree["order_meta"]?["payment_methods"]?.stringValue == "upi")
        }
    }

    @Test func anotherCustomersOrARemovedAccountIsRefused() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let owner = try await OrderLifecycleTests.createCustomer(h, phone: "9000000011")
            let other = try await OrderLifecycleTests.createCustomer(h, phone: "9000000012")
            let accountID = try #require(try await Self.added(h, customer: owner)["id"]?.stringValue)
            func order(customer: String, account: String?, method: String? = "UPI", flow: String = "TPV") async throws -> GatewayHarness.Answer {
                try await h.graphQL("""
                    mutation($c: ID!, $a: ID, $m: PaymentMethod) { createOrder(input: {amount: {amount: "50000"}, customerId: $c, flow: \(flow),
                      method: $m, tpvBankAccountId: $a}) { order { id } userErrors { code field } } }
                    """, variables: ["c": .string(customer), "a": account.map(JSONValue.string) ?? .null, "m": method.map(JSONValue.string) ?? .null])
            }
            #expect(try await order(customer: other, account: accountID).userErrorCodes("createOrder") == ["NOT_FOUND"])
            #expect(try await order(customer: owner, account: accountID, method: nil).userErrorCodes("createOrder") == ["REQUIRED"])
            #expect(try await order(customer: owner, account: accountID, method: "WALLET").userErrorCodes("createOrder") == ["INVALID_PARAMETER_COMBINATION"])
            #expect(try await order(customer: owner, account: nil).userErrorCodes("createOrder") == ["REQUIRED"])
            #expect(try await order(customer: owner, account: accountID, flow: "STANDARD").userErrorCodes("createOrder") == ["INVALID_PARAMETER_COMBINATION"])
            #expect(try await h.count("orders") == 0)

            // A session of the other customer cannot see the account either.
            let session = try await h.graphQL("""
                mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { token } } }
                """, variables: ["c": .string(other)])
            let token = try #require(session.data("createClientSession")?["session"]?["token"]?.stringValue)
            let hidden = try await h.graphQL("query($id: ID!) { node(id: $id) { id } }", variables: ["id": .string(accountID)], key: token)
            #expect(hidden.data("node") == .null)

            _ = try await h.graphQL("mutation($id: ID!) { removeTpvBankAccount(input: {bankAccountId: $id}) { userErrors { code } } }",
                                    variables: ["id": .string(accountID)])
            #expect(try await order(customer: owner, account: accountID).userErrorCodes("createOrder") == ["INVALID_STATE"])
            #expect(try await h.count("orders") == 0)
        }
    }

    @Test func withoutADataKeyTPVAccountsAreUnavailable() async throws {
        try await GatewayHarness.run { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let answer = try await Self.add(h, customer: customer)
            #expect(answer.userErrorCodes("addTpvBankAccount") == ["CAPABILITY_NOT_SUPPORTED"])
            #expect(try await h.count("bank_accounts") == 0)
        }
    }

    /// After a rotation the old rows still open (by the key id they carry) and are still found by the blind index.
    @Test func rotatedKeysStillOpenAndFindOldRows() async throws {
        try await GatewayHarness.run(configuration: Self.configuration) { h in
            let customer = try await OrderLifecycleTests.createCustomer(h)
            let id = try #require(try await Self.added(h, customer: customer)["id"]?.stringValue.flatMap { GlobalID($0, of: .bankAccount) })
            let services = h.gateway.services
            let record = try #require(try await services.bankAccountStore.find(id: id.uuid))
            let newKey = try DataKey(bytes: Array(101...132))
            let rotated = try DataKeyring(current: newKey, previous: [Self.key])
            let service = BankAccountService(accounts: services.bankAccountStore, customers: services.customerStore,
                                             customerService: services.customers, providers: services.providers, keys: rotated)
            #expect(try service.accountNumber(of: record) == Self.number)
            let found = try await services.bankAccountStore.findActive(customerID: record.customerID,
                                                                       blindIndexes: rotated.blindIndexes(Self.number), ifsc: "UTIB0000194")
            #expect(found?.id == record.id)
            // New values are sealed under the new key; without the old key the old row does not open.
            #expect(try rotated.seal("x", purpose: "p").keyID == newKey.id)
            let forgotten = BankAccountService(accounts: services.bankAccountStore, customers: services.customerStore,
                                               customerService: services.customers, providers: services.providers,
                                               keys: try DataKeyring(current: newKey))
            #expect(throws: GatewayRequestError.self) { try forgotten.accountNumber(of: record) }
            #expect(throws: DataKeyError.self) { try DataKeyring(current: newKey).open(record.sealedAccountNumber, purpose: BankAccountRecord.purpose(id: record.id)) }
        }
    }
}
