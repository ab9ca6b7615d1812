import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway Apple-shaped PKI built at run time: a self-signed P-256 root, an intermediate
/// carrying the WWDR OID and a leaf carrying the receipt-signing OID. Tests and the fake App Store
/// sign JWS with its leaf (`x5c` = leaf, intermediate, root) and configure verifiers to trust its
/// root explicitly; `Options` breaks one property at a time for negative tests.
public struct TestPKI: @unchecked Sendable {
    // @unchecked: swift-crypto 3's keys are not marked Sendable; all of these are immutable.
    public struct Options: Sendable {
        public var names: TestPKINames = .appleLike
        /// The instant validity periods are laid around. Default: now.
        public var reference: Date = Date()
        public var intermediateCarriesOID = true
        public var leafCarriesOID = true
        /// Default: `reference` − 30 days ... `reference` + 365 days.
        public var leafValidity: ClosedRange<Date>?
        /// An OCSP responder address written into the leaf (for revocation tests). Default: none.
        public var leafOCSPResponder: String?

        public init() {}
    }

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let rootKey: P256.Signing.PrivateKey
    public let intermediateKey: P256.Signing.PrivateKey
    public let leafKey: P256.Signing.PrivateKey
    public let options: Options

    public init(_ options: Options = Options()) throws {
        self.options = options
        let day: TimeInterval = 86_400
        let t = options.reference
        rootKey = P256.Signing.PrivateKey()
        intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        root = try CertificateFactory.issue(
            .root, subject: options.names.root, publicKey: rootPublic,
            issuer: options.names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .ecdsaWithSHA256, validity: t.addingTimeInterval(-365 * day)...t.addingTimeInterval(20 * 365 * day),
            marker: nil
        )
        intermediate = try CertificateFactory.issue(
            .intermediate, subject: options.names.intermediate, publicKey: intermediatePublic,
            issuer: options.names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .ecdsaWithSHA256, validity: t.addingTimeInterval(-365 * day)...t.addingTimeInterval(10 * 365 * day),
            marker: options.intermediateCarriesOID ? CertificateFactory.wwdrIntermediateOID : nil
        )
        leaf = try CertificateFactory.issue(
            .leaf, subject: options.names.leaf, publicKey: Certificate.PublicKey(leafKey.publicKey),
            issuer: options.names.intermediate, issuerPublicKey: intermediatePublic, issuerKey: Certificate.PrivateKey(intermediateKey),
            signatureAlgorithm: .ecdsaWithSHA256,
            validity: options.leafValidity ?? t.addingTimeInterval(-30 * day)...t.addingTimeInterval(365 * day),
            marker: options.leafCarriesOID ? CertificateFactory.receiptSigningLeafOID : nil,
            ocspResponder: options.leafOCSPResponder
        )
    }

    /// `x5c` as Apple sends it: leaf, intermediate, root.
    public var x5c: [String] { Self.x5c([leaf, intermediate, root]) }

    /// Any list of certificates as `x5c` strings (standard base64 DER), for malformed chains.
    public static func x5c(_ certificates: [Certificate]) -> [String] {
        certificates.map { Data(derBytes($0)).base64EncodedString() }
    }

    /// A JWS of `payload` signed by the leaf, with `x5c` (default: the full chain).
    public func sign(_ payload: some Encodable, x5c: [String]? = nil) throws -> String {
        try signer(x5c: x5c).sign(payload)
    }

    /// A signer using the leaf key and `x5c` (default: the full chain).
    public func signer(x5c: [String]? = nil) throws -> ES256JWSSigner {
        try ES256JWSSigner(privateKey: leafKey, header: JWSHeader(x5c: x5c ?? self.x5c))
    }

    /// A leaf with the right name and OID that signed itself: not issued by any intermediate.
    public func selfSignedLeaf() throws -> (certificate: Certificate, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try CertificateFactory.issue(
            .leaf, subject: options.names.leaf, publicKey: publicKey,
            issuer: options.names.leaf, issuerPublicKey: publicKey, issuerKey: Certificate.PrivateKey(key),
            signatureAlgorithm: .ecdsaWithSHA256, validity: leaf.notValidBefore...leaf.notValidAfter,
            marker: CertificateFactory.receiptSigningLeafOID
        )
        return (certificate, key)
    }

    /// The root as PEM, to configure a product to trust this PKI (the fake App Store's root).
    public var rootPEM: String { Self.pem(root) }
    /// The root as DER.
    public var rootDER: [UInt8] { Self.derBytes(root) }

    static func derBytes(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func pem(_ certificate: Certificate) -> String {
        PEMDocument(type: "CERTIFICATE", derBytes: derBytes(certificate)).pemString
    }
}
