#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Support

/// Wall-clock time and the date formats the providers use.
enum Clock {
    /// Milliseconds since the Unix epoch.
    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Seconds since the Unix epoch.
    static func now() -> Int64 { nowMilliseconds() / 1000 }

    /// `2025-05-05T18:02:46+05:30`: ISO 8601 in India Standard Time (Cashfree).
    static func istISO(_ seconds: Int64) -> String {
        let c = civil(seconds + 19_800)
        return "\(c.date)T\(c.time)+05:30"
    }

    /// `2025-05-05T12:36:34.665000Z`: ISO 8601 UTC with microseconds (Instamojo).
    static func utcISO(milliseconds: Int64) -> String {
        let c = civil(milliseconds / 1000)
        let ms = Int(milliseconds % 1000)
        return "\(c.date)T\(c.time).\(pad(ms, 3))000Z"
    }

    /// `2024-03-19 12:30:45`: UTC (Setu payment-event style).
    static func utcSpaced(_ seconds: Int64) -> String {
        let c = civil(seconds)
        return "\(c.date) \(c.time)"
    }

    /// `19-03-2024 12:30:45`: day first (Setu `paidOn`).
    static func dayFirst(_ seconds: Int64) -> String {
        let c = civil(seconds)
        return "\(pad(c.day, 2))-\(pad(c.month, 2))-\(c.year) \(c.time)"
    }

    /// Seconds since the epoch from an ISO 8601 date-time with `Z` or `±HH:MM`
    /// (`2025-06-04T18:02:46+05:30`, fractional seconds allowed); nil if malformed.
    static func parseISO(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= chars.count else { return nil }
            var value = 0
            for i in from..<(from + count) {
                guard chars[i] >= 48, chars[i] <= 57 else { return nil }
                value = value * 10 + Int(chars[i] - 48)
            }
            return value
        }
        guard chars.count >= 20,
              let year = number(0, 4), chars[4] == UInt8(ascii: "-"),
              let month = number(5, 2), chars[7] == UInt8(ascii: "-"),
              let day = number(8, 2), chars[10] == UInt8(ascii: "T"),
              let hour = number(11, 2), chars[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), chars[16] == UInt8(ascii: ":"),
              let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 { index += 1 }
            guard index > start else { return nil }
        }
        guard index < chars.count else { return nil }
        var offset = 0
        if chars[index] == UInt8(ascii: "Z") {
            index += 1
        } else if chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let sign = chars[index] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = number(index + 1, 2), index + 3 < chars.count, chars[index + 3] == UInt8(ascii: ":"),
                  let om = number(index + 4, 2) else { return nil }
            offset = sign * (oh * 3600 + om * 60)
            index += 6
        } else {
            return nil
        }
        guard index == chars.count else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
    }

    /// Whether `text` is `YYYY-MM-DD HH:MM:SS`.
    static func isSpacedDateTime(_ text: String) -> Bool {
        let chars = Array(text)
        guard chars.count == 19 else { return false }
        for (i, c) in chars.enumerated() {
            switch i {
            case 4, 7: if c != "-" { return false }
            case 10: if c != " " { return false }
            case 13, 16: if c != ":" { return false }
            default: if !c.isASCIIDigit { return false }
            }
        }
        return true
    }

    private struct Civil {
        let year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
        var date: String { "\(year)-\(Clock.pad(month, 2))-\(Clock.pad(day, 2))" }
        var time: String { "\(Clock.pad(hour, 2)):\(Clock.pad(minute, 2)):\(Clock.pad(second, 2))" }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Seconds outside 1970–9999 are clamped to them (the sandbox only writes times from
    /// now on): no arithmetic overflow, always four year digits.
    private static func civil(_ seconds: Int64) -> Civil {
        let (days, secondOfDay) = CivilCalendar.dayAndSecond(unixSeconds: min(max(seconds, 0), 253_402_300_799))
        let date = CivilCalendar.date(days: days)
        let second = Int(secondOfDay)
        return Civil(year: Int(date.year), month: Int(date.month), day: Int(date.day),
                     hour: second / 3600, minute: second % 3600 / 60, second: second % 60)
    }
}

extension Clock {
    /// Whether `text` is a `YYYY-MM-DD` date (Cashfree's `x-api-version`).
    static func isDate(_ text: String) -> Bool {
        let chars = Array(text)
        guard chars.count == 10, chars[4] == "-", chars[7] == "-" else { return false }
        let digits = chars.enumerated().filter { $0.offset != 4 && $0.offset != 7 }.map(\.element)
        guard digits.allSatisfy(\.isASCIIDigit), let month = Int(String(chars[5...6])), let day = Int(String(chars[8...9])) else {
            return false
        }
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
