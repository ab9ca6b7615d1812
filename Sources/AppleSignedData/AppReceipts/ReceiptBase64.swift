/// Standard base64 (RFC 4648 §4) as apps send receipts: whitespace and line breaks anywhere are
/// skipped (receipts pick them up in transit, and `base64EncodedString(options:)` can add them),
/// anything else outside the alphabet is refused, padding is optional but only at the end, and
/// unused trailing bits must be zero so that one receipt has exactly one text.
///
/// Foundation's decoder either refuses whitespace or, with `.ignoreUnknownCharacters`, accepts any
/// garbage; hence this one, on bytes.
enum ReceiptBase64 {
    static func decode(_ text: some StringProtocol, maximumBytes: Int) throws -> [UInt8] {
        var string = String(text)
        return try string.withUTF8 { try decode(utf8: $0, maximumBytes: maximumBytes) }
    }

    /// On the UTF-8 bytes directly: iterating a generic `StringProtocol` made decoding cost more
    /// than the RSA signature check (1,160 verifications/s from base64 against 9,350 from DER).
    private static func decode(utf8: UnsafeBufferPointer<UInt8>, maximumBytes: Int) throws -> [UInt8] {
        // Line breaks every 64 or 76 characters add under 2 %; anything far beyond is not a receipt.
        guard utf8.count <= 2 * (maximumBytes / 3 * 4) + 1024 else {
            throw AppReceiptVerificationError(.tooLarge, "\(utf8.count) characters of base64")
        }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count / 4 * 3)
        var accumulator: UInt32 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        for offset in utf8.indices {
            let value = table[Int(utf8[offset])]
            if value == whitespace { continue }
            if value == pad {
                padding += 1
                continue
            }
            guard value < 64, padding == 0 else {
                throw AppReceiptVerificationError(.notBase64, value < 64 ? "data after padding at character \(offset)" : "character \(offset) is outside the base64 alphabet")
            }
            symbols += 1
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        let remainder = symbols % 4
        guard remainder != 1, padding == 0 || (remainder >= 2 && remainder + padding == 4) else {
            throw AppReceiptVerificationError(.notBase64, "\(symbols) symbols and \(padding) padding characters")
        }
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else {
            throw AppReceiptVerificationError(.notBase64, "non-zero unused bits at the end")
        }
        guard !output.isEmpty else { throw AppReceiptVerificationError(.notBase64, "empty") }
        guard output.count <= maximumBytes else {
            throw AppReceiptVerificationError(.tooLarge, "\(output.count) bytes, limit \(maximumBytes)")
        }
        return output
    }

    private static let whitespace: UInt8 = 0xFE
    private static let pad: UInt8 = 0xFD

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        for character in " \t\r\n\u{0B}\u{0C}".utf8 {
            table[Int(character)] = whitespace
        }
        table[Int(UInt8(ascii: "="))] = pad
        return table
    }()
}
