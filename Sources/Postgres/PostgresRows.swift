import Foundation

/// The rows a statement returned, copied out of libpq so the result can cross threads
/// (`Sendable`) and libpq's memory is released at once.
public struct PostgresRows: Sendable, RandomAccessCollection {
    public let columns: [String]
    let values: [[String?]]
    let columnIndex: [String: Int]
    /// Rows changed by INSERT/UPDATE/DELETE (`PQcmdTuples`), or the row count for a SELECT.
    public let affectedRows: Int

    init(columns: [String], values: [[String?]], affectedRows: Int) {
        self.columns = columns
        self.values = values
        self.affectedRows = affectedRows
        var index: [String: Int] = [:]
        for (position, name) in columns.enumerated() where index[name] == nil { index[name] = position }
        self.columnIndex = index
    }

    public var startIndex: Int { values.startIndex }
    public var endIndex: Int { values.endIndex }
    public subscript(position: Int) -> PostgresRow { PostgresRow(rows: self, index: position) }
}

/// One row; columns are read by name and decoded to the Swift type the caller asks for.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// The raw text of a column, `nil` for SQL NULL. Traps on an unknown column name:
    /// that is a programming error in the statement, not a data problem.
    public subscript(column: String) -> String? {
        guard let position = rows.columnIndex[column] else {
            preconditionFailure("no column \(column) in result (columns: \(rows.columns))")
        }
        return rows.values[index][position]
    }

    /// Decodes a non-NULL column; throws `.decoding` for NULL or text of the wrong shape.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let text = self[column] else {
            throw PostgresError(.decoding, "column \(column) is NULL, expected \(T.self)")
        }
        guard let value = T(postgresText: text) else {
            throw PostgresError(.decoding, "column \(column) is not a valid \(T.self)")
        }
        return value
    }

    /// Decodes a column that may be NULL.
    public func decodeIfPresent<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T? {
        guard self[column] != nil else { return nil }
        return try decode(column, as: T.self)
    }
}

/// A Swift type read from PostgreSQL's text output format.
public protocol PostgresDecodable: Sendable {
    init?(postgresText: String)
}

extension String: PostgresDecodable {
    public init?(postgresText: String) { self = postgresText }
}

extension Int: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int64: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Double: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Bool: PostgresDecodable {
    public init?(postgresText: String) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension Date: PostgresDecodable {
    /// Reads `timestamptz` as the session prints it: every connection sets `DateStyle=ISO`
    /// and `TimeZone=UTC`, so the text is `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.
    public init?(postgresText: String) {
        let utf8 = Array(postgresText.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count else { return nil }
            var value = 0
            for byte in utf8[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var fraction = 0.0
        var position = 19
        if position < utf8.count, utf8[position] == UInt8(ascii: ".") {
            position += 1
            var scale = 0.1
            while position < utf8.count, utf8[position] >= 48, utf8[position] <= 57 {
                fraction += Double(utf8[position] - 48) * scale
                scale /= 10
                position += 1
            }
        }
        var offsetSeconds = 0
        if position < utf8.count {
            let sign = utf8[position] == UInt8(ascii: "-") ? -1 : 1
            let hours = number((position + 1)..<(position + 3)) ?? 0
            let minutes = position + 6 <= utf8.count ? (number((position + 4)..<(position + 6)) ?? 0) : 0
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        // Days since 1970-01-01 (proleptic Gregorian), Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        self.init(timeIntervalSince1970: seconds)
    }
}

extension UUID: PostgresDecodable {
    /// `uuid` as PostgreSQL prints it (lower-case, hyphenated).
    public init?(postgresText: String) { self.init(uuidString: postgresText) }
}
