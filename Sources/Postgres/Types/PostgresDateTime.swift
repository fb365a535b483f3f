public import Foundation
import Support

/// A `timestamptz`: an exact instant in microseconds since 1970-01-01 00:00:00 UTC.
///
/// Microseconds are PostgreSQL's resolution; `Date` (a `Double`) cannot hold
/// them exactly, so this is the type that round-trips.
public struct PostgresTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible, PostgresEncodable, PostgresDecodable {
    /// Microseconds since the Unix epoch (negative before 1970).
    public var microsecondsSinceEpoch: Int64

    /// Wraps a microsecond count.
    public init(microsecondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = microsecondsSinceEpoch }

    /// The instant of `date`, rounded to the microsecond.
    public init(_ date: Date) {
        microsecondsSinceEpoch = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The instant as a `Date` (sub-microsecond rounding may apply).
    public var date: Date { Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000) }

    /// Earlier instants first.
    public static func < (lhs: PostgresTimestamp, rhs: PostgresTimestamp) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    /// ISO 8601 in UTC with microseconds: `2024-01-02 03:04:05.000006+00`.
    public var description: String {
        let (days, micros) = microsecondsSinceEpoch.quotientAndRemainderFlooring(86_400_000_000)
        let (year, month, day) = CivilCalendar.date(days: days)
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(fraction, 6))+00"
    }

    /// RFC 3339 in UTC to the second, as APIs print instants: `2024-01-02T03:04:05Z`
    /// (a fraction, when there is one, with milliseconds: `2024-01-02T03:04:05.120Z`).
    public var rfc3339: String {
        let (days, micros) = microsecondsSinceEpoch.quotientAndRemainderFlooring(86_400_000_000)
        let (year, month, day) = CivilCalendar.date(days: days)
        let seconds = micros / 1_000_000
        let millis = micros % 1_000_000 / 1000
        let fraction = millis == 0 ? "" : ".\(pad(millis, 3))"
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))\(fraction)Z"
    }

    /// `timestamptz`.
    public static var postgresDataType: PostgresDataType { .timestamptz }
    /// ISO text in UTC.
    public func encode(into buffer: inout [UInt8]) -> Bool { buffer.append(contentsOf: description.utf8); return true }

    /// From `timestamptz` text with any offset (`2024-01-02 03:04:05.5+05:30`), or `timestamp` read as UTC.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> PostgresTimestamp {
        guard type == .timestamptz || type == .timestamp else { throw PostgresDecodingFailure.typeMismatch(PostgresTimestamp.self, type) }
        var scanner = DigitScanner(text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip(" "), let hour = scanner.number(2), scanner.skip(":"),
              let minute = scanner.number(2), scanner.skip(":"), let second = scanner.number(2)
        else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
        var micros: Int64 = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.digit() {
                if digits < 6 { micros = micros * 10 + Int64(digit) }
                digits += 1
            }
            guard digits > 0 else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if !scanner.atEnd {
            let sign: Int64
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else {
                throw PostgresDecodingFailure("timestamp '\(String(decoding: text, as: UTF8.self))' is outside the supported range (BC, infinity)")
            }
            guard let offsetHours = scanner.number(2) else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
            var offset = offsetHours * 3600
            if scanner.skip(":") {
                guard let offsetMinutes = scanner.number(2) else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
                offset += offsetMinutes * 60
                if scanner.skip(":") {
                    guard let offsetSecs = scanner.number(2) else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
                    offset += offsetSecs
                }
            }
            offsetSeconds = sign * offset
            guard scanner.atEnd else { throw PostgresDecodingFailure.malformed(PostgresTimestamp.self, text) }
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return PostgresTimestamp(microsecondsSinceEpoch: seconds * 1_000_000 + micros)
    }
}

/// A `date`: a calendar day without time zone.
public struct PostgresDate: Hashable, Comparable, Sendable, CustomStringConvertible, PostgresEncodable, PostgresDecodable {
    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int64

    /// Wraps a day count.
    public init(daysSinceEpoch: Int64) { self.daysSinceEpoch = daysSinceEpoch }

    /// A calendar day (proleptic Gregorian); nil if the day does not exist or the year is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let check = CivilCalendar.date(days: days)
        guard check.month == month, check.day == day else { return nil }
        daysSinceEpoch = days
    }

    /// Year, month, day.
    public var components: (year: Int, month: Int, day: Int) {
        let civil = CivilCalendar.date(days: daysSinceEpoch)
        return (Int(civil.year), Int(civil.month), Int(civil.day))
    }

    /// Earlier days first.
    public static func < (lhs: PostgresDate, rhs: PostgresDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    /// `YYYY-MM-DD`.
    public var description: String {
        let civil = CivilCalendar.date(days: daysSinceEpoch)
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))"
    }

    /// `date`.
    public static var postgresDataType: PostgresDataType { .date }
    /// `YYYY-MM-DD`.
    public func encode(into buffer: inout [UInt8]) -> Bool { buffer.append(contentsOf: description.utf8); return true }
    /// From `date` in ISO style.
    public static func decode(text: UnsafeRawBufferPointer, type: PostgresDataType) throws -> PostgresDate {
        guard type == .date else { throw PostgresDecodingFailure.typeMismatch(PostgresDate.self, type) }
        var scanner = DigitScanner(text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.atEnd
        else { throw PostgresDecodingFailure("date '\(String(decoding: text, as: UTF8.self))' is malformed or outside 0001...9999 (BC, infinity)") }
        return PostgresDate(daysSinceEpoch: CivilCalendar.days(year: year, month: month, day: day))
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

extension Int64 {
    /// Floor division and the matching non-negative remainder.
    fileprivate func quotientAndRemainderFlooring(_ divisor: Int64) -> (Int64, Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}

/// Reads fixed-width ASCII numbers and separators from a buffer.
struct DigitScanner {
    private let text: UnsafeRawBufferPointer
    private var index = 0
    init(_ text: UnsafeRawBufferPointer) { self.text = text }

    var atEnd: Bool { index >= text.count }

    mutating func digit() -> Int? {
        guard index < text.count else { return nil }
        let value = text[index] &- UInt8(ascii: "0")
        guard value < 10 else { return nil }
        index += 1
        return Int(value)
    }

    /// Exactly `width` digits (more digits allowed for a year).
    mutating func number(_ width: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while let next = digit() {
            value = value * 10 + Int64(next)
            count += 1
            if count > 9 { return nil }
            if width != 4 && count == width { break }
        }
        return count >= width ? value : nil
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < text.count, text[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }
}
