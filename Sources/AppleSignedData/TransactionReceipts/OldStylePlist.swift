/// The one old-style (NeXTSTEP) property list shape Apple's iOS 6 transaction receipts use: a
/// dictionary of strings, `{ "key" = "value"; … }`, keys and values quoted (with `\"`, `\\`,
/// `\n`, `\t` escapes) or bare words. Nothing else — no nested dictionaries, arrays or data:
/// anything outside the shape is refused, never guessed at.
///
/// Pure and bounded: it reads at most the bytes it is given, once, and keeps at most
/// `maximumEntries` entries.
enum OldStylePlist {
    static let maximumEntries = 256

    /// The dictionary, or nil when `bytes` is not exactly one such dictionary (whitespace around
    /// it allowed). A key given twice is refused.
    static func dictionary(_ bytes: [UInt8]) -> [String: String]? {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var entries: [String: String] = [:]
        while true {
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: "}")) { break }
            guard entries.count < maximumEntries, let key = reader.string() else { return nil }
            reader.skipWhitespace()
            guard reader.take(UInt8(ascii: "=")) else { return nil }
            reader.skipWhitespace()
            guard let value = reader.string() else { return nil }
            reader.skipWhitespace()
            guard reader.take(UInt8(ascii: ";")), entries.updateValue(value, forKey: key) == nil else { return nil }
        }
        reader.skipWhitespace()
        return reader.atEnd ? entries : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func skipWhitespace() {
            while position < bytes.count, [9, 10, 13, 32].contains(bytes[position]) { position += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// A quoted string (escapes resolved) or a bare word of letters, digits and `._-/:`.
        mutating func string() -> String? {
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "\"") {
                position += 1
                var value: [UInt8] = []
                while position < bytes.count {
                    let byte = bytes[position]
                    position += 1
                    switch byte {
                    case UInt8(ascii: "\""):
                        return String(validating: value, as: UTF8.self)
                    case UInt8(ascii: "\\"):
                        guard position < bytes.count else { return nil }
                        let escaped = bytes[position]
                        position += 1
                        switch escaped {
                        case UInt8(ascii: "n"): value.append(10)
                        case UInt8(ascii: "t"): value.append(9)
                        case UInt8(ascii: "\""), UInt8(ascii: "\\"): value.append(escaped)
                        default: return nil
                        }
                    default:
                        value.append(byte)
                    }
                }
                return nil   // unterminated
            }
            let start = position
            while position < bytes.count, Self.isBare(bytes[position]) { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        private static func isBare(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }
}
