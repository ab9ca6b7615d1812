extension CMSSignedData {
    /// Checks that the signer's `key` signed this content: directly, or through the signed
    /// attributes whose message digest must be the content's digest.
    func checkSignature(with key: ReceiptSignerKey) throws {
        let signed: [UInt8]
        if let attributes = signer.signedAttributes {
            guard signer.digestAlgorithm.digest(content) == attributes.messageDigest else {
                throw AppReceiptVerificationError(.digestMismatch, "message-digest attribute is not the \(signer.digestAlgorithm.rawValue) of the content")
            }
            signed = attributes.signedBytes
        } else {
            signed = content
        }
        guard try key.isValidSignature(signer.signature, for: signed, algorithm: signer.signatureAlgorithm, digest: signer.digestAlgorithm) else {
            throw AppReceiptVerificationError(.badSignature)
        }
    }
}
