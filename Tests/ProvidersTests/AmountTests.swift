import Testing
@testable import Providers
import PaymentsCore

@Suite struct DecimalTextTests {
    @Test(arguments: [
        ("0", Int64(0)), ("0.00", 0), ("0.01", 1), ("10.10", 1010), ("10.1", 1010), ("10", 1000),
        ("10.100", 1010), ("2500.00", 250_000), ("9", 900), ("200000", 20_000_000), ("007.50", 750),
        ("-0", 0), ("-0.00", 0),
    ])
    func plainDecimalsConvertExactly(text: String, paise: Int64) throws {
        #expect(try DecimalText.minorUnits(text, exponent: 2) == paise)
    }

    @Test(arguments: ["1e2", "1E2", "1.5e1", "1000e-1", "0.101e2", "170.00"])
    func jsonNumberSyntaxAllowsExponents(text: String) throws {
        let expected: [String: Int64] = ["1e2": 10_000, "1E2": 10_000, "1.5e1": 1500, "1000e-1": 10_000, "0.101e2": 1010, "170.00": 17_000]
        #expect(try DecimalText.minorUnits(text, exponent: 2, syntax: .jsonNumber) == expected[text])
    }

    @Test func tooManyFractionDigitsAreRefused() throws {
        #expect(throws: AmountError.tooPrecise("10.101", exponent: 2)) { try DecimalText.minorUnits("10.101", exponent: 2) }
        #expect(throws: AmountError.tooPrecise("0.001", exponent: 2)) { try DecimalText.minorUnits("0.001", exponent: 2) }
        #expect(throws: AmountError.tooPrecise("1e-3", exponent: 2)) { try DecimalText.minorUnits("1e-3", exponent: 2, syntax: .jsonNumber) }
        // Three-decimal currencies keep three.
        #expect(try DecimalText.minorUnits("10.101", exponent: 3) == 10_101)
    }

    @Test(arguments: ["-1", "-0.01", "-10.10"])
    func negativesAreRefused(text: String) {
        #expect(throws: AmountError.negative(text)) { try DecimalText.minorUnits(text, exponent: 2) }
    }

    @Test(arguments: ["", "abc", "1,000", "10.", ".5", "1e2", "+5", " 5", "5 ", "NaN", "Infinity", "0x10", "1.2.3", "१०"])
    func nonNumericIsRefused(text: String) {
        #expect(throws: AmountError.notANumber(text)) { try DecimalText.minorUnits(text, exponent: 2) }
    }

    @Test func overflowIsRefusedNotWrapped() throws {
        #expect(try DecimalText.minorUnits("92233720368547758.07", exponent: 2) == Int64.max)
        #expect(throws: AmountError.overflow("92233720368547758.08")) { try DecimalText.minorUnits("92233720368547758.08", exponent: 2) }
        #expect(throws: AmountError.overflow("1e400")) { try DecimalText.minorUnits("1e400", exponent: 2, syntax: .jsonNumber) }
    }

    @Test func formattingWritesExactlyTheCurrencyDigits() {
        #expect(DecimalText.format(minorUnits: 0, exponent: 2) == "0.00")
        #expect(DecimalText.format(minorUnits: 1, exponent: 2) == "0.01")
        #expect(DecimalText.format(minorUnits: 1010, exponent: 2) == "10.10")
        #expect(DecimalText.format(minorUnits: -5, exponent: 2) == "-0.05")
        #expect(DecimalText.format(minorUnits: 1234, exponent: 0) == "1234")
        #expect(DecimalText.format(minorUnits: Int64.min, exponent: 2) == "-92233720368547758.08")
        #expect(Amount.inr(29935).description == "299.35 INR")
    }
}

