import Foundation

/// Apple signs and dates everything in whole milliseconds; the subscription model keeps dates at
/// that precision, so a fact compares equal to itself after the snapshot's round trip through
/// JSON. (Before, `.millisecondsSince1970` stored `seconds × 1000` as a fraction and read it back
/// divided by 1000, which is not always the same `Date`: a repeated fact then looked one ulp
/// later than the stored one and was applied again — rarely, as it depended on the date's bits.)
extension Date {
    /// This instant rounded to the nearest millisecond.
    var wholeMilliseconds: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    /// Whole milliseconds since 1970, rounded.
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The snapshot's date encoding: whole milliseconds, an integer.
    static let wholeMillisecondsEncoding = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(date.millisecondsSince1970)
    }

    /// Reads whole milliseconds, and the fractional ones earlier snapshots hold, at that precision.
    static let wholeMillisecondsDecoding = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let milliseconds = try decoder.singleValueContainer().decode(Double.self)
        return Date(timeIntervalSince1970: milliseconds.rounded() / 1000)
    }
}
