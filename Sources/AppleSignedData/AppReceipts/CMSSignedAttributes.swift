import SwiftASN1

/// A signer's signed attributes (RFC 5652 §5.3, §11): when present, the signature covers their DER
/// — re-tagged from `[0] IMPLICIT` to `SET OF` — and the content is bound through the
/// message-digest attribute; the content-type attribute must name the content's type.
struct CMSSignedAttributes {
    /// The bytes the signature covers: the attributes as sent, with the SET tag.
    var signedBytes: [UInt8]
    var messageDigest: [UInt8]

    init(_ node: ASN1Node) throws {
        let encoded = node.encodedBytes
        // Re-tagging is only sound for the definite-length form DER requires here.
        guard encoded.count >= 2, encoded[encoded.startIndex] == 0xA0, encoded[encoded.startIndex + 1] != 0x80 else {
            throw AppReceiptVerificationError(.malformedEncoding, "signed attributes are not DER")
        }
        signedBytes = [0x31] + encoded.dropFirst()

        var contentTypes: [ASN1ObjectIdentifier] = []
        var digests: [[UInt8]] = []
        for attribute in try node.children(.malformedEncoding, "signed attributes") {
            let fields = try attribute.children(.malformedEncoding, "signed attribute")
            guard attribute.identifier == .sequence, fields.count == 2, fields[1].identifier == .set else {
                throw AppReceiptVerificationError(.malformedEncoding, "signed attribute is not SEQUENCE { type, SET OF value }")
            }
            let values = try fields[1].children(.malformedEncoding, "signed attribute values")
            switch try fields[0].objectIdentifier(.malformedEncoding, "signed attribute type") {
            case CMSObjectIdentifiers.contentTypeAttribute:
                guard values.count == 1 else { throw AppReceiptVerificationError(.malformedEncoding, "content-type attribute with \(values.count) values") }
                contentTypes.append(try values[0].objectIdentifier(.malformedEncoding, "content-type attribute value"))
            case CMSObjectIdentifiers.messageDigestAttribute:
                guard values.count == 1 else { throw AppReceiptVerificationError(.malformedEncoding, "message-digest attribute with \(values.count) values") }
                digests.append(try values[0].octetString(.malformedEncoding, "message-digest attribute value"))
            default:
                continue   // signing time and the like: covered by the signature, not needed
            }
        }
        guard contentTypes.count <= 1, digests.count <= 1 else {
            throw AppReceiptVerificationError(.malformedEncoding, "content-type or message-digest attribute repeated")
        }
        guard let contentType = contentTypes.first else {
            throw AppReceiptVerificationError(.unexpectedContentType, "content-type attribute missing")
        }
        guard contentType == CMSObjectIdentifiers.data else {
            throw AppReceiptVerificationError(.unexpectedContentType, "content-type attribute is not data")
        }
        guard let digest = digests.first else {
            throw AppReceiptVerificationError(.digestMismatch, "message-digest attribute missing")
        }
        messageDigest = digest
    }
}
