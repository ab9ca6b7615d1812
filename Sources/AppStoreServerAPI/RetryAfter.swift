import Foundation

/// Reads a 429's `Retry-After`. Apple documents it as "a UNIX time, in milliseconds"; HTTP
/// (RFC 9110) defines it as a number of seconds. Both are integers, told apart by size: a value of
/// at least 10^11 is milliseconds since 1970 (10^11 ms is March 1973), anything smaller a delay in
/// seconds from `now`. Anything else (an HTTP date, garbage, a negative number) is `nil`, and the
/// caller pauses for its default.
public enum RetryAfter {
    public static func parse(_ value: String?, now: Date) -> Date? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), let number = Int64(text), number >= 0 else { return nil }
        if number >= 100_000_000_000 {
            return Date(timeIntervalSince1970: TimeInterval(number) / 1_000)
        }
        return now.addingTimeInterval(TimeInterval(number))
    }
}
