/// Days ↔ civil dates in the proleptic Gregorian calendar, after Howard
/// Hinnant's `days_from_civil` / `civil_from_days` algorithms
/// (https://howardhinnant.github.io/date_algorithms.html): exact integer
/// arithmetic, no Foundation, no time zones (UTC).
public enum CivilCalendar {
    /// Days since 1970-01-01 of `year`-`month`-`day` (month 1–12, day 1–31; not
    /// validated). Callers bound `year` (the arithmetic is exact for |year| < 10^15).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of day `days` since 1970-01-01. Callers bound `days`
    /// (exact for |days| < 10^17).
    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The floor of `seconds / 86_400` (days since the epoch, also before it) and
    /// the second of that day (0..<86_400).
    public static func dayAndSecond(unixSeconds seconds: Int64) -> (day: Int64, second: Int64) {
        let (quotient, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
        return remainder < 0 ? (quotient - 1, remainder + 86_400) : (quotient, remainder)
    }
}
