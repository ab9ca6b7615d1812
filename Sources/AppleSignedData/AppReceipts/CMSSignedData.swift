import SwiftASN1

/// The PKCS #7 container of an app receipt — `ContentInfo` holding `SignedData` (RFC 5652 §3, §5.1)
/// — parsed from untrusted bytes. Shapes, content types and algorithms are checked here; nothing is
/// verified. Strict where the signature does not reach (versions, algorithm parameters), so that a
/// changed envelope is refused rather than ignored.
struct CMSSignedData {
    var version: Int64
    /// The eContent octets, segments joined: what the signature or the message-digest attribute covers.
    var content: [UInt8]
    /// The `[0] IMPLICIT` certificates field exactly as sent (part of the chain cache key).
    var certificatesField: ArraySlice<UInt8>
    var certificates: [ASN1Node]
    var signer: CMSSignerInfo

    init(der bytes: [UInt8], limits: AppReceiptLimits) throws {
        guard bytes.count <= limits.maximumBytes else {
            throw AppReceiptVerificationError(.tooLarge, "\(bytes.count) bytes, limit \(limits.maximumBytes)")
        }
        let contentInfo = try ReceiptASN1.parse(bytes[...], limits: limits)
        guard contentInfo.identifier == .sequence else {
            throw AppReceiptVerificationError(.notSignedData, "outer element is not a ContentInfo SEQUENCE")
        }
        let outer = try contentInfo.children(.malformedEncoding, "ContentInfo")
        guard outer.count == 2 else {
            throw AppReceiptVerificationError(.malformedEncoding, "ContentInfo has \(outer.count) fields, not 2")
        }
        guard try outer[0].objectIdentifier(.notSignedData, "contentType") == CMSObjectIdentifiers.signedData else {
            throw AppReceiptVerificationError(.notSignedData, "contentType is not signed-data")
        }
        let explicit = try outer[1].children(.malformedEncoding, "ContentInfo content")
        guard outer[1].isContext(0), explicit.count == 1, explicit[0].identifier == .sequence else {
            throw AppReceiptVerificationError(.malformedEncoding, "ContentInfo content is not [0] SignedData")
        }
        var fields = try explicit[0].children(.malformedEncoding, "SignedData")[...]

        guard let versionNode = fields.popFirst(), let digestsNode = fields.popFirst(), let encapsulated = fields.popFirst() else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignedData has fewer than four fields")
        }
        version = try versionNode.integer(.malformedEncoding, "SignedData version")
        let digestAlgorithms = try Self.digestAlgorithms(digestsNode)
        content = try Self.content(encapsulated)

        if let field = fields.first, field.isContext(0) {
            fields.removeFirst()
            certificatesField = field.encodedBytes
            certificates = try field.children(.malformedEncoding, "certificates")
        } else {
            certificatesField = []
            certificates = []
        }
        guard certificates.count <= limits.maximumCertificates else {
            throw AppReceiptVerificationError(.malformedEncoding, "\(certificates.count) certificates, limit \(limits.maximumCertificates)")
        }
        if let field = fields.first, field.isContext(1) {
            fields.removeFirst()   // crls: not used by receipts, not covered by the signature, ignored
        }
        guard let signerInfos = fields.popFirst(), signerInfos.identifier == .set, fields.isEmpty else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignedData does not end with the signerInfos SET")
        }
        let signers = try signerInfos.children(.malformedEncoding, "signerInfos")
        guard let only = signers.first else { throw AppReceiptVerificationError(.missingSigner) }
        guard signers.count == 1 else {
            throw AppReceiptVerificationError(.malformedEncoding, "\(signers.count) signers; a receipt has one")
        }
        signer = try CMSSignerInfo(only)

        // RFC 5652 §5.1: version 1 with an issuer-and-serial signer, 3 with a key-identifier one.
        guard version == signer.version else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignedData version \(version) with a version \(signer.version) signer")
        }
        guard digestAlgorithms.contains(signer.digestAlgorithm) else {
            throw AppReceiptVerificationError(.malformedEncoding, "signer digest algorithm not listed in digestAlgorithms")
        }
        guard !certificates.isEmpty else { throw AppReceiptVerificationError(.missingCertificates, "no certificates field") }
    }

    private static func digestAlgorithms(_ node: ASN1Node) throws -> [AppReceiptDigestAlgorithm] {
        guard node.identifier == .set else {
            throw AppReceiptVerificationError(.malformedEncoding, "digestAlgorithms is not a SET")
        }
        return try node.children(.malformedEncoding, "digestAlgorithms").map { algorithm in
            let oid = try CMSAlgorithmIdentifier.objectIdentifier(algorithm, "digestAlgorithms entry")
            guard let digest = AppReceiptDigestAlgorithm(oid) else {
                throw AppReceiptVerificationError(.unsupportedAlgorithm, "digest algorithm \(oid)")
            }
            return digest
        }
    }

    /// `EncapsulatedContentInfo ::= SEQUENCE { eContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }`
    private static func content(_ node: ASN1Node) throws -> [UInt8] {
        let fields = try node.children(.malformedEncoding, "encapContentInfo")
        guard node.identifier == .sequence, let type = fields.first, fields.count <= 2 else {
            throw AppReceiptVerificationError(.malformedEncoding, "encapContentInfo is not a SEQUENCE of one or two fields")
        }
        guard try type.objectIdentifier(.malformedEncoding, "eContentType") == CMSObjectIdentifiers.data else {
            throw AppReceiptVerificationError(.unexpectedContentType, "eContentType is not data")
        }
        guard fields.count == 2 else { throw AppReceiptVerificationError(.missingContent) }
        let explicit = try fields[1].children(.malformedEncoding, "eContent")
        guard fields[1].isContext(0), explicit.count == 1 else {
            throw AppReceiptVerificationError(.malformedEncoding, "eContent is not [0] EXPLICIT")
        }
        return try explicit[0].octetString(.malformedEncoding, "eContent")
    }
}