/// The amount edge cases of issue #5 for each provider's unit and bounds.
@Suite struct ProviderAmountTests {
    @Test func razorpayPaiseIntegers() throws {
        let rules = RazorpayConfiguration.defaultOrderAmountRules
        #expect(try AmountConversion.integerMinorUnits(.inr(100), rules: rules) == 100)
        #expect(try AmountConversion.integerMinorUnits(.inr(1010), rules: rules) == 1010)
        // The largest order: 2^53 − 1 paise [L]; one more is refused.
        #expect(try AmountConversion.integerMinorUnits(.inr(9_007_199_254_740_991), rules: rules) == 9_007_199_254_740_991)
        #expect(throws: AmountError.aboveMaximum(.inr(9_007_199_254_740_992), maximum: 9_007_199_254_740_991)) {
            try AmountConversion.integerMinorUnits(.inr(9_007_199_254_740_992), rules: rules)
        }
        // 0 and 1 paisa are below Razorpay's ₹1 minimum.
        #expect(throws: AmountError.belowMinimum(.inr(0), minimum: 100)) { try AmountConversion.integerMinorUnits(.inr(0), rules: rules) }
        #expect(throws: AmountError.belowMinimum(.inr(1), minimum: 100)) { try AmountConversion.integerMinorUnits(.inr(1), rules: rules) }
        #expect(throws: AmountError.negative("-1.00")) { try AmountConversion.integerMinorUnits(.inr(-100), rules: rules) }
        #expect(throws: AmountError.unsupportedCurrency("USD")) {
            try AmountConversion.integerMinorUnits(Amount(minorUnits: 100, currency: try #require(Currency.known("USD"))), rules: rules)
        }
    }

