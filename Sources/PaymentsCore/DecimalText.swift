/// Exact conversion between decimal text and integer minor units.
///
/// Providers write amounts as decimal text: Cashfree as JSON numbers
/// (`10.15`), Instamojo and Setu as strings (`"2500.00"`). Going through
/// `Double` would turn `10.10` into 10.0999999…; this type works on the
/// digits instead, and refuses anything it cannot represent exactly.
public enum DecimalText {
    /// Which spellings are accepted.
    public struct Syntax: Sendable {
        /// Allow an exponent part (`1.5e2`), as JSON numbers may have one.
        public var allowsExponent: Bool
        /// Allow a leading `+`.
        public var allowsPlusSign: Bool

        /// JSON number grammar (RFC 8259 §6), leading zeros tolerated.
        public static let jsonNumber = Syntax(allowsExponent: true, allowsPlusSign: false)
        /// A plain decimal string such as `"2500.00"` or `"9"`.
        public static let plain = Syntax(allowsExponent: false, allowsPlusSign: false)
    }

    /// Upper bound on an exponent's magnitude; beyond it nothing fits in Int64 anyway.
    private static let exponentLimit = 1_000

    /// Minor units for `text` in a currency with `exponent` fraction digits.
    ///
    /// `"10.10"` → 1010, `"10.1"` → 1010, `"1e2"` → 10000 (JSON syntax),
    /// `"0"` → 0. Throws ``AmountError`` for a malformed number, a negative
    /// one, one with more significant fraction digits than `exponent`
    /// (`"10.101"`; trailing zeros such as `"10.100"` are fine) or one that
    /// overflows `Int64` minor units.
    public static func minorUnits(_ text: String, exponent: Int, syntax: Syntax = .plain) throws(AmountError) -> Int64 {
        let bytes = Array(text.utf8)
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        } else if syntax.allowsPlusSign, index < bytes.count, bytes[index] == UInt8(ascii: "+") {
            index += 1
        }
        var digits: [UInt8] = []
        var integerDigitCount = 0
        while index < bytes.count, isDigit(bytes[index]) {
            digits.append(bytes[index] - 48)
            index += 1
            integerDigitCount += 1
        }
        guard integerDigitCount > 0 else { throw .notANumber(text) }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fractionDigitCount = 0
            while index < bytes.count, isDigit(bytes[index]) {
                digits.append(bytes[index] - 48)
                index += 1
                fractionDigitCount += 1
            }
            guard fractionDigitCount > 0 else { throw .notANumber(text) }
        }
        var decimalExponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            guard syntax.allowsExponent else { throw .notANumber(text) }
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var sawDigit = false
            while index < bytes.count, isDigit(bytes[index]) {
                sawDigit = true
                // Saturate: a huge exponent is decided below without arithmetic overflow.
                if decimalExponent <= exponentLimit { decimalExponent = decimalExponent * 10 + Int(bytes[index] - 48) }
                index += 1
            }
            guard sawDigit else { throw .notANumber(text) }
            if exponentNegative { decimalExponent = -decimalExponent }
        }
        guard index == bytes.count else { throw .notANumber(text) }

        let isZero = digits.allSatisfy { $0 == 0 }
        if isZero { return 0 }
        if negative { throw .negative(text) }
        guard decimalExponent.magnitude <= exponentLimit else {
            throw decimalExponent > 0 ? .overflow(text) : .tooPrecise(text, exponent: exponent)
        }
        // Position of the decimal point within `digits` once scaled to minor units.
        let point = integerDigitCount + decimalExponent + exponent
        if point < digits.count {
            guard digits[max(point, 0)...].allSatisfy({ $0 == 0 }) else {
                throw .tooPrecise(text, exponent: exponent)
            }
        }
        var value: Int64 = 0
        for position in 0..<max(point, 0) {
            let digit = position < digits.count ? Int64(digits[position]) : 0
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw .overflow(text) }
            value = sum
        }
        return value
    }

    /// `minorUnits` as plain decimal text with exactly `exponent` fraction digits.
    public static func format(minorUnits: Int64, exponent: Int) -> String {
        let magnitude = String(minorUnits.magnitude)
        let sign = minorUnits < 0 ? "-" : ""
        guard exponent > 0 else { return sign + magnitude }
        let padded = magnitude.count <= exponent
            ? String(repeating: "0", count: exponent - magnitude.count + 1) + magnitude
            : magnitude
        let split = padded.index(padded.endIndex, offsetBy: -exponent)
        return sign + padded[..<split] + "." + padded[split...]
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
