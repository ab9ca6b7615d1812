import SwiftASN1

/// The object identifiers a minted receipt's container needs (RFC 5652, RFC 3370, RFC 5754).
enum CMSWriterOIDs {
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let contentTypeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 3]
    static let messageDigestAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 4]
    static let signingTimeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 5]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 5]
    static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 11]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10_045, 4, 3, 2]

    /// `SEQUENCE { algorithm, NULL }`, or without parameters (ECDSA, RFC 5758 §3.2).
    static func algorithmIdentifier(_ oid: ASN1ObjectIdentifier, null: Bool) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(oid)
            if null { try coder.serialize(ASN1Null()) }
        }
        return serializer.serializedBytes
    }
}
