import Foundation
import Testing
@testable import Providers
import PaymentsCore

/// Extreme and random numbers through every amount parser and converter, and
/// through each provider's webhook amounts (issue 14: input can never make a trap).
@Suite struct HostileAmountTests {
    /// Numbers at and around every limit a conversion has, as text.
    static let extremes = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "92233720368547758.07", "92233720368547758.08", "18446744073709551616", "4611686018427387904",
        "9007199254740993", "1e19", "-1e19", "1e308", "1e-400", "1e400", "-0.0", "-0", "0.000", "1e3", "1E+3", "1e-2",
        "1.5e-2", "1e9999999999999999999", "1e-9999999999999999999", String(repeating: "9", count: 400),
        "0." + String(repeating: "0", count: 400) + "1", "1" + String(repeating: "0", count: 17), "NaN", "Infinity",
        "0x10", "", ".", "-", "e5", "1e", "1e+", "1..2", "१००",
    ]

    /// A small deterministic generator (SplitMix64): the same cases on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Every accepted text converts to a non-negative value that formats back to the same value.
    private func checkMinorUnits(_ text: String, exponent: Int, syntax: DecimalText.Syntax) {
        do {
            let units = try DecimalText.minorUnits(text, exponent: exponent, syntax: syntax)
            #expect(units >= 0, "\(text)")
            let formatted = DecimalText.format(minorUnits: units, exponent: exponent)
            #expect((try? DecimalText.minorUnits(formatted, exponent: exponent)) == units, "\(text) → \(formatted)")
        } catch {
            // Refused with a reason: what any hostile text must get.
        }
    }

    @Test func extremeTextsThroughDecimalText() throws {
        for text in Self.extremes {
            for exponent in 0...4 {
                checkMinorUnits(text, exponent: exponent, syntax: .plain)
                checkMinorUnits(text, exponent: exponent, syntax: .jsonNumber)
            }
        }
        #expect(throws: AmountError.overflow("9223372036854775808")) { try DecimalText.minorUnits("9223372036854775808", exponent: 0) }
        #expect(throws: AmountError.overflow("1e9999999999999999999")) {
            try DecimalText.minorUnits("1e9999999999999999999", exponent: 2, syntax: .jsonNumber)
        }
        #expect(throws: AmountError.tooPrecise("1e-9999999999999999999", exponent: 2)) {
            try DecimalText.minorUnits("1e-9999999999999999999", exponent: 2, syntax: .jsonNumber)
        }
    }

    /// 20,000 random texts over the characters numbers are made of: never a trap, and
    /// every accepted one exact (bounded: well under a second).
    @Test func randomTextsThroughDecimalText() {
        var random = SplitMix(state: 14)
        let alphabet = Array("0123456789000999.-+eE")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...30, using: &random)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            let exponent = Int.random(in: 0...4, using: &random)
            checkMinorUnits(text, exponent: exponent, syntax: Bool.random(using: &random) ? .plain : .jsonNumber)
        }
    }

    @Test func everyProvidersConvertersRefuseOrConvertExactly() {
        let rules = [
            RazorpayConfiguration.defaultOrderAmountRules, CashfreeConfiguration.defaultOrderAmountRules,
            InstamojoConfiguration.defaultOrderAmountRules, SetuConfiguration.defaultAmountRules,
            AmountRules(currencies: ["INR", "JPY", "KWD"], minimum: 0, maximum: .max),
        ]
        let minorUnits: [Int64] = [.min, .min + 1, -1, 0, 1, 99, 100, 9_007_199_254_740_991, 9_007_199_254_740_992, .max - 1, .max]
        for rule in rules {
            for code in ["INR", "JPY", "KWD", "inr", "XXX", ""] {
                for text in Self.extremes {
                    if let amount = try? AmountConversion.fromDecimalText(text, currencyCode: code, rules: rule, syntax: .jsonNumber) {
                        #expect(amount.minorUnits >= 0)
                        #expect((try? AmountConversion.decimalText(amount, rules: rule)).map { _ in true } ?? true)
                    }
                    if let currency = Currency.known(code), let amount = try? AmountConversion.parse(text, currency: currency, rules: rule) {
                        #expect(amount.minorUnits >= rule.minimum && amount.minorUnits <= rule.maximum, "\(text)")
                    }
                }
                for units in minorUnits {
                    if let amount = try? AmountConversion.fromMinorUnits(units, currencyCode: code, rules: rule) {
                        #expect(amount.minorUnits >= 0)
                        _ = amount.decimalString
                        if let sent = try? AmountConversion.integerMinorUnits(amount, rules: rule) {
                            #expect(sent >= rule.minimum && sent <= rule.maximum)
                        }
                    }
                }
            }
        }
        // Formatting never traps, Int64.min included.
        for units in minorUnits { for exponent in 0...4 { _ = DecimalText.format(minorUnits: units, exponent: exponent) } }
        #expect(DecimalText.format(minorUnits: .min, exponent: 2) == "-92233720368547758.08")
    }

    /// Each provider's webhook sample with its amount replaced by an extreme number:
    /// an event with an exact amount, or a `ProviderError`, never a trap.
    @Test func webhookAmountsAtTheExtremes() throws {
        let numbers = Self.extremes.filter { !$0.isEmpty && $0.allSatisfy { "0123456789.-+eE".contains($0) } && Double($0) != nil }
        let samples: [(ProviderName, String, [String])] = [
            (.razorpay, "webhook_payment_authorized", [#""amount": 1000000"#]),
            (.cashfree, "webhook_payment_success", [#""order_amount": 170.0"#, #""payment_amount": 170.0"#]),
            (.cashfree, "webhook_refund_status", [#""refund_amount": 20.5"#]),
            (.setu, "webhook_bill_payment_success", [#""amountPaid": "601.00""#]),
        ]
        var checked = 0
        for (provider, name, fields) in samples {
            let original = String(decoding: try Fixture.sample(provider.rawValue, name), as: UTF8.self)
            for field in fields {
                #expect(original.contains(field), "\(name) has no \(field)")
                let key = field.prefix { $0 != ":" }
                for number in numbers {
                    let value = field.hasSuffix("\"") ? "\"\(number)\"" : number
                    let body = original.replacingOccurrences(of: field, with: "\(key): \(value)")
                    // `event` throws only `ProviderError` (typed throws): refused with a reason, or exact.
                    if let event = try? Webhooks.event(provider: provider, request: WebhookRequest(headers: [], body: Array(body.utf8))),
                       let amount = event.amount {
                        #expect(amount.minorUnits >= 0, "\(name) \(number)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 50)
    }
}
