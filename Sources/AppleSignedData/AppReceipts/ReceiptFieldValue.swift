import Foundation

/// Reads the value octets of one receipt field as the ASN.1 type Apple's field table gives it: a
/// single primitive element of definite length filling the value exactly. A field of the wrong
/// type or form refuses the receipt (`unparsableAttribute`): silently dropping a bundle id or a
/// transaction id would hide a problem, not tolerate one.
struct ReceiptFieldValue {
    let type: Int
    let value: ArraySlice<UInt8>

    /// A UTF8String; Apple is not consistent about string types, so IA5String and PrintableString too.
    func string() throws -> String {
        let element = try element()
        guard element.tag == 0x0C || element.tag == 0x16 || element.tag == 0x13,
              let string = String(validating: element.contents, as: UTF8.self)
        else {
            throw failure("not a UTF-8 string")
        }
        return string
    }

    /// An RFC 3339 date in an IA5String; the empty string, which Apple writes for "none", is `nil`.
    func date() throws -> Date? {
        let element = try element()
        guard element.tag == 0x16 || element.tag == 0x0C else { throw failure("not a date string") }
        guard !element.contents.isEmpty else { return nil }
        guard let date = RFC3339Date.parse(element.contents) else { throw failure("not an RFC 3339 date") }
        return date
    }

    /// A minimally encoded INTEGER that fits `Int64`.
    func integer() throws -> Int64 {
        var cursor = DERCursor(value)
        guard let value = cursor.nextInteger(), cursor.isAtEnd else { throw failure("not an INTEGER that fits 64 bits") }
        return value
    }

    /// An INTEGER flag: 0 is false, anything else true.
    func flag() throws -> Bool { try integer() != 0 }

    /// A non-negative INTEGER that fits `Int`, such as a quantity.
    func count() throws -> Int {
        let value = try integer()
        guard value >= 0, let count = Int(exactly: value) else { throw failure("negative") }
        return count
    }

    func failure(_ problem: String) -> AppReceiptVerificationError {
        AppReceiptVerificationError(.unparsableAttribute, "field \(type): \(problem)")
    }

    /// The one primitive element `value` must consist of.
    private func element() throws -> DERCursor.Element {
        var cursor = DERCursor(value)
        guard let element = cursor.next(), element.tag & 0x20 == 0, cursor.isAtEnd else {
            throw failure("not one primitive element")
        }
        return element
    }
}
