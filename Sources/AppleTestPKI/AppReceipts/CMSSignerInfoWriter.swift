import _CryptoExtras
import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
import X509

/// Writes the one SignerInfo of a minted receipt (RFC 5652 §5.3): issuer-and-serial identifier,
/// version 1, optional signed attributes, and the signature over content or attributes.
struct CMSSignerInfoWriter {
    let identity: ReceiptSigningIdentity
    let options: AppReceiptSigner.Options

    func encode(content: [UInt8]) throws -> [UInt8] {
        let attributes = options.signedAttributes ? try signedAttributes(content: content) : nil
        let signature = try sign(attributes ?? content)
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(Int64(1))
            try coder.appendConstructedNode(identifier: .sequence) { sid in
                try sid.serialize(identity.certificate.issuer)
                try sid.serialize(identity.certificate.serialNumber.bytes)
            }
            try coder.serializeRawBytes(CMSWriterOIDs.algorithmIdentifier(options.digest.objectIdentifier, null: true))
            if var implicit = attributes {
                implicit[0] = 0xA0   // [0] IMPLICIT in place of the SET tag that was signed
                coder.serializeRawBytes(implicit)
            }
            try coder.serializeRawBytes(signatureAlgorithm)
            try coder.serialize(ASN1OctetString(contentBytes: signature[...]))
        }
        return serializer.serializedBytes
    }

    private var signatureAlgorithm: [UInt8] {
        get throws {
            switch identity.key {
            case .p256: try CMSWriterOIDs.algorithmIdentifier(CMSWriterOIDs.ecdsaWithSHA256, null: false)
            case .rsa where !options.namedSignatureAlgorithm: try CMSWriterOIDs.algorithmIdentifier(CMSWriterOIDs.rsaEncryption, null: true)
            case .rsa: try CMSWriterOIDs.algorithmIdentifier(options.digest == .sha1 ? CMSWriterOIDs.sha1WithRSA : CMSWriterOIDs.sha256WithRSA, null: true)
            }
        }
    }

    private func sign(_ bytes: [UInt8]) throws -> [UInt8] {
        switch (identity.key, options.digest) {
        case (.rsa(let key), .sha1):
            Array(try key.signature(for: Insecure.SHA1.hash(data: bytes), padding: .insecurePKCS1v1_5).rawRepresentation)
        case (.rsa(let key), .sha256):
            Array(try key.signature(for: SHA256.hash(data: bytes), padding: .insecurePKCS1v1_5).rawRepresentation)
        case (.p256(let key), _):
            Array(try key.signature(for: SHA256.hash(data: bytes)).derRepresentation)
        }
    }

    /// Content type, message digest and signing time, as the SET OF that the signature covers.
    private func signedAttributes(content: [UInt8]) throws -> [UInt8] {
        func attribute(_ type: ASN1ObjectIdentifier, _ value: (inout DER.Serializer) throws -> Void) throws -> ASN1Any {
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(type)
                try coder.appendConstructedNode(identifier: .set) { try value(&$0) }
            }
            return try ASN1Any(derEncoded: serializer.serializedBytes)
        }
        let attributes = [
            try attribute(CMSWriterOIDs.contentTypeAttribute) { try $0.serialize(CMSWriterOIDs.data) },
            try attribute(CMSWriterOIDs.messageDigestAttribute) { try $0.serialize(ASN1OctetString(contentBytes: options.digest.digest(content)[...])) },
            try attribute(CMSWriterOIDs.signingTimeAttribute) { try $0.serialize(try UTCTime(Date())) },
        ]
        var serializer = DER.Serializer()
        try serializer.serializeSetOf(attributes)
        return serializer.serializedBytes
    }
}

extension UTCTime {
    init(_ date: Date) throws {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        try self.init(year: parts.year!, month: parts.month!, day: parts.day!, hours: parts.hour!, minutes: parts.minute!, seconds: parts.second!)
    }
}
