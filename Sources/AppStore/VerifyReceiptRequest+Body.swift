import HTTPClient

extension VerifyReceiptRequest {
    /// The body as an `HTTPBody`, written in one pass into memory libcurl sends in place.
    ///
    /// Byte for byte what `JSONEncoder` made with `[.sortedKeys, .withoutEscapingSlashes]`
    /// (`VerifyReceiptRequestTests` compares the two), without it: the encoder walked a 6 KiB
    /// receipt character by character through a generic container, then the `Data` was copied
    /// into an array — measured below as part of the worker's CPU per verification.
    public func httpBody() -> HTTPBody {
        let password = self.password.map { JSONText(escaping: $0) }
        let receipt = JSONText(escaping: receiptData)
        let flag: StaticString = excludeOldTransactions ? "true" : "false"
        var capacity = Self.head.utf8CodeUnitCount + flag.utf8CodeUnitCount + Self.receiptKey.utf8CodeUnitCount + receipt.length + 2
        if let password { capacity += Self.passwordKey.utf8CodeUnitCount + password.length + 2 }
        return HTTPBody(capacity: capacity) { buffer in
            var writer = ByteWriter(buffer)
            writer.append(Self.head)
            writer.append(flag)
            if let password {
                writer.append(Self.passwordKey)
                password.write(into: &writer)
            }
            writer.append(Self.receiptKey)
            receipt.write(into: &writer)
            writer.append(UInt8(ascii: "}"))
            return writer.position
        }
    }

    private static let head: StaticString = #"{"exclude-old-transactions":"#
    private static let passwordKey: StaticString = #","password":"#
    private static let receiptKey: StaticString = #","receipt-data":"#
}

/// Writes into a buffer sized exactly beforehand.
struct ByteWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var position = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    mutating func append(_ byte: UInt8) {
        buffer[position] = byte
        position += 1
    }

    mutating func append(_ text: StaticString) {
        let bytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        UnsafeMutableRawBufferPointer(rebasing: buffer[position..<(position + bytes.count)]).copyMemory(from: bytes)
        position += bytes.count
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        UnsafeMutableRawBufferPointer(rebasing: buffer[position..<(position + bytes.count)]).copyMemory(from: UnsafeRawBufferPointer(bytes))
        position += bytes.count
    }
}

/// A string as a JSON string literal, quotes included, escaped as `JSONEncoder` escapes with
/// `.withoutEscapingSlashes`: `"` and `\` with a backslash; backspace, form feed, newline,
/// carriage return and tab by their short escapes; other bytes below 0x20 as `\u00XX`;
/// everything else (UTF-8 included) as is. Base64 needs none of it, so that case is one copy.
struct JSONText {
    private var text: String
    /// Bytes of the literal, quotes included.
    let length: Int

    init(escaping string: String) {
        var text = string
        let extra = text.withUTF8 { bytes in bytes.reduce(0) { $0 + JSONText.extraBytes($1) } }
        self.text = text
        self.length = text.utf8.count + extra + 2
    }

    /// Bytes the escaped form adds for `byte`.
    static func extraBytes(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: 1
        case 0x00..<0x20: 5
        default: 0
        }
    }

    func write(into writer: inout ByteWriter) {
        var text = self.text
        let plain = length == text.utf8.count + 2
        writer.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            if plain {
                writer.append(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    writer.append(UInt8(ascii: "\\"))
                    writer.append(byte)
                case 0x08: writer.append(#"\b"#)
                case 0x0C: writer.append(#"\f"#)
                case 0x0A: writer.append(#"\n"#)
                case 0x0D: writer.append(#"\r"#)
                case 0x09: writer.append(#"\t"#)
                case 0x00..<0x20:
                    writer.append(#"\u00"#)
                    writer.append(Self.hexDigits[Int(byte >> 4)])
                    writer.append(Self.hexDigits[Int(byte & 0x0F)])
                default:
                    writer.append(byte)
                }
            }
        }
        writer.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
