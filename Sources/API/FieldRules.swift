import Foundation

/// Checks shared by every field a client sends: required, length (the same bounds the schema's
/// CHECK constraints enforce, so a bad field is a 400 and never fails a whole group commit),
/// and no control characters (PostgreSQL text cannot hold NUL).
enum FieldRules {
    /// Identifier fields and their longest length in characters.
    static let maxLengths: [String: Int] = [
        "transaction_id": 64, "user_id": 256, "product_id": 256, "order_id": 256,
    ]

    static func identifier(_ value: String?, _ name: String) throws -> String {
        guard let value else { throw Problem.invalid(name, "\(name) is required") }
        try check(value, name)
        return value
    }

    static func optionalIdentifier(_ value: String?, _ name: String) throws -> String? {
        guard let value else { return nil }
        try check(value, name)
        return value
    }

    /// A UUID in its text form (StoreKit 2's appAccountToken), or nil when absent.
    static func optionalUUID(_ value: String?, _ name: String) throws -> UUID? {
        guard let value else { return nil }
        guard value.utf8.count == 36, let uuid = UUID(uuidString: value) else { throw Problem.invalid(name, "\(name) must be a UUID") }
        return uuid
    }

    private static func check(_ value: String, _ name: String) throws {
        let limit = maxLengths[name] ?? 256
        guard !value.isEmpty else { throw Problem.invalid(name, "\(name) must not be empty") }
        // Code points, as PostgreSQL's length() and JSON Schema's maxLength count them.
        guard value.unicodeScalars.count <= limit else { throw Problem.invalid(name, "\(name) is longer than \(limit) characters") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw Problem.invalid(name, "\(name) contains control characters")
        }
    }

    /// Base64 with whitespace anywhere (iOS wraps lines), `=` padding only at the end.
    ///
    /// Runs over the string's contiguous UTF-8 with a class table: this check reads every byte of
    /// every receipt (6 KiB typical), and iterating `String.UTF8View` byte by byte cost 3–4 % of
    /// the CPU of `bench api`.
    static func isBase64(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isBase64(bytes:)) ?? isBase64(bytes: Array(text.utf8))
    }

    private static func isBase64(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        base64Classes.withUnsafeBufferPointer { classes in
            var count = 0
            var padding = 0
            for byte in bytes {
                switch classes[Int(byte)] {
                case Base64Class.symbol:
                    guard padding == 0 else { return false }
                    count += 1
                case Base64Class.whitespace: continue
                case Base64Class.padding: padding += 1
                default: return false
                }
            }
            guard count > 0, padding <= 2 else { return false }
            return padding == 0 ? count % 4 != 1 : (count + padding) % 4 == 0
        }
    }

    private static func isBase64(bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(isBase64(bytes:))
    }

    private enum Base64Class {
        static let invalid: UInt8 = 0, symbol: UInt8 = 1, whitespace: UInt8 = 2, padding: UInt8 = 3
    }

    /// The class of each byte: base64 symbol, tolerated whitespace (space, tab, CR, LF), `=`, or invalid.
    private static let base64Classes: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch UInt8(byte) {
        case 32, 9, 10, 13: Base64Class.whitespace
        case UInt8(ascii: "="): Base64Class.padding
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): Base64Class.symbol
        default: Base64Class.invalid
        }
    }
}
