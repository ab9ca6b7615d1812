import Foundation

/// A Swift value sent as a statement parameter in PostgreSQL's text format.
///
/// Parameters always travel separately from the SQL text (`PQexecParams`), so no value is ever
/// spliced into a statement. An array travels as one parameter, which is how a batch of a
/// thousand rows goes to the server in one round trip (`unnest($1::bigint[])`): arrays of
/// strings in PostgreSQL's binary format (`PostgresParameters`), the rest as one array literal.
public protocol PostgresEncodable: Sendable {
    /// The value in PostgreSQL's text input format.
    var postgresText: String { get }
}

/// An element of an array parameter (`nil` elements become SQL NULL).
public protocol PostgresArrayElement: Sendable {
    /// The element inside an array literal, quoted as needed; `nil` for NULL.
    var postgresArrayElement: String? { get }
}

extension String: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { self }
    public var postgresArrayElement: String? {
        // Fast path: most values (base64 receipts, ids) contain nothing to escape. Receipt batches
        // carry megabytes, so this matters: the scan runs over contiguous UTF-8 (through
        // `String.UTF8View` it cost 2 % of the CPU of `bench api`) and the copy is sized once.
        let needsEscape = utf8.withContiguousStorageIfAvailable { $0.contains(where: String.isArrayEscaped) }
            ?? utf8.contains(where: String.isArrayEscaped)
        if !needsEscape {
            var quoted = "\""
            quoted.reserveCapacity(utf8.count + 2)
            quoted.append(self)
            quoted.append("\"")
            return quoted
        }
        var quoted = "\""
        quoted.reserveCapacity(utf8.count + 2)
        for character in unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        quoted.append("\"")
        return quoted
    }
}

extension String {
    fileprivate static func isArrayEscaped(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}

extension Substring: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { String(self) }
    public var postgresArrayElement: String? { String(self) }
}

extension Int64: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { String(self) }
    public var postgresArrayElement: String? { String(self) }
}

extension Int32: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { String(self) }
    public var postgresArrayElement: String? { String(self) }
}

extension Double: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { String(self) }
    public var postgresArrayElement: String? { String(self) }
}

extension Bool: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { self ? "t" : "f" }
    public var postgresArrayElement: String? { postgresText }
}

extension Optional: PostgresArrayElement where Wrapped: PostgresArrayElement {
    public var postgresArrayElement: String? { self?.postgresArrayElement ?? nil }
}

extension Array: PostgresEncodable where Element: PostgresArrayElement {
    public var postgresText: String {
        // Elements first, so the literal (megabytes for a batch of receipts) is allocated once.
        let elements = map { $0.postgresArrayElement ?? "NULL" }
        var literal = "{"
        literal.reserveCapacity(elements.reduce(2 + elements.count) { $0 + $1.utf8.count })
        for (index, element) in elements.enumerated() {
            if index > 0 { literal.append(",") }
            literal.append(element)
        }
        literal.append("}")
        return literal
    }
}

extension UUID: PostgresEncodable, PostgresArrayElement {
    public var postgresText: String { uuidString }
    public var postgresArrayElement: String? { uuidString }
}
