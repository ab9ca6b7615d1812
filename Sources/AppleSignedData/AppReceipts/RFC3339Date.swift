import Foundation

/// The dates of a receipt: RFC 3339 text such as `2025-06-15T12:00:00Z`. Older Xcode receipts write
/// the offset without a colon (`+0800`), some tools add fractional seconds; both are read. Parsed by
/// hand because `ISO8601DateFormatter` is slow and needs one format per shape.
enum RFC3339Date {
    static func parse(_ text: ArraySlice<UInt8>) -> Date? {
        var reader = Reader(bytes: text)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
              let day = reader.digits(2), reader.skip("T") || reader.skip("t") || reader.skip(" "),
              let hour = reader.digits(2), reader.skip(":"), let minute = reader.digits(2), reader.skip(":"),
              let second = reader.digits(2)
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            var scale = 0.1
            var count = 0
            while let digit = reader.digits(1) {
                fraction += Double(digit) * scale
                scale /= 10
                count += 1
            }
            guard count >= 1, count <= 9 else { return nil }
        }
        var offset = 0
        if reader.skip("Z") || reader.skip("z") {
            offset = 0
        } else {
            let sign = reader.skip("+") ? 1 : reader.skip("-") ? -1 : 0
            guard sign != 0, let hours = reader.digits(2) else { return nil }
            _ = reader.skip(":")
            guard let minutes = reader.digits(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd, month >= 1, month <= 12, day >= 1, day <= daysIn(month, of: year),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` ASCII digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.endIndex else { return nil }
            var value = 0
            for offset in index..<(index + count) {
                let digit = bytes[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += count
            return value
        }
    }
}
