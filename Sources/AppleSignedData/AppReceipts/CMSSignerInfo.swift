import SwiftASN1

/// The one `SignerInfo` of a receipt (RFC 5652 §5.3), parsed from untrusted bytes:
///
///     SignerInfo ::= SEQUENCE { version, sid, digestAlgorithm, signedAttrs [0] IMPLICIT OPTIONAL,
///                               signatureAlgorithm, signature OCTET STRING, unsignedAttrs [1] IMPLICIT OPTIONAL }
struct CMSSignerInfo {
    /// Which certificate signed: by issuer and serial number (version 1, what Apple sends), or by
    /// subject key identifier (version 3).
    enum Identifier {
        case issuerAndSerialNumber(issuer: ASN1Node, serialNumber: ArraySlice<UInt8>)
        case subjectKeyIdentifier(ArraySlice<UInt8>)
    }

    var version: Int64
    var identifier: Identifier
    /// The signer identifier exactly as sent (part of the chain cache key).
    var identifierField: ArraySlice<UInt8>
    var digestAlgorithm: AppReceiptDigestAlgorithm
    /// Absent in Apple's receipts: the signature then covers the content itself.
    var signedAttributes: CMSSignedAttributes?
    var signatureAlgorithm: ReceiptSignatureAlgorithm
    var signature: [UInt8]

    init(_ node: ASN1Node) throws {
        var fields = try node.children(.malformedEncoding, "SignerInfo")[...]
        guard node.identifier == .sequence, let versionNode = fields.popFirst(), let sid = fields.popFirst(), let digestNode = fields.popFirst() else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignerInfo is not a SEQUENCE of at least five fields")
        }
        version = try versionNode.integer(.malformedEncoding, "SignerInfo version")
        identifierField = sid.encodedBytes
        identifier = try Self.identifier(sid)
        switch (identifier, version) {
        case (.issuerAndSerialNumber, 1), (.subjectKeyIdentifier, 3): break
        default: throw AppReceiptVerificationError(.malformedEncoding, "SignerInfo version \(version) does not fit its signer identifier")
        }
        let digestOID = try CMSAlgorithmIdentifier.objectIdentifier(digestNode, "signer digestAlgorithm")
        guard let digest = AppReceiptDigestAlgorithm(digestOID) else {
            throw AppReceiptVerificationError(.unsupportedAlgorithm, "digest algorithm \(digestOID)")
        }
        digestAlgorithm = digest
        if let field = fields.first, field.isContext(0) {
            fields.removeFirst()
            signedAttributes = try CMSSignedAttributes(field)
        }
        guard let algorithmNode = fields.popFirst(), let signatureNode = fields.popFirst() else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignerInfo lacks signatureAlgorithm or signature")
        }
        let algorithmOID = try CMSAlgorithmIdentifier.objectIdentifier(algorithmNode, "signatureAlgorithm")
        guard let algorithm = ReceiptSignatureAlgorithm(algorithmOID), algorithm.fits(digest) else {
            throw AppReceiptVerificationError(.unsupportedAlgorithm, "signature algorithm \(algorithmOID) with \(digest.rawValue)")
        }
        signatureAlgorithm = algorithm
        signature = try signatureNode.octetString(.malformedEncoding, "signature")
        if let field = fields.first, field.isContext(1) {
            fields.removeFirst()   // unsignedAttrs: nothing a receipt needs; not covered by the signature
        }
        guard fields.isEmpty else {
            throw AppReceiptVerificationError(.malformedEncoding, "SignerInfo has fields after the signature")
        }
    }

    private static func identifier(_ node: ASN1Node) throws -> Identifier {
        if node.isContext(0), case .primitive(let keyIdentifier) = node.content {
            return .subjectKeyIdentifier(keyIdentifier)
        }
        let fields = try node.children(.malformedEncoding, "signer identifier")
        guard node.identifier == .sequence, fields.count == 2, fields[0].identifier == .sequence,
              fields[1].identifier == .integer, case .primitive(let serialNumber) = fields[1].content
        else {
            throw AppReceiptVerificationError(.malformedEncoding, "signer identifier is neither issuer-and-serial nor a key identifier")
        }
        return .issuerAndSerialNumber(issuer: fields[0], serialNumber: serialNumber)
    }
}
