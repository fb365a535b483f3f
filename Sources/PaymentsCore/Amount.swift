/// An ISO-4217 currency and the number of minor units in one major unit.
///
/// Only the exponent matters for conversions: INR has 2 (paise), JPY 0,
/// KWD/BHD/OMR 3. Currencies are compared by code.
public struct Currency: Sendable, Hashable, CustomStringConvertible {
    /// The three-letter ISO-4217 code, upper case (`INR`).
    public let code: String
    /// Decimal digits after the point in the major unit (2 for INR).
    public let minorUnitExponent: Int

    /// A currency from its code and exponent. The code is upper-cased; it
    /// must be three ASCII letters and the exponent between 0 and 4.
    public init?(code: String, minorUnitExponent: Int) {
        let upper = code.uppercased()
        guard upper.utf8.count == 3, upper.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }),
              (0...4).contains(minorUnitExponent) else { return nil }
        self.code = upper
        self.minorUnitExponent = minorUnitExponent
    }

    private init(known code: String, exponent: Int) {
        self.code = code
        self.minorUnitExponent = exponent
    }

    /// Indian rupee: 100 paise.
    public static let inr = Currency(known: "INR", exponent: 2)

    /// A currency PayQL knows the exponent of, by code (case-insensitive).
    public static func known(_ code: String) -> Currency? {
        switch code.uppercased() {
        case "INR": .inr
        case "USD", "EUR", "GBP", "SGD", "AED": Currency(known: code.uppercased(), exponent: 2)
        case "JPY": Currency(known: "JPY", exponent: 0)
        case "KWD", "BHD", "OMR": Currency(known: code.uppercased(), exponent: 3)
        default: nil
        }
    }

    public var description: String { code }
}

/// Money as an exact count of minor units plus its currency. Never a float.
///
/// `Amount(minorUnits: 29935, currency: .inr)` is ₹299.35. The value may be
/// any `Int64`; each provider converter decides what it accepts (providers
/// refuse negatives, zero and amounts above their maximum).
public struct Amount: Sendable, Hashable, CustomStringConvertible {
    /// The amount in the currency's smallest unit (paise for INR).
    public let minorUnits: Int64
    /// The currency the minor units belong to.
    public let currency: Currency

    /// An amount of `minorUnits` in `currency`.
    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// The amount written as a plain decimal in major units, with exactly
    /// `currency.minorUnitExponent` fraction digits (`"299.35"`, `"-0.05"`).
    public var decimalString: String {
        DecimalText.format(minorUnits: minorUnits, exponent: currency.minorUnitExponent)
    }

    public var description: String { "\(decimalString) \(currency.code)" }
}

/// Why an amount could not be converted exactly.
public enum AmountError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a plain decimal number (`"abc"`, `"1,000"`, `""`, `"NaN"`).
    case notANumber(String)
    /// Negative amounts are never sent to or accepted from a provider.
    case negative(String)
    /// More fraction digits than the currency has (`10.101` INR).
    case tooPrecise(String, exponent: Int)
    /// Does not fit in 64-bit minor units.
    case overflow(String)
    /// Below the provider's minimum (minor units).
    case belowMinimum(Amount, minimum: Int64)
    /// Above the provider's maximum (minor units).
    case aboveMaximum(Amount, maximum: Int64)
    /// The provider does not take this currency.
    case unsupportedCurrency(String)

    public var description: String {
        switch self {
        case .notANumber(let text): "'\(text)' is not a decimal amount"
        case .negative(let text): "'\(text)' is negative"
        case .tooPrecise(let text, let exponent): "'\(text)' has more than \(exponent) fraction digits"
        case .overflow(let text): "'\(text)' is too large to represent"
        case .belowMinimum(let amount, let minimum):
            "\(amount) is below the minimum \(DecimalText.format(minorUnits: minimum, exponent: amount.currency.minorUnitExponent))"
        case .aboveMaximum(let amount, let maximum):
            "\(amount) is above the maximum \(DecimalText.format(minorUnits: maximum, exponent: amount.currency.minorUnitExponent))"
        case .unsupportedCurrency(let code): "currency '\(code)' is not supported"
        }
    }
}
