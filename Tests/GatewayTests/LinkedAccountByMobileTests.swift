import JSON
import Testing

/// A SECRET report of linked UPI accounts by mobile number alone belongs to the one customer with that phone
/// (found by schemathesis, Tests/Clients/run.sh: the look-up read a `phone` column customers do not have — it is
/// `contact` — and every such report was INTERNAL).
@Suite struct LinkedAccountByMobileTests {
    @Test func aReportByMobileAloneGoesToTheOneCustomerWithThatPhone() async throws {
        try await GatewayHarness.run { h in
            let none = try await LinkedUpiAccountTests.sync(h, mobile: "8749320546", source: "MANAGE_ACCOUNTS", accounts: [], complete: true)
            #expect(none.errorCodes == [], "\(none.json)")
            #expect(none.userErrorCodes("syncLinkedUpiAccounts") == [])

            let customer = try await OrderLifecycleTests.createCustomer(h, phone: "9876543210")
            let answer = try await LinkedUpiAccountTests.sync(h, mobile: "9876543210", accounts: [LinkedUpiAccountTests.account("XXXXXXXX4321")])
            #expect(answer.errorCodes == [], "\(answer.json)")
            #expect(LinkedUpiAccountTests.synced(answer).first?["customer"]?["id"]?.stringValue == customer)
            #expect(try await LinkedUpiAccountTests.list(h, customer: customer).count == 1)
        }
    }
}
