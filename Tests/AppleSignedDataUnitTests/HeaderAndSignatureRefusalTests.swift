import AppleTestPKI
import Crypto
import Foundation
import Testing
@testable import AppleSignedData

@Suite("Signed data: forged, tampered and malformed tokens are refused")
struct HeaderAndSignatureRefusalTests {
    let pki: TestPKI
    let verifier: SignedDataVerifier
    let jws: String

    init() throws {
        pki = try makePKI()
        verifier = try makeVerifier(trusting: [pki.root])
        jws = try pki.sign(transaction())
    }

    func header(alg: String) throws -> String {
        let json = try JSONEncoder().encode(JWSHeader(alg: alg, x5c: pki.x5c))
        return Base64URL.encode(json)
    }

    @Test func aTamperedPayloadHasABadSignature() async throws {
        let forged = try Base64URL.encode(JSONEncoder().encode(transaction(bundle: "com.example.other")))
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 1, of: jws, with: forged)) } == .badSignature)
        var cheaper = transaction()
        cheaper.productId = "coins.10000"
        let forgedProduct = try Base64URL.encode(JSONEncoder().encode(cheaper))
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 1, of: jws, with: forgedProduct)) } == .badSignature)
    }

    @Test func aTamperedSignatureIsABadSignature() async throws {
        var signature = Base64URL.decode(Array(jws.split(separator: ".")[2].utf8))!
        signature[10] ^= 0x01
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 2, of: jws, with: Base64URL.encode(signature))) } == .badSignature)
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 2, of: jws, with: "AAAA")) } == .badSignature)
    }

    @Test func algNoneIsRefusedWithOrWithoutASignature() async throws {
        let none = replacing(segment: 0, of: jws, with: try header(alg: "none"))
        #expect(await refusal { try await verifier.verifyTransaction(none) } == .unsupportedAlgorithm)
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 2, of: none, with: "")) } == .unsupportedAlgorithm)
    }

    @Test func hs256IsRefusedEvenWhenKeyedWithTheLeafsPublicKey() async throws {
        // The classic confusion attack: an HMAC keyed with the public key the verifier holds.
        let signingInput = try header(alg: "HS256") + "." + jws.split(separator: ".")[1]
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: pki.leafKey.publicKey.derRepresentation))
        #expect(await refusal { try await verifier.verifyTransaction(signingInput + "." + Base64URL.encode(Array(mac))) } == .unsupportedAlgorithm)
    }

    @Test func otherAlgorithmsAndAMissingAlgAreRefused() async throws {
        for alg in ["RS256", "ES384", "es256", "EdDSA"] {
            #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 0, of: jws, with: try header(alg: alg))) } == .unsupportedAlgorithm)
        }
        let noAlg = Base64URL.encode(Array(#"{"x5c":[]}"#.utf8))
        #expect(await refusal { try await verifier.verifyTransaction(replacing(segment: 0, of: jws, with: noAlg)) } == .unsupportedAlgorithm)
    }

    @Test func aChainOfTwoOrFourOrNoneIsTheWrongLength() async throws {
        let two = try pki.sign(transaction(), x5c: TestPKI.x5c([pki.leaf, pki.intermediate]))
        #expect(await refusal { try await verifier.verifyTransaction(two) } == .wrongChainLength)
        let four = try pki.sign(transaction(), x5c: TestPKI.x5c([pki.leaf, pki.intermediate, pki.root, pki.root]))
        #expect(await refusal { try await verifier.verifyTransaction(four) } == .wrongChainLength)
        let none = replacing(segment: 0, of: jws, with: base64URL(#"{"alg":"ES256"}"#))
        #expect(await refusal { try await verifier.verifyTransaction(none) } == .wrongChainLength)
    }

    @Test func certificatesThatAreNotBase64DERAreUnparsable() async throws {
        let garbage = try pki.sign(transaction(), x5c: ["not base64!", pki.x5c[1], pki.x5c[2]])
        #expect(await refusal { try await verifier.verifyTransaction(garbage) } == .unparsableCertificate)
        let notDER = try pki.sign(transaction(), x5c: [pki.x5c[0], "AAAA", pki.x5c[2]])
        #expect(await refusal { try await verifier.verifyTransaction(notDER) } == .unparsableCertificate)
    }

    @Test func malformedTokensAreMalformed() async throws {
        for token in ["", "abc", "a.b", "a.b.c.d", ".b.c", "a..c", "!!!.\(jws.split(separator: ".")[1]).c", "\(base64URL("not json")).b.c"] {
            #expect(await refusal { try await verifier.verifyTransaction(token) } == .malformedJWS, "\(token)")
        }
    }

    @Test func aSignedPayloadThatIsNotJSONIsNotDecodable() async throws {
        let signer = try pki.signer()
        #expect(await refusal { try await verifier.verifyTransaction(try signer.sign(payloadJSON: Array("not json".utf8))) } == .payloadNotDecodable)
        #expect(await refusal { try await verifier.verifyTransaction(try signer.sign(payloadJSON: Array("[1,2]".utf8))) } == .payloadNotDecodable)
    }

    @Test func refusalsDescribeTheReasonTerselyAndNeverEchoTheToken() async throws {
        let forged = replacing(segment: 2, of: jws, with: "AAAA")
        do {
            _ = try await verifier.verifyTransaction(forged)
            Issue.record("accepted a forged signature")
        } catch let error as SignedDataVerificationError {
            #expect(error.description == "signed data refused: bad signature")
            for part in forged.split(separator: ".") where part.count > 8 {
                #expect(!error.description.contains(part))
                #expect(!error.debugDescription.contains(part))
            }
            #expect(!error.debugDescription.contains(pki.x5c[0]))
        }
    }
}
