import SwiftASN1

/// `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`
/// (RFC 5280 §4.1.1.2). The digest and signature algorithms a receipt uses take no parameters, or
/// NULL; anything else is refused rather than skipped, because the signature does not cover it.
enum CMSAlgorithmIdentifier {
    static func objectIdentifier(_ node: ASN1Node, _ what: String) throws -> ASN1ObjectIdentifier {
        let fields = try node.children(.malformedEncoding, what)
        guard node.identifier == .sequence, let algorithm = fields.first, fields.count <= 2 else {
            throw AppReceiptVerificationError(.malformedEncoding, "\(what) is not an AlgorithmIdentifier")
        }
        if fields.count == 2 {
            guard fields[1].identifier == .null, case .primitive(let bytes) = fields[1].content, bytes.isEmpty else {
                throw AppReceiptVerificationError(.malformedEncoding, "\(what) has parameters other than NULL")
            }
        }
        return try algorithm.objectIdentifier(.malformedEncoding, what)
    }
}
