/// A compact JWS, `header.payload.signature`, split into its three segments without copying.
/// Nothing in it is trusted yet.
struct CompactJWS {
    let bytes: [UInt8]
    let header: Range<Int>
    let payload: Range<Int>
    let signature: Range<Int>

    init(_ jws: String) throws {
        bytes = Array(jws.utf8)
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
              let second = bytes[(first + 1)...].firstIndex(of: dot),
              !bytes[(second + 1)...].contains(dot),
              first > 0, second > first + 1
        else { throw SignedDataVerificationError(.malformedJWS, "not three dot-separated segments") }
        header = 0..<first
        payload = (first + 1)..<second
        signature = (second + 1)..<bytes.count
    }

    var headerSegment: ArraySlice<UInt8> { bytes[header] }
    var payloadSegment: ArraySlice<UInt8> { bytes[payload] }
    var signatureSegment: ArraySlice<UInt8> { bytes[signature] }
    /// What the signature covers: the ASCII bytes of `header.payload`.
    var signingInput: ArraySlice<UInt8> { bytes[0..<payload.upperBound] }
}
