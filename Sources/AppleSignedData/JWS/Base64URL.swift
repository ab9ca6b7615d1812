/// Base64url without padding (RFC 7515 §2), the alphabet of every JWS segment. Both directions
/// work on bytes directly: Foundation's base64 needs the standard alphabet and padding, and
/// rewriting the string through `replacingOccurrences` was the largest cost of signing after ECDSA.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The decoded bytes, or `nil` for a character outside the alphabet, padding, or a length
    /// that no byte string encodes to.
    ///
    /// Four characters to three bytes at a time, into storage sized once: every notification
    /// decodes its payload and the transaction inside it, and a byte-at-a-time loop (an append
    /// and a look-up of the shared table per character) was 5 % of the API's CPU under
    /// `bench notifications`.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(contiguous: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode(contiguous: $0) }
    }

    private static func decode(contiguous input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count % 4 != 1 else { return nil }
        let outputCount = count * 3 / 4
        var valid = true
        let output = table.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                // Values are 0…63; the table marks every other byte 0xFF, so one test of the
                // high bit over a group finds any character outside the alphabet.
                var i = 0, o = 0
                while i + 4 <= count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    guard (a | b | c | d) & 0x80 == 0 else { valid = false; break }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[o] = UInt8(truncatingIfNeeded: group >> 16)
                    output[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    output[o + 2] = UInt8(truncatingIfNeeded: group)
                    i += 4
                    o += 3
                }
                if valid, i < count {   // 2 or 3 characters left: 1 or 2 bytes
                    var group: UInt32 = 0
                    for k in i..<count {
                        let value = table[Int(input[k])]
                        guard value & 0x80 == 0 else { valid = false; break }
                        group = group << 6 | UInt32(value)
                    }
                    group <<= UInt32(6 * (4 - (count - i)))
                    output[o] = UInt8(truncatingIfNeeded: group >> 16)
                    if count - i == 3 { output[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                }
                initialized = valid ? outputCount : 0
            }
        }
        return valid ? output : nil
    }

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        return table
    }()
}
