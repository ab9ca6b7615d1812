import AppleTestPKI
import Foundation
import SwiftASN1
import Testing
@testable import AppleSignedData

@Suite("App receipts: a container that is not one signer's signed data is refused")
struct ContainerRefusalTests {
    let verifier = try! makeVerifier()

    func parts(_ change: (inout AppReceiptSigner.Options) -> Void = { _ in }) throws -> SignedDataParts {
        try SignedDataParts(der: try mint { $0.encoding = .der; change(&$0) })
    }

    @Test func theReassembledReceiptStillVerifiesSoEachRefusalBelowIsItsOwnChange() async throws {
        _ = try await verifier.verify(der: try parts().assembled())
    }

    @Test func aContentInfoThatIsNotSignedDataIsRefused() async throws {
        let enveloped: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03]
        #expect(await refusal { try await verifier.verify(der: try parts().assembled(contentType: enveloped)) } == .notSignedData)
    }

    @Test func signedContentThatIsNotDataIsRefused() async throws {
        let receipt = try mint { $0.encoding = .der }
        let other = Array(SignedDataParts.dataOID.dropLast()) + [0x03]
        let changed = try #require(replacingFirst(SignedDataParts.dataOID, in: receipt, with: other))
        #expect(await refusal { try await verifier.verify(der: changed) } == .unexpectedContentType)
    }

    @Test func aContentTypeAttributeThatIsNotDataIsRefused() async throws {
        let receipt = try mint { $0.encoding = .der; $0.signedAttributes = true }
        let content = try #require(receipt.firstRange(of: SignedDataParts.dataOID))
        let other = Array(SignedDataParts.dataOID.dropLast()) + [0x03]
        let changed = try #require(replacingFirst(SignedDataParts.dataOID, in: receipt, with: other, after: content.upperBound))
        #expect(await refusal { try await verifier.verify(der: changed) } == .unexpectedContentType)
    }

    @Test func aDetachedSignatureWithoutContentIsRefused() async throws {
        var detached = try parts()
        detached.encapsulatedContent = SignedDataParts.tlv(0x30, SignedDataParts.dataOID)
        #expect(await refusal { try await verifier.verify(der: detached.assembled()) } == .missingContent)
    }

    @Test func signedDataWithoutASignerIsRefused() async throws {
        var unsigned = try parts()
        unsigned.signerInfos = [0x31, 0x00]
        #expect(await refusal { try await verifier.verify(der: unsigned.assembled()) } == .missingSigner)
    }

    @Test func signedDataWithTwoSignersIsRefused() async throws {
        var twice = try parts()
        let signer = Array(try DER.parse(twice.signerInfos).children().first!.encodedBytes)
        twice.signerInfos = SignedDataParts.tlv(0x31, signer + signer)
        #expect(await refusal { try await verifier.verify(der: twice.assembled()) } == .malformedEncoding)
    }

    @Test func aReceiptWithoutTheSignersCertificatesIsRefused() async throws {
        var identity = pki.receiptSigner
        identity.certificates = []
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .missingCertificates)
        identity.certificates = [pki.intermediate, pki.root]
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .missingCertificates)
        identity.certificates = [pki.leaf, pki.root]
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .missingCertificates)
    }

    @Test func aCertificateThatIsNotX509IsRefused() async throws {
        var broken = try parts()
        let certificates = try DER.parse(try #require(broken.certificates)).children().map { Array($0.encodedBytes) }
        broken.certificates = SignedDataParts.tlv(0xA0, certificates[0] + certificates[1] + [0x30, 0x03, 0x02, 0x01, 0x00])
        #expect(await refusal { try await verifier.verify(der: broken.assembled()) } == .unparsableCertificate)
    }

    @Test func aDigestOtherThanSHA1OrSHA256IsRefused() async throws {
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        let sha384 = Array(sha256.dropLast()) + [0x02]
        let changed = try #require(replacingFirst(sha256, in: try mint { $0.encoding = .der }, with: sha384))
        #expect(await refusal { try await verifier.verify(der: changed) } == .unsupportedAlgorithm)
    }

    @Test func aSignatureAlgorithmThatContradictsTheDigestIsRefused() async throws {
        // Named sha256WithRSAEncryption, digest SHA-1.
        let receipt = try mint { $0.encoding = .der; $0.digest = .sha1; $0.namedSignatureAlgorithm = true }
        let sha1WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05]
        let changed = try #require(replacingFirst(sha1WithRSA, in: receipt, with: Array(sha1WithRSA.dropLast()) + [0x0B]))
        #expect(await refusal { try await verifier.verify(der: changed) } == .unsupportedAlgorithm)
    }

    @Test func aVersionThatDoesNotFitTheSignerIsRefused() async throws {
        var changed = try parts()
        changed.version = [0x02, 0x01, 0x03]
        #expect(await refusal { try await verifier.verify(der: changed.assembled()) } == .malformedEncoding)
    }
}

extension ASN1Node {
    func children() throws -> [ASN1Node] {
        guard case .constructed(let nodes) = content else { throw ASN1Error.invalidASN1Object(reason: "primitive") }
        return Array(nodes)
    }
}
