import Foundation
import SwiftASN1

/// Reads the value octets of one receipt field as the ASN.1 type Apple's field table gives it.
/// A field of the wrong type or form refuses the receipt (`unparsableAttribute`): silently dropping
/// a bundle id or a transaction id would hide a problem, not tolerate one.
struct ReceiptFieldValue {
    let type: Int
    let value: [UInt8]
    let limits: AppReceiptLimits

    /// A UTF8String; Apple is not consistent about string types, so IA5String and PrintableString too.
    func string() throws -> String {
        let node = try element()
        guard [.utf8String, .ia5String, .printableString].contains(node.identifier),
              case .primitive(let bytes) = node.content,
              let string = String(validating: bytes, as: UTF8.self)
        else { throw failure("not a UTF-8 string") }
        return string
    }

    /// An RFC 3339 date in an IA5String; the empty string, which Apple writes for "none", is `nil`.
    func date() throws -> Date? {
        let text = try string()
        guard !text.isEmpty else { return nil }
        guard let date = RFC3339Date.parse(text.utf8) else { throw failure("not an RFC 3339 date") }
        return date
    }

    func integer() throws -> Int64 {
        let node = try element()
        guard node.identifier == .integer, let value = try? Int64(berEncoded: node) else {
            throw failure("not an INTEGER that fits 64 bits")
        }
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

    func element() throws -> ASN1Node {
        do {
            return try ReceiptASN1.parse(value[...], limits: limits)
        } catch let error as AppReceiptVerificationError {
            throw failure(error.reason.summary)
        }
    }
}
