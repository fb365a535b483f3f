public import PaymentsCore
/// What one provider accepts as an amount: currencies and a minimum and
/// maximum in minor units. Every adapter checks an outgoing amount against
/// its rules before anything is sent, and converts incoming ones exactly.
public struct AmountRules: Sendable, Equatable {
    /// Currency codes the provider takes (upper case).
    public var currencies: Set<String>
    /// Smallest amount accepted, in minor units (inclusive).
    public var minimum: Int64
    /// Largest amount accepted, in minor units (inclusive).
    public var maximum: Int64

    /// Rules from explicit bounds.
    public init(currencies: Set<String> = ["INR"], minimum: Int64, maximum: Int64) {
        self.currencies = currencies
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Throws unless `amount` is in a supported currency and within bounds.
    public func check(_ amount: Amount) throws(AmountError) {
        guard currencies.contains(amount.currency.code) else { throw .unsupportedCurrency(amount.currency.code) }
        if amount.minorUnits < 0 { throw .negative(amount.decimalString) }
        if amount.minorUnits < minimum { throw .belowMinimum(amount, minimum: minimum) }
        if amount.minorUnits > maximum { throw .aboveMaximum(amount, maximum: maximum) }
    }

    /// The currency for a provider's currency code, if both PayQL and the provider know it.
    func currency(_ code: String?) throws(AmountError) -> Currency {
        let text = code ?? "INR"
        guard let currency = Currency.known(text), currencies.contains(currency.code) else {
            throw .unsupportedCurrency(text)
        }
        return currency
    }
}

/// Converters between ``Amount`` and each provider unit. All are exact and throw
/// ``AmountError`` rather than round.
public enum AmountConversion {
    /// Integer minor units (Razorpay: paise), after checking `rules`.
    public static func integerMinorUnits(_ amount: Amount, rules: AmountRules) throws(AmountError) -> Int64 {
        try rules.check(amount)
        return amount.minorUnits
    }

    /// Decimal major-unit text (Cashfree numbers, Instamojo and Setu strings) after checking `rules`:
    /// `Amount(1010, INR)` → `"10.10"`.
    public static func decimalText(_ amount: Amount, rules: AmountRules) throws(AmountError) -> String {
        try rules.check(amount)
        return amount.decimalString
    }

    /// An amount from integer minor units received from a provider (no bounds check:
    /// what the provider says happened is recorded, only impossible values are refused).
    public static func fromMinorUnits(_ minorUnits: Int64, currencyCode: String?, rules: AmountRules) throws(AmountError) -> Amount {
        let currency = try rules.currency(currencyCode)
        if minorUnits < 0 { throw .negative(String(minorUnits)) }
        return Amount(minorUnits: minorUnits, currency: currency)
    }

    /// An amount from decimal text received from a provider (`"2500.00"`, or a JSON number's text).
    public static func fromDecimalText(_ text: String, currencyCode: String?, rules: AmountRules,
                                       syntax: DecimalText.Syntax = .plain) throws(AmountError) -> Amount {
        let currency = try rules.currency(currencyCode)
        let minor = try DecimalText.minorUnits(text, exponent: currency.minorUnitExponent, syntax: syntax)
        return Amount(minorUnits: minor, currency: currency)
    }

    /// An amount the caller typed as decimal text (`"10.10"`) in `currency`, checked against `rules`.
    public static func parse(_ text: String, currency: Currency, rules: AmountRules) throws(AmountError) -> Amount {
        let minor = try DecimalText.minorUnits(text, exponent: currency.minorUnitExponent, syntax: .plain)
        let amount = Amount(minorUnits: minor, currency: currency)
        try rules.check(amount)
        return amount
    }
}
