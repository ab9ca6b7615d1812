import Foundation
@testable import Support
import Testing

/// How the console writes figures and moments for people (pure: no database, no clock).
@Suite("Console format: counts, percentages, intervals, relative and exact times")
struct ConsoleFormatTests {
    static let numbers: [(Double, String)] = [(0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (12_345, "12,345"), (1_234_567, "1,234,567"),
                                              (-1234, "-1,234"), (2.5, "2.5"), (0.25, "0.25"), (1234.567, "1,234.57"), (0.001, "0"), (99.999, "100")]
    static let fractions: [(Double, String)] = [(0, "0%"), (0.5, "50%"), (1, "100%"), (0.125, "13%"), (0.015, "1.5%"), (0.05, "5%"), (0.0123, "1.2%"),
                                                (0.0004, "< 0.1%"), (0.1234, "12%")]
    static let intervals: [(Double, String)] = [(0, "0 s"), (0.4, "< 1 s"), (21, "21 s"), (59.9, "59 s"), (60, "1 min"), (200, "3 min"),
                                                (3600, "1 h"), (3 * 3600 + 1800, "3 h"), (86_400 * 4 + 5, "4 d"), (86_400 * 1500, "1,500 d"), (-90, "1 min")]
    static let timestamps: [(String, Double)] = [
        ("2026-11-26T09:47:41.907818+00:00", 1_795_686_461.907818),   // PostgreSQL's JSON
        ("2026-11-26T10:47:41.907818+01:00", 1_795_686_461.907818),   // another session time zone
        ("2026-11-26T04:17:41.907818-05:30", 1_795_686_461.907818),
        ("2026-11-26T09:47:41Z", 1_795_686_461),                      // Foundation's ISO 8601
        ("2026-11-26T09:47:41+00", 1_795_686_461),
        ("2026-11-26 09:47:41", 1_795_686_461),                       // no offset: UTC
        ("2024-02-29T00:00:00Z", 1_709_164_800),                      // a leap day
        ("1969-12-31T23:59:59Z", -1),
    ]

    @Test(arguments: numbers)
    func countsHaveThousandsSeparatorsAndAtMostTwoDecimals(value: Double, expected: String) {
        #expect(ConsoleFormat.number(value) == expected)
    }

    @Test(arguments: fractions)
    func fractionsArePercentages(fraction: Double, expected: String) {
        #expect(ConsoleFormat.percent(fraction) == expected)
    }

    @Test(arguments: intervals)
    func intervalsReadInTheirLargestWholeUnit(seconds: Double, expected: String) {
        #expect(ConsoleFormat.duration(seconds) == expected)
    }

    @Test func momentsReadRelativeToTheInjectedNow() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ConsoleFormat.relative(now, now: now) == "just now")
        #expect(ConsoleFormat.relative(now.addingTimeInterval(-0.6), now: now) == "just now")
        #expect(ConsoleFormat.relative(now.addingTimeInterval(-21), now: now) == "21 s ago")
        #expect(ConsoleFormat.relative(now.addingTimeInterval(-3 * 3600 - 59), now: now) == "3 h ago")
        #expect(ConsoleFormat.relative(now.addingTimeInterval(180), now: now) == "in 3 min")
        #expect(ConsoleFormat.relative(now.addingTimeInterval(-2 * 86_400), now: now) == "2 d ago")
    }

    @Test func jsonNumbersAreReadAndBooleansAreNot() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(#"{"n": 12.5, "i": 3, "b": true, "s": "7", "x": "no"}"#.utf8)) as? [String: Any])
        #expect(ConsoleFormat.double(object["n"]) == 12.5)
        #expect(ConsoleFormat.double(object["i"]) == 3)
        #expect(ConsoleFormat.double(object["s"]) == 7)
        #expect(ConsoleFormat.double(object["b"]) == nil)
        #expect(ConsoleFormat.double(object["x"]) == nil)
        #expect(ConsoleFormat.double(nil) == nil)
    }

    @Test(arguments: timestamps)
    func timestampsAreReadWhateverTheirOffset(text: String, seconds: Double) throws {
        let date = try #require(ConsoleTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_01, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test(arguments: ["", "granted", "2026-11-26", "2026-13-01T00:00:00Z", "2026-11-26T09:47:41.Z", "2026-11-26T09:47:41+5", "2026-11-26T09:47:41Zz",
                      "20261126T094741Z"])
    func notATimestampIsNotRead(text: String) {
        #expect(ConsoleTimestamp.parse(text) == nil)
    }

    @Test func momentsArePrintedInUTCForPeopleAndMachines() throws {
        let date = try #require(ConsoleTimestamp.parse("2026-11-26T10:47:41.907818+01:00"))
        #expect(ConsoleTimestamp.exact(date) == "2026-11-26 09:47:41 UTC")
        #expect(ConsoleTimestamp.machine(date) == "2026-11-26T09:47:41.907Z")
        #expect(ConsoleTimestamp.exact(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59 UTC")
        // Apple's dates are milliseconds since 1970, as JSON numbers.
        #expect(ConsoleTimestamp.date(NSNumber(value: 1_795_686_461_907 as Int64)).map(ConsoleTimestamp.machine) == "2026-11-26T09:47:41.907Z")
    }

    @Test func everyDayOfFourCenturiesRoundTrips() {
        for day in stride(from: -146_097, through: 146_097, by: 1) {
            let (y, m, d) = ConsoleTimestamp.civil(fromDays: day)
            guard ConsoleTimestamp.daysFromCivil(year: y, month: m, day: d) == day else {
                Issue.record("day \(day) read back as \(y)-\(m)-\(d)")
                return
            }
        }
    }
}
