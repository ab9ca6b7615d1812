import Foundation

/// Timestamps as the console reads and prints them. Read: PostgreSQL's JSON
/// (`2026-11-26T09:47:41.907818+00:00`, whatever the session's offset), Foundation's ISO 8601
/// (`2026-11-26T09:47:41Z`), and Apple's milliseconds since 1970 (a JSON number). Printed in UTC,
/// to the second for people and to the millisecond for `<time datetime>`. Plain arithmetic on the
/// proleptic Gregorian calendar — no formatter, locale or time-zone database — so a page reads the
/// same on every machine and costs nothing per cell.
enum ConsoleTimestamp {
    /// `value` as a moment: text in ISO 8601, or a number of milliseconds since 1970 (Apple's
    /// `purchaseDate`, `revocationDate`…). Nil when it is neither.
    static func date(_ value: Any?) -> Date? {
        if let text = value as? String { return parse(text) }
        return ConsoleFormat.double(value).map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// `YYYY-MM-DD[T ]hh:mm:ss[.fraction][Z|±hh[:mm[:ss]]|±hhmm]`; no offset reads as UTC.
    static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A,
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              let hour = digits(b, 11, 2), let minute = digits(b, 14, 2), let second = digits(b, 17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 0x2E {
            var scale = 0.1
            i += 1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < b.count {
            if b[i] == 0x5A, i + 1 == b.count {
                i += 1
            } else if b[i] == 0x2B || b[i] == 0x2D {
                let sign = b[i] == 0x2D ? -1 : 1
                let zone = Array(b[(i + 1)...]).filter { $0 != 0x3A }   // hh, hhmm or hhmmss
                guard [2, 4, 6].contains(zone.count), let hh = digits(zone, 0, 2), hh < 24 else { return nil }
                let mm = zone.count >= 4 ? digits(zone, 2, 2) : 0, ss = zone.count == 6 ? digits(zone, 4, 2) : 0
                guard let mm, let ss, mm < 60, ss < 60 else { return nil }
                offset = sign * (hh * 3600 + mm * 60 + ss)
                i = b.count
            } else {
                return nil
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// For people: `2026-11-26 09:47:41 UTC`.
    static func exact(_ date: Date) -> String {
        let (day, second) = split(date, unitsPerSecond: 1)
        let (y, m, d) = civil(fromDays: day)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2)) \(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)) UTC"
    }

    /// For machines (`<time datetime>`): `2026-11-26T09:47:41.907Z`.
    static func machine(_ date: Date) -> String {
        let (day, milli) = split(date, unitsPerSecond: 1000)
        let (y, m, d) = civil(fromDays: day)
        let second = milli / 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)).\(pad(milli % 1000, 3))Z"
    }

    /// The day since 1970 and the units (seconds or milliseconds) into it, rounded down.
    private static func split(_ date: Date, unitsPerSecond: Int) -> (day: Int, unit: Int) {
        let units = Int((date.timeIntervalSince1970 * Double(unitsPerSecond)).rounded(.down))
        let perDay = 86_400 * unitsPerSecond
        let day = units >= 0 ? units / perDay : (units - perDay + 1) / perDay
        return (day, units - day * perDay)
    }

    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Days since 1970-01-01 of a Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian date of a day since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
