/// The first pass over untrusted bytes, before swift-asn1 builds nodes: where the outermost element
/// ends, walked iteratively with an explicit nesting limit.
///
/// swift-asn1 refuses all of these too, but with one generic error and its own depth limit of 50;
/// measuring first gives truncation, trailing bytes and excessive nesting their own reasons, and
/// keeps the nesting limit ours. Indefinite lengths are allowed because Apple's receipts use them
/// (BER, X.690 §8.1.3.6); a primitive element with one is not.
enum BERExtent {
    /// The length of the first element of `bytes`, or the reason it has none.
    static func measure(_ bytes: ArraySlice<UInt8>, maximumDepth: Int) throws -> Int {
        let start = bytes.startIndex
        let end = bytes.endIndex
        var index = start
        // For each open constructed element: where its content ends (`nil`: at end-of-contents
        // octets), and the bound it must end within (its own end, or its parent's bound).
        var ends: [Int?] = []
        var bounds: [Int] = []
        while true {
            while let last = ends.last {
                if let stop = last {
                    guard index == stop else { break }
                } else {
                    guard index + 1 < bounds[bounds.count - 1], bytes[index] == 0, bytes[index + 1] == 0 else { break }
                    index += 2
                }
                ends.removeLast()
                bounds.removeLast()
            }
            if ends.isEmpty && index > start { return index - start }
            let bound = bounds.last ?? end
            let header = try Header(bytes, at: index, bound: bound, end: end)
            index = header.contentStart
            if let length = header.length {
                let stop = index + length
                guard stop <= bound else { throw overrun(bound: bound, end: end, at: index) }
                if header.constructed {
                    ends.append(stop)
                    bounds.append(stop)
                } else {
                    index = stop
                }
            } else {
                ends.append(nil)
                bounds.append(bound)
            }
            if ends.count > maximumDepth {
                throw AppReceiptVerificationError(.nestingTooDeep, "more than \(maximumDepth) levels at offset \(index - start)")
            }
        }
    }

    /// Running past the data is truncation; running past an enclosing element is malformed.
    private static func overrun(bound: Int, end: Int, at index: Int) -> AppReceiptVerificationError {
        bound == end
            ? AppReceiptVerificationError(.truncated, "element at offset \(index) runs past the end")
            : AppReceiptVerificationError(.malformedEncoding, "element at offset \(index) runs past its parent")
    }

    /// An identifier and length octets (X.690 §8.1.2–8.1.3).
    private struct Header {
        var constructed: Bool
        /// `nil` for the indefinite form.
        var length: Int?
        var contentStart: Int

        init(_ bytes: ArraySlice<UInt8>, at start: Int, bound: Int, end: Int) throws {
            var index = start
            func next() throws -> UInt8 {
                guard index < bound else { throw BERExtent.overrun(bound: bound, end: end, at: start) }
                defer { index += 1 }
                return bytes[index]
            }
            let identifier = try next()
            constructed = identifier & 0x20 != 0
            if identifier & 0x1F == 0x1F {
                // High tag number: base-128 digits; four are more than any real tag needs.
                var digits = 0
                while try next() & 0x80 != 0 {
                    digits += 1
                    guard digits < 4 else { throw AppReceiptVerificationError(.malformedEncoding, "tag number too long at offset \(start)") }
                }
            }
            let first = try next()
            if identifier == 0 {
                throw AppReceiptVerificationError(.malformedEncoding, "end-of-contents outside an indefinite-length element at offset \(start)")
            }
            switch first {
            case 0x80:
                guard constructed else {
                    throw AppReceiptVerificationError(.malformedEncoding, "indefinite length on a primitive element at offset \(start)")
                }
                length = nil
            case 0x81...0x84:
                var value = 0
                for _ in 0..<Int(first & 0x7F) { value = value << 8 | Int(try next()) }
                length = value
            case 0x85...0xFF:
                throw AppReceiptVerificationError(.malformedEncoding, "length of \(first & 0x7F) octets at offset \(start)")
            default:
                length = Int(first)
            }
            contentStart = index
        }
    }
}
