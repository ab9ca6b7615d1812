/// A Swift value sent as a statement parameter in PostgreSQL's text format.
///
/// Parameters always travel separately from the SQL text (`PQexecParams`), so no value is ever
/// spliced into a statement. Arrays travel as one array literal, which is how a batch of a
/// thousand rows goes to the server in one round trip (`unnest($1::bigint[])`).
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
        // carry megabytes, so this matters.
        if !utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + self + "\""
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
        var literal = "{"
        for (index, element) in enumerated() {
            if index > 0 { literal.append(",") }
            literal.append(element.postgresArrayElement ?? "NULL")
        }
        literal.append("}")
        return literal
    }
}