    @Test func razorpayOrderRequestCarriesExactPaise() throws {
        let wire = try RazorpayTransformers.orderRequest(CreateOrderRequest(reference: "r1", amount: .inr(1010)),
                                                         rules: RazorpayConfiguration.defaultOrderAmountRules)
        #expect(wire.amount == 1010)
        let error = #expect(throws: ProviderError.self) {
            try RazorpayTransformers.orderRequest(CreateOrderRequest(reference: "r1", amount: .inr(-5)),
                                                  rules: RazorpayConfiguration.defaultOrderAmountRules)
        }
        #expect(error?.code == .invalidAmount)
        #expect(error?.field == "amount")
    }

    @Test func cashfreeDecimalRupees() throws {
        let rules = CashfreeConfiguration.defaultOrderAmountRules
        #expect(try AmountConversion.decimalText(.inr(1010), rules: rules) == "10.10")
        #expect(try AmountConversion.decimalText(.inr(100), rules: rules) == "1.00")
        #expect(try AmountConversion.decimalText(.inr(999_999_999_999_999), rules: rules) == "9999999999999.99")
        #expect(throws: AmountError.self) { try AmountConversion.decimalText(.inr(1_000_000_000_000_000), rules: rules) }
        #expect(throws: AmountError.belowMinimum(.inr(1), minimum: 100)) { try AmountConversion.decimalText(.inr(1), rules: rules) }
        // Incoming JSON numbers: the number's text, never a Double.
        let order = try JSONDecoderFixture.cashfreeOrder(amountLiteral: "10.10")
        #expect(try CashfreeTransformers.order(order, rules: rules, operation: "t").amount == .inr(1010))
        let third = try JSONDecoderFixture.cashfreeOrder(amountLiteral: "10.101")
        let error = #expect(throws: ProviderError.self) { try CashfreeTransformers.order(third, rules: rules, operation: "t") }
        #expect(error?.code == .malformedResponse)
        // 0.1 + 0.2 style values survive: 0.30 is 30 paise, not 30.000000000000004.
        #expect(try CashfreeTransformers.order(try JSONDecoderFixture.cashfreeOrder(amountLiteral: "0.30"), rules: rules, operation: "t").amount == .inr(30))
    }

    @Test func cashfreeEncodesTheExactNumber() throws {
        let wire = try CashfreeTransformers.orderRequest(
            CreateOrderRequest(reference: "order_1", amount: .inr(1010), customer: CustomerDetails(id: "cust_1", phone: "9999999999")),
            rules: CashfreeConfiguration.defaultOrderAmountRules)
        let text = String(decoding: try WireCoding.encode(wire), as: UTF8.self)
        #expect(text.contains("\"order_amount\":10.1"))
        #expect(!text.contains("10.09999"))
        let big = try CashfreeTransformers.orderRequest(
            CreateOrderRequest(reference: "order_2", amount: .inr(999_999_999_999_999), customer: CustomerDetails(id: "cust_1", phone: "9999999999")),
            rules: CashfreeConfiguration.defaultOrderAmountRules)
        #expect(String(decoding: try WireCoding.encode(big), as: UTF8.self).contains("\"order_amount\":9999999999999.99"))
    }

    @Test func instamojoDecimalStringsWithinNineToTwoLakh() throws {
        let rules = InstamojoConfiguration.defaultOrderAmountRules
        #expect(try AmountConversion.decimalText(.inr(900), rules: rules) == "9.00")
        #expect(try AmountConversion.decimalText(.inr(20_000_000), rules: rules) == "200000.00")
        #expect(throws: AmountError.aboveMaximum(.inr(20_000_001), maximum: 20_000_000)) { try AmountConversion.decimalText(.inr(20_000_001), rules: rules) }
        #expect(throws: AmountError.belowMinimum(.inr(899), minimum: 900)) { try AmountConversion.decimalText(.inr(899), rules: rules) }
        #expect(try AmountConversion.fromDecimalText("2500.00", currencyCode: nil, rules: rules) == .inr(250_000))
        #expect(try AmountConversion.fromDecimalText("2500", currencyCode: "INR", rules: rules) == .inr(250_000))
        #expect(throws: AmountError.tooPrecise("10.101", exponent: 2)) { try AmountConversion.fromDecimalText("10.101", currencyCode: nil, rules: rules) }
        #expect(throws: AmountError.notANumber("ten")) { try AmountConversion.fromDecimalText("ten", currencyCode: nil, rules: rules) }
    }

    @Test func setuStringsFromOnePaisa() throws {
        let rules = SetuConfiguration.defaultAmountRules
        #expect(try AmountConversion.parse("0.01", currency: .inr, rules: rules) == .inr(1))
        #expect(try AmountConversion.parse("3522.20", currency: .inr, rules: rules) == .inr(352_220))
        #expect(try AmountConversion.parse("9999999999999.99", currency: .inr, rules: rules) == .inr(999_999_999_999_999))
        #expect(throws: AmountError.belowMinimum(.inr(0), minimum: 1)) { try AmountConversion.parse("0", currency: .inr, rules: rules) }
        #expect(throws: AmountError.negative("-3.00")) { try AmountConversion.parse("-3.00", currency: .inr, rules: rules) }
        #expect(throws: AmountError.tooPrecise("10.101", exponent: 2)) { try AmountConversion.parse("10.101", currency: .inr, rules: rules) }
    }

    @Test func longNumbersAreRefusedBeforeDecimalCouldRoundThem() {
        let body = Array(#"{"order_id":"o","order_amount":10.1000000000000000000000000000000000000001,"order_status":"PAID"}"#.utf8)
        #expect(WireCoding.decode(CashfreeOrder.self, from: body) == nil)
        #expect(WireCoding.numbersAreShort(Array(#"{"a":"12345678901234567890123456789012345"}"#.utf8)))
    }
}

/// Builds Cashfree order bodies with a given amount literal.
enum JSONDecoderFixture {
    static func cashfreeOrder(amountLiteral: String) throws -> CashfreeOrder {
        let body = Array(#"{"order_id":"o1","order_amount":\#(amountLiteral),"order_currency":"INR","order_status":"ACTIVE"}"#.utf8)
        return try #require(WireCoding.decode(CashfreeOrder.self, from: body))
    }
}
