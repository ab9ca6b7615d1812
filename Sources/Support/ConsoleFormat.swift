import Foundation

/// How the console writes figures for people: counts with thousands separators (`12,345`),
/// fractions as percentages (`1.5%`, `13%`), intervals in their largest whole unit (`21 s`, `3 min`,
/// `2 h`, `4 d`), moments relative to `now` (`21 s ago`, `in 3 min`). Text only, no markup; the
/// same on every machine (no locale: a console is read by operators, not localised).
enum ConsoleFormat {
    /// A JSON number (or a numeric string) as a Double; nil for anything else, booleans included.
    static func double(_ value: Any?) -> Double? {
        // On Linux a JSON boolean is a Bool or an NSNumber whose type code is a C char ("c").
        guard let value, type(of: value) != Bool.self else { return nil }
        if let text = value as? String { return Double(text) }
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number.doubleValue
    }

    /// Whole numbers with separators (`-1,234,567`); others to two decimals at most (`2.5`).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        if value == value.rounded(), abs(value) < 1e15 { return grouped(Int64(value)) }
        let hundredths = Int64((abs(value) * 100).rounded())
        guard hundredths > 0 else { return "0" }
        let whole = grouped(hundredths / 100), cents = hundredths % 100
        let decimals = cents % 10 == 0 ? String(cents / 10) : (cents < 10 ? "0" : "") + String(cents)
        return (value < 0 ? "-" : "") + whole + (cents == 0 ? "" : "." + decimals)
    }

    static func grouped(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A fraction as a percentage: to a tenth under 10% (`1.5%`), whole above (`13%`); a share
    /// too small to show is `< 0.1%`, never a misleading `0%`.
    static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "–" }
        let percent = fraction * 100
        if percent == 0 { return "0%" }
        if abs(percent) < 0.1 { return percent < 0 ? "> -0.1%" : "< 0.1%" }
        if abs(percent) < 10 {
            let tenths = (percent * 10).rounded() / 10
            return (tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)) + "%"
        }
        return String(Int(percent.rounded())) + "%"
    }

    /// An interval in its largest whole unit, rounded down: `0 s`, `< 1 s`, `21 s`, `3 min`,
    /// `2 h`, `4 d`. Negative intervals read as their length.
    static func duration(_ seconds: Double) -> String {
        let s = abs(seconds)
        guard s.isFinite else { return "–" }
        switch s {
        case 0: return "0 s"
        case ..<1: return "< 1 s"
        case ..<60: return "\(Int(s)) s"
        case ..<3600: return "\(Int(s / 60)) min"
        case ..<86_400: return "\(Int(s / 3600)) h"
        default: return grouped(Int64(s / 86_400)) + " d"
        }
    }

    /// `date` seen from `now`: `just now` within a second, else `21 s ago` or `in 3 min`.
    static func relative(_ date: Date, now: Date) -> String {
        let elapsed = now.timeIntervalSince(date)
        if abs(elapsed) < 1 { return "just now" }
        return elapsed > 0 ? duration(elapsed) + " ago" : "in " + duration(elapsed)
    }
}
