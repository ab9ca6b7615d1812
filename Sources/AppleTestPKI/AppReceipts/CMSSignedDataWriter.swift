import SwiftASN1
import X509

/// Writes the container of a minted receipt, `ContentInfo { signed-data, [0] SignedData }`, either in
/// DER or in the BER shape of Apple's receipts: indefinite lengths for ContentInfo, SignedData and
/// the encapsulated content, the content as a constructed OCTET STRING of segments, the certificates
/// and signer infos definite.
struct CMSSignedDataWriter {
    let options: AppReceiptSigner.Options

    func encode(content: [UInt8], certificates: [Certificate], signerInfo: [UInt8]) throws -> [UInt8] {
        var version = DER.Serializer()
        try version.serialize(Int64(1))
        var digestAlgorithms = DER.Serializer()
        try digestAlgorithms.appendConstructedNode(identifier: .set) { set in
            set.serializeRawBytes(try CMSWriterOIDs.algorithmIdentifier(options.digest.objectIdentifier, null: true))
        }
        var certificateField: [UInt8] = []
        if !certificates.isEmpty {
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { field in
                for certificate in certificates { try field.serialize(certificate) }
            }
            certificateField = serializer.serializedBytes
        }
        var signerInfos = DER.Serializer()
        signerInfos.appendConstructedNode(identifier: .set) { $0.serializeRawBytes(signerInfo) }

        let signedData = constructed(.sequence, version.serializedBytes + digestAlgorithms.serializedBytes
            + encapsulated(content) + certificateField + signerInfos.serializedBytes)
        return constructed(.sequence, oid(CMSWriterOIDs.signedData) + constructed(.explicit0, signedData))
    }

    /// `EncapsulatedContentInfo { data, [0] EXPLICIT OCTET STRING }`.
    private func encapsulated(_ content: [UInt8]) -> [UInt8] {
        let octets: [UInt8]
        switch options.encoding {
        case .der:
            octets = AppReceiptSigner.octetString(content)
        case .indefiniteLength:
            let size = max(1, options.segmentSize)
            let segments = stride(from: 0, to: content.count, by: size).flatMap { start in
                AppReceiptSigner.octetString(Array(content[start..<min(start + size, content.count)]))
            }
            octets = constructed(.octetString, segments)
        }
        return constructed(.sequence, oid(CMSWriterOIDs.data) + constructed(.explicit0, octets))
    }

    /// The constructed elements whose length form the encoding chooses.
    private enum Container {
        case sequence, explicit0, octetString

        var identifier: ASN1Identifier {
            switch self {
            case .sequence: .sequence
            case .explicit0: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
            case .octetString: .octetString
            }
        }

        /// The identifier octet with the constructed bit.
        var wireTag: UInt8 {
            switch self {
            case .sequence: 0x30
            case .explicit0: 0xA0
            case .octetString: 0x24
            }
        }
    }

    /// A constructed element: definite length in DER, indefinite with end-of-contents otherwise.
    private func constructed(_ container: Container, _ body: [UInt8]) -> [UInt8] {
        switch options.encoding {
        case .indefiniteLength:
            return [container.wireTag, 0x80] + body + [0x00, 0x00]
        case .der:
            var serializer = DER.Serializer()
            serializer.appendConstructedNode(identifier: container.identifier) { $0.serializeRawBytes(body) }
            return serializer.serializedBytes
        }
    }

    private func oid(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(oid)
        return serializer.serializedBytes
    }
}
