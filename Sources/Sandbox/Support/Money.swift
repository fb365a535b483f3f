/// Exact conversions between the providers' amount texts and minor units.
///
/// Every provider here speaks INR with two decimal places; amounts are kept
/// as `Int64` paise inside the sandbox, never as floating point.
enum Money {
    /// The largest amount any simulator accepts, in paise: 2^53 − 1, the largest integer
    /// that every JSON reader (JavaScript's too) holds exactly. The providers' documents
    /// (docs/providers/*.md) give no larger maximum, and Instamojo's is far lower. With
    /// every stored amount at most this, sums over thousands of payments and the fee
    /// arithmetic stay far from `Int64` overflow.
    static let maximumPaise: Int64 = 9_007_199_254_740_991

    /// Paise from a decimal rupee text such as `"10"`, `"10.1"`, `"10.10"`.
    ///
    /// Returns nil for anything that is not a plain non-negative decimal
    /// (signs, exponents, spaces, empty parts) or that needs more than two
    /// decimals to be exact (`"10.101"`); trailing zeros beyond two decimals
    /// are exact and allowed (`"10.100"`). Nil too above ``maximumPaise``, so a
    /// simulator refuses such an amount as invalid (each in its provider's words).
    static func paise(fromDecimal text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let whole = parts[0]
        guard !whole.isEmpty, whole.utf8.count <= 15, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        var fraction = parts.count == 2 ? Substring(parts[1]) : ""
        if parts.count == 2 && fraction.isEmpty { return nil }
        guard fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        while fraction.count > 2, fraction.hasSuffix("0") { fraction = fraction.dropLast() }
        guard fraction.count <= 2 else { return nil }
        let padded = String(fraction) + String(repeating: "0", count: 2 - fraction.count)
        guard let rupees = Int64(whole), let cents = Int64(padded) else { return nil }
        let (scaled, overflow) = rupees.multipliedReportingOverflow(by: 100)
        let (total, overflowAdding) = scaled.addingReportingOverflow(cents)
        guard !overflow, !overflowAdding, total <= maximumPaise else { return nil }
        return total
    }

    /// Paise from a JSON value that is a number or a numeric string.
    static func paise(from value: Wire?) -> Int64? {
        switch value {
        case .number(let text)?: paise(fromDecimal: text)
        case .string(let text)?: paise(fromDecimal: text)
        default: nil
        }
    }

    /// `"10.10"`: rupees with exactly two decimals (Instamojo, Setu, Cashfree webhooks).
    static func twoDecimals(_ paise: Int64) -> String {
        let sign = paise < 0 ? "-" : ""
        let magnitude = paise.magnitude
        let cents = magnitude % 100
        return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
    }

    /// `"10.1"`, `"170"`: the shortest exact decimal (Cashfree API responses).
    static func shortest(_ paise: Int64) -> String {
        var text = twoDecimals(paise)
        while text.hasSuffix("0"), text.contains(".") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
